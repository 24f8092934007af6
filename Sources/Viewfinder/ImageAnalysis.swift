import Hardware

/// A luminance histogram of the image area: `bins` counts of Rec. 601 luma, 0...255 split evenly.
public struct LumaHistogram: Sendable, Equatable {
    public var counts: [Int]

    /// Counts every `step`-th pixel in both directions of `rect` (step 1 = every pixel).
    public init(of canvas: Canvas, in rect: PixelRect, bins: Int, step: Int = 1) {
        let n = max(1, min(bins, 256)), s = max(1, step)
        var counts = Array(repeating: 0, count: n)
        let r = canvas.clip(rect), w = canvas.width
        canvas.pixels.withUnsafeBufferPointer { p in
            var y = r.y
            while y < r.y + r.height {
                var x = r.x
                while x < r.x + r.width {
                    counts[Pixel.luma(p[y * w + x]) * n / 256] += 1
                    x += s
                }
                y += s
            }
        }
        self.counts = counts
    }

    /// Draws the histogram as bars in `rect` over a darkened panel, tallest bin at full height and
    /// heights on a square-root scale so that sparse tones still show next to a spike.
    public func draw(in rect: PixelRect, into canvas: inout Canvas, color: UInt32 = 0xE0E0E0) {
        canvas.blend(rect, color: 0, alpha: 160)
        canvas.stroke(rect, color: Pixel.gray)
        let peak = counts.max() ?? 0
        guard peak > 0, rect.width > 2, rect.height > 2 else { return }
        let innerH = rect.height - 2, innerW = rect.width - 2
        for x in 0..<innerW {
            let count = counts[x * counts.count / innerW]
            let bar = Int((Double(count) / Double(peak)).squareRoot() * Double(innerH) + 0.999)
            canvas.fill(PixelRect(x: rect.x + 1 + x, y: rect.y + 1 + innerH - bar, width: 1, height: bar), color: color)
        }
    }
}

/// Exposure and focus aids drawn over the image: zebra stripes on clipped highlights and focus
/// peaking on edges. Both read the image's luma before either paints, so they do not interact.
public enum ImageAids {
    /// Paints, inside `rect`: where luma ≥ `zebraThreshold` (if `zebra`), black diagonal stripes
    /// of `period` pixels; where |Δx luma| + |Δy luma| ≥ `peakingThreshold` (if `peaking`),
    /// `peakingColor`. Peaking wins where both apply.
    public static func apply(to canvas: inout Canvas, in rect: PixelRect, zebra: Bool, zebraThreshold: Int,
                             period: Int, peaking: Bool, peakingThreshold: Int,
                             peakingColor: UInt32 = Pixel.red) {
        let r = canvas.clip(rect)
        guard (zebra || peaking), r.width > 0, r.height > 0 else { return }
        let w = canvas.width, half = max(1, period / 2), p2 = max(2, period)
        var lumaA = [UInt8](repeating: 0, count: r.width), lumaB = lumaA
        canvas.pixels.withUnsafeMutableBufferPointer { px in
            guard let base = px.baseAddress else { return }
            lumaA.withUnsafeMutableBufferPointer { a in
                lumaB.withUnsafeMutableBufferPointer { b in
                    guard var current = a.baseAddress, var next = b.baseAddress else { return }
                    func lumaRow(_ y: Int, into row: UnsafeMutablePointer<UInt8>) {
                        let src = base + y * w + r.x
                        for i in 0..<r.width { row[i] = UInt8(truncatingIfNeeded: Pixel.luma(src[i])) }
                    }
                    lumaRow(r.y, into: current)
                    let last = r.width - 1
                    for y in r.y..<(r.y + r.height) {
                        let hasNext = y + 1 < r.y + r.height
                        if hasNext { lumaRow(y + 1, into: next) }
                        let row = base + y * w + r.x
                        let phase = r.x + y
                        for i in 0..<r.width {
                            let l = Int(current[i])
                            if peaking {
                                let dx = i < last ? abs(Int(current[i + 1]) - l) : 0
                                let dy = hasNext ? abs(Int(next[i]) - l) : 0
                                if dx + dy >= peakingThreshold { row[i] = peakingColor; continue }
                            }
                            if zebra, l >= zebraThreshold, (phase + i) % p2 < half { row[i] = 0x000000 }
                        }
                        swap(&current, &next)
                    }
                }
            }
        }
    }
}
