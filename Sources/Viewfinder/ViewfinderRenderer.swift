import Foundation
import Hardware

/// Draws one viewfinder image: the camera frame scaled to the display, the image aids, the
/// histogram and the status bars. Pure: no I/O, the result is a `Canvas` to present.
///
/// One per display size; keep it between frames (it reuses its canvas and scaler buffers).
public final class ViewfinderRenderer {
    public let layout: ViewfinderLayout
    public var options: OverlayOptions
    public let scaler: FrameScaler
    /// The last image drawn.
    public private(set) var canvas: Canvas
    /// Where the camera image lies on the canvas after the last `render` (letterboxed).
    public private(set) var imageRect: PixelRect

    public init(displaySize: PixelSize, options: OverlayOptions = OverlayOptions(), filter: ScalingFilter = .bilinear) {
        layout = ViewfinderLayout(displaySize: displaySize)
        self.options = options
        scaler = FrameScaler(filter: filter)
        canvas = Canvas(size: displaySize)
        imageRect = PixelRect(x: 0, y: 0, width: 0, height: 0)
    }

    /// Renders `frame` (nil: no picture yet, a "NO SIGNAL" card) with `status`; returns the canvas.
    @discardableResult
    public func render(frame: FrameBuffer?, status: ViewfinderStatus) throws(ViewfinderError) -> Canvas {
        if let frame {
            imageRect = try scaler.draw(frame, into: &canvas)
        } else {
            imageRect = PixelRect(x: 0, y: 0, width: 0, height: 0)
            canvas.fill(PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height), color: 0x202020)
            let s = layout.textScale * 2, text = "NO SIGNAL", size = BitmapFont.size(of: text, scale: s)
            BitmapFont.draw(text, x: (canvas.width - size.width) / 2, y: (canvas.height - size.height) / 2,
                            scale: s, color: Pixel.gray, into: &canvas)
        }
        drawOverlays(status)
        return canvas
    }

    private func drawOverlays(_ status: ViewfinderStatus) {
        let l = layout
        let histogram = options.histogram && imageRect.width > 0
            ? LumaHistogram(of: canvas, in: imageRect, bins: l.histogramBins,
                            step: max(1, Int(Double(imageRect.width * imageRect.height).squareRoot()) / 256))
            : nil
        ImageAids.apply(to: &canvas, in: imageRect, zebra: options.zebra, zebraThreshold: options.zebraThreshold,
                        period: l.zebraPeriod, peaking: options.focusPeaking, peakingThreshold: options.peakingThreshold)
        guard options.status || histogram != nil else { return }
        histogram?.draw(in: l.histogram, into: &canvas)
        guard options.status else { return }
        let lines = StatusText.lines(status, sizeClass: l.sizeClass)
        drawPanel(lines.top, top: true)
        drawPanel(lines.bottom, top: false)
        if status.recording {
            let d = l.lineHeight - l.textScale * 2
            let box = PixelRect(x: l.displaySize.width - l.margin - d, y: l.margin, width: d, height: d)
            canvas.fill(box, color: Pixel.red)
            let rec = BitmapFont.size(of: "REC", scale: l.textScale)
            BitmapFont.draw("REC", x: box.x - l.margin - rec.width, y: l.margin + (d - rec.height) / 2,
                            scale: l.textScale, color: Pixel.red, into: &canvas)
        }
        if let b = status.bracket { drawBracketPips(b, lines: lines.bottom.count) }
        if let st = status.stabilization {
            drawMarginBar(st)
            if l.sizeClass != .compact { drawHorizon(st) }
        }
    }

    /// A level line through the image centre, tilted by the roll being corrected, with fixed
    /// ticks either side: green within ±0.5°, yellow beyond (regular and full layouts).
    private func drawHorizon(_ st: ViewfinderStatus.StabilizationState) {
        let l = layout, cx = l.displaySize.width / 2, cy = l.displaySize.height / 2
        let half = l.displaySize.width / 8, t = max(1, l.textScale / 2 + 1)
        let radians = st.rollDegrees * Double.pi / 180
        let dx = Int((Double(half) * cos(radians)).rounded()), dy = Int((Double(half) * sin(radians)).rounded())
        let color = abs(st.rollDegrees) <= 0.5 ? Pixel.green : Pixel.yellow
        canvas.line(x0: cx - half - 4 * t, y0: cy, x1: cx - half - 12 * t, y1: cy, color: Pixel.white, thickness: t)
        canvas.line(x0: cx + half + 4 * t, y0: cy, x1: cx + half + 12 * t, y1: cy, color: Pixel.white, thickness: t)
        canvas.line(x0: cx - dx, y0: cy + dy, x1: cx + dx, y1: cy - dy, color: Pixel.black, thickness: t + 2)
        canvas.line(x0: cx - dx, y0: cy + dy, x1: cx + dx, y1: cy - dy, color: color, thickness: t)
    }

    /// A darkened band with `texts` one per line, flush with the top or bottom edge.
    private func drawPanel(_ texts: [String], top: Bool) {
        let l = layout, rows = texts.count
        guard rows > 0 else { return }
        let height = rows * l.lineHeight + l.margin
        let y0 = top ? 0 : l.displaySize.height - height
        canvas.blend(PixelRect(x: 0, y: y0, width: l.displaySize.width, height: height), color: 0, alpha: 150)
        for (i, text) in texts.enumerated() where !text.isEmpty {
            let color = !top && i == 0 && rows > 1 ? Pixel.cyan : Pixel.white
            BitmapFont.draw(text, x: l.margin, y: y0 + l.margin + i * l.lineHeight, scale: l.textScale,
                            color: color, into: &canvas)
        }
    }

    /// One box per bracket frame above the bottom panel: filled = taken, outlined = to come.
    private func drawBracketPips(_ b: ViewfinderStatus.BracketProgress, lines: Int) {
        let l = layout, side = l.lineHeight - 2 * l.textScale
        let y = l.displaySize.height - lines * l.lineHeight - l.margin - side - l.margin
        for i in 0..<max(0, min(b.count, 32)) {
            let box = PixelRect(x: l.margin + i * (side + l.margin), y: y, width: side, height: side)
            if i < b.index { canvas.fill(box, color: Pixel.yellow) } else { canvas.stroke(box, color: Pixel.yellow, thickness: l.textScale) }
        }
    }

    /// A bar showing how much of the stabilization crop margin is in use (green, red above 90%).
    private func drawMarginBar(_ st: ViewfinderStatus.StabilizationState) {
        let l = layout, width = l.histogram.width, height = max(3, 2 * l.textScale)
        let frame = PixelRect(x: l.histogram.x, y: l.histogram.y - height - l.margin, width: width, height: height)
        canvas.fill(frame, color: 0x303030)
        let used = Int((min(max(st.marginUsed, 0), 1) * Double(width)).rounded())
        canvas.fill(PixelRect(x: frame.x, y: frame.y, width: used, height: height),
                    color: st.marginUsed > 0.9 ? Pixel.red : Pixel.green)
    }
}
