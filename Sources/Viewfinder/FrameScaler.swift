import Hardware

/// Converts and scales a camera frame onto a canvas: the pure half of the viewfinder's frame path.
///
/// Reusable between frames (keeps its column tables and row buffers); not thread-safe, one per
/// display thread.
public final class FrameScaler {
    public var filter: ScalingFilter
    private var rowA: [UInt32] = []
    private var rowB: [UInt32] = []
    private var out: [UInt32] = []

    public init(filter: ScalingFilter = .bilinear) { self.filter = filter }

    /// Draws `frame` into `canvas`, scaled to fit with its aspect kept and black bars around it.
    /// Returns the rectangle the image occupies (for overlays such as zebra and peaking).
    @discardableResult
    public func draw(_ frame: FrameBuffer, into canvas: inout Canvas) throws(ViewfinderError) -> PixelRect {
        let decoder = try SourceDecoder(format: frame.pixelFormat, size: frame.size, stride: frame.stride,
                                        byteCount: frame.byteCount)
        let rect = Letterbox.fit(source: decoder.imageSize, in: canvas.size)
        clearBars(around: rect, in: &canvas)
        guard rect.width > 0, rect.height > 0 else { return rect }
        // At 1:1 both filters sample pixel centres exactly: the cheaper path gives the same result.
        let oneToOne = rect.size == decoder.imageSize
        frame.withUnsafeBytes { bytes in
            if filter == .nearest || oneToOne {
                drawNearest(decoder, bytes, rect, &canvas)
            } else {
                drawBilinear(decoder, bytes, rect, &canvas)
            }
        }
        return rect
    }

    private func clearBars(around r: PixelRect, in canvas: inout Canvas) {
        let w = canvas.width, h = canvas.height
        canvas.fill(PixelRect(x: 0, y: 0, width: w, height: r.y), color: 0)
        canvas.fill(PixelRect(x: 0, y: r.y + r.height, width: w, height: h - r.y - r.height), color: 0)
        canvas.fill(PixelRect(x: 0, y: r.y, width: r.x, height: r.height), color: 0)
        canvas.fill(PixelRect(x: r.x + r.width, y: r.y, width: w - r.x - r.width, height: r.height), color: 0)
    }

    /// Source column (or row) for each of `count` destination positions, pixel centres aligned.
    static func nearestIndices(source: Int, destination count: Int) -> [Int32] {
        (0..<count).map { Int32(min(source - 1, (2 * $0 + 1) * source / (2 * count))) }
    }

    private func drawNearest(_ d: SourceDecoder, _ bytes: UnsafeRawBufferPointer, _ r: PixelRect,
                             _ canvas: inout Canvas) {
        let xs = Self.nearestIndices(source: d.imageSize.width, destination: r.width)
        let ys = Self.nearestIndices(source: d.imageSize.height, destination: r.height)
        let w = canvas.width
        xs.withUnsafeBufferPointer { xp in
            canvas.pixels.withUnsafeMutableBufferPointer { px in
                guard let base = px.baseAddress else { return }
                var previous: Int32 = -1
                for row in 0..<r.height {
                    let dst = base + (r.y + row) * w + r.x
                    if ys[row] == previous {
                        dst.update(from: dst - w, count: r.width)
                    } else {
                        d.decodeRow(Int(ys[row]), xs: xp, bytes: bytes, into: dst)
                    }
                    previous = ys[row]
                }
            }
        }
    }

    /// Fixed-point sample positions: index of the left/top neighbour and an 8-bit weight of the other.
    static func bilinearTaps(source: Int, destination count: Int) -> [(index: Int32, weight: UInt32)] {
        (0..<count).map { i in
            // Centre-aligned position in 1/256 source pixels: ((i + 0.5) * s / d - 0.5) * 256.
            let pos = max(0, ((2 * i + 1) * source * 128) / count - 128)
            let index = min(pos >> 8, source - 1)
            let weight = index >= source - 1 ? 0 : UInt32(pos & 0xFF)
            return (Int32(index), weight)
        }
    }

    private func drawBilinear(_ d: SourceDecoder, _ bytes: UnsafeRawBufferPointer, _ r: PixelRect,
                              _ canvas: inout Canvas) {
        let sw = d.imageSize.width, sh = d.imageSize.height
        let tx = Self.bilinearTaps(source: sw, destination: r.width)
        let ty = Self.bilinearTaps(source: sh, destination: r.height)
        let identity = (0..<sw).map { Int32($0) }
        if rowA.count != sw { rowA = Array(repeating: 0, count: sw); rowB = rowA }
        var rowAIndex = -1, rowBIndex = -1
        let w = canvas.width
        identity.withUnsafeBufferPointer { all in
            for row in 0..<r.height {
                let y0 = Int(ty[row].index), y1 = min(y0 + 1, sh - 1), fy = ty[row].weight
                if rowAIndex != y0 {
                    if rowBIndex == y0 { swap(&rowA, &rowB); swap(&rowAIndex, &rowBIndex) } else {
                        Self.decode(d, y0, all, bytes, into: &rowA)
                        rowAIndex = y0
                    }
                }
                if rowBIndex != y1 && fy > 0 {
                    Self.decode(d, y1, all, bytes, into: &rowB)
                    rowBIndex = y1
                }
                let start = (r.y + row) * w + r.x
                rowA.withUnsafeBufferPointer { a in
                    rowB.withUnsafeBufferPointer { b in
                        canvas.pixels.withUnsafeMutableBufferPointer { px in
                            tx.withUnsafeBufferPointer { taps in
                            for col in 0..<r.width {
                                let x0 = Int(taps[col].index), fx = taps[col].weight
                                let x1 = fx > 0 ? x0 + 1 : x0
                                var top = Pixel.lerp(a[x0], a[x1], fx)
                                if fy > 0 { top = Pixel.lerp(top, Pixel.lerp(b[x0], b[x1], fx), fy) }
                                px[start + col] = top
                            }
                            }
                        }
                    }
                }
            }
        }
    }

    private static func decode(_ d: SourceDecoder, _ y: Int, _ xs: UnsafeBufferPointer<Int32>,
                               _ bytes: UnsafeRawBufferPointer, into row: inout [UInt32]) {
        row.withUnsafeMutableBufferPointer { buffer in
            guard let out = buffer.baseAddress, buffer.count >= xs.count else { return }
            d.decodeRow(y, xs: xs, bytes: bytes, into: out)
        }
    }
}
