import Hardware

/// Where each overlay goes on a display of a given size: the viewfinder's size classes.
///
/// `compact` is a small panel (shorter side under 400 px, e.g. 320×240): one status line at the
/// top, two at the bottom, short labels, a small histogram. `regular` (e.g. 800×480) has two
/// lines at the top (status, message) and two at the bottom (bracket/stabilization/IMU, focus). `full` (shorter side 720 px or more, e.g.
/// 1920×1080) uses long labels and a large histogram. Text scale grows with the display so a
/// glyph is never less than 7 px tall: one font pixel per 240 rows (and 320 columns).
public struct ViewfinderLayout: Sendable, Equatable {
    public enum SizeClass: String, Sendable { case compact, regular, full }

    public let displaySize: PixelSize
    public let sizeClass: SizeClass
    /// Integer factor applied to the 5×7 font.
    public let textScale: Int
    /// Gap from the display edge and between items, pixels.
    public let margin: Int
    /// Height of one text line including spacing, pixels.
    public let lineHeight: Int
    /// The top status bar (exposure, ISO, EV, WB).
    public let topBar: PixelRect
    /// The bottom status bar (focus, format, fps).
    public let bottomBar: PixelRect
    /// Where the luminance histogram is drawn.
    public let histogram: PixelRect
    /// Number of histogram bins drawn.
    public let histogramBins: Int
    /// Zebra stripe period along the diagonal, pixels.
    public let zebraPeriod: Int

    public init(displaySize: PixelSize) {
        self.displaySize = displaySize
        let w = max(1, displaySize.width), h = max(1, displaySize.height)
        let short = min(w, h)
        sizeClass = short < 400 ? .compact : short < 720 ? .regular : .full
        textScale = max(1, min(h / 240, w / 320))
        margin = max(2, 2 * textScale)
        lineHeight = BitmapFont.lineHeight * textScale
        let barHeight = 2 * lineHeight + margin
        topBar = PixelRect(x: 0, y: 0, width: w, height: (sizeClass == .compact ? 1 : 2) * lineHeight + margin)
        bottomBar = PixelRect(x: 0, y: h - barHeight, width: w, height: barHeight)
        let histWidth: Int, histHeight: Int
        switch sizeClass {
        case .compact: (histWidth, histHeight, histogramBins) = (w / 5, h / 8, 32)
        case .regular: (histWidth, histHeight, histogramBins) = (w / 6, h / 8, 64)
        case .full: (histWidth, histHeight, histogramBins) = (w / 6, h / 8, 128)
        }
        histogram = PixelRect(x: w - histWidth - margin, y: h - barHeight - histHeight - margin,
                              width: histWidth, height: histHeight)
        zebraPeriod = max(6, 4 * textScale)
    }
}
