import Hardware

/// A frame's moved planes drawn row by row where the ISP reads them, in one pass per row band:
/// each row through its own rotation (`ScenePlanes.warpRow`), then the motion blur's box down and
/// across, then straight to the ISP and the packer. The whole-frame passes did the same in three
/// sweeps over 25 MB of Float planes at 1080p (warp, blur, ISP: each written and read again); a
/// band here keeps only the few warped rows the vertical box reaches, which stay in cache.
///
/// The values are those of `ScenePlanes.warp` then `ScenePlanes.blur(horizontalPixels:verticalPixels:using:)`,
/// bit for bit: the same taps summed in the same order. Full-colour planes only, boxes of reach
/// ≤ 16 (the renderer's usual motion blur); anything else goes the whole-frame way.
struct MovedRows {
    /// The cached planes (not moved).
    let planes: ScenePlanes
    /// One map per output row (`SimulatedFrameRenderer.rowHomographies`).
    let maps: [RowHomography]
    let shift: (dx: Double, dy: Double)
    let cubic: Bool
    /// The planes interleaved (`ScenePlanes.interleave`) for bilinear sampling, or empty.
    let interleaved: [SIMD4<Float>]
    /// The motion blur's boxes (`ScenePlanes.box`), across and down; reach 0: none that way.
    let across: (reach: Int, edge: Float, scale: Float)
    let down: (reach: Int, edge: Float, scale: Float)

    /// Padding either side of a line blurred across (as `ScenePlanes.blur` pads it).
    private static let pad = 17

    /// Nil when the planes or the blur are ones only the whole-frame passes draw.
    init?(planes: ScenePlanes, interleaved: [SIMD4<Float>] = [], maps: [RowHomography], shift: (dx: Double, dy: Double), cubic: Bool,
          blurPixels: (horizontal: Double, vertical: Double)?) {
        let w = planes.size.width, h = planes.size.height
        guard planes.kind == .rgb, w >= 2, h >= 2, maps.count == h else { return nil }
        let blurs = blurPixels.map { planes.blurs(horizontalPixels: $0.horizontal, verticalPixels: $0.vertical) } ?? false
        across = blurs ? ScenePlanes.box(blurPixels?.horizontal ?? 0) : (0, 0, 1)
        down = blurs ? ScenePlanes.box(blurPixels?.vertical ?? 0) : (0, 0, 1)
        guard across.reach <= 16, down.reach <= 16 else { return nil }
        self.planes = planes; self.maps = maps; self.shift = shift; self.cubic = cubic
        self.interleaved = interleaved.count == w * h ? interleaved : []
    }

    var size: PixelSize { planes.size }

    /// Calls `body` with the bands' row source for `FramePasses.processed`: for each band (on its
    /// own thread), each of its rows in order, as (row, red values, channel stride), valid for
    /// that call only.
    func withRows(_ body: (_ rows: (Range<Int>, (Int, UnsafePointer<Float>, Int) -> Void) -> Void) -> Void) {
        planes.values.withUnsafeBufferPointer { src in
            interleaved.withUnsafeBufferPointer { vectors in
                guard let source = src.baseAddress else { return }
                body { band, develop in
                    var reader = Reader(self, source: source, interleaved: vectors.baseAddress)
                    defer { reader.free() }
                    for j in band { develop(j, reader.row(j), reader.channelStride) }
                }
            }
        }
    }

    /// One band's memory: the warped rows the vertical box reaches (a ring), a padded line for
    /// the box across, and the finished row.
    private struct Reader {
        let moved: MovedRows
        let source: UnsafePointer<Float>
        let interleaved: UnsafePointer<SIMD4<Float>>?
        let w: Int, h: Int
        /// Values between channels in the ring and in the finished row (a multiple of 8, with room
        /// for a block read past the row's end).
        let channelStride: Int
        let slots: Int
        let ring: UnsafeMutablePointer<Float>
        /// Which warped row each ring slot holds (−1: none yet).
        var held: [Int]
        let line: UnsafeMutablePointer<Float>
        let finished: UnsafeMutablePointer<Float>
        let xs: UnsafeMutablePointer<Int>, ys: UnsafeMutablePointer<Int>
        /// The rows the box down reaches for the current output row, top to bottom.
        let reached: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

        init(_ moved: MovedRows, source: UnsafePointer<Float>, interleaved: UnsafePointer<SIMD4<Float>>?) {
            self.moved = moved; self.source = source; self.interleaved = interleaved
            w = moved.planes.size.width; h = moved.planes.size.height
            channelStride = (w + 15) & ~15
            slots = 2 * moved.down.reach + 1
            ring = .allocate(capacity: slots * 3 * channelStride)
            held = Array(repeating: -1, count: slots)
            line = .allocate(capacity: w + 2 * MovedRows.pad + 8)
            finished = .allocate(capacity: 3 * channelStride)
            xs = .allocate(capacity: w); ys = .allocate(capacity: w)
            reached = .allocate(capacity: slots)
        }

        func free() {
            ring.deallocate(); line.deallocate(); finished.deallocate(); xs.deallocate(); ys.deallocate(); reached.deallocate()
        }

        /// Warped row `k` (clamped into the planes, edges repeated as the blur repeats them): red,
        /// then green and blue `channelStride` apart.
        private mutating func warped(_ k: Int) -> UnsafeMutablePointer<Float> {
            let row = min(max(k, 0), h - 1), slot = row % slots
            let values = ring + slot * 3 * channelStride
            if held[slot] != row {
                ScenePlanes.warpRow(row, map: moved.maps[row], shift: moved.shift, cubic: moved.cubic, width: w, height: h,
                                    source: source, interleaved: interleaved, into: values, channelStride: channelStride, xs: xs, ys: ys)
                held[slot] = row
            }
            return values
        }

        /// Output row `j`, moved and blurred.
        mutating func row(_ j: Int) -> UnsafePointer<Float> {
            let down = moved.down, across = moved.across
            if down.reach == 0 && across.reach == 0 { return UnsafePointer(warped(j)) }
            // The rows the box down reaches, fetched (and warped if new) before any is read.
            for k in -down.reach...down.reach { reached[k + down.reach] = warped(j + k) }
            let middle = line + MovedRows.pad
            for plane in 0..<3 {
                let offset = plane * channelStride
                func row(_ k: Int) -> UnsafePointer<Float> { UnsafePointer(reached[k + down.reach] + offset) }
                if down.reach == 0 {
                    middle.update(from: row(0), count: w)  // across.reach > 0 here
                } else {
                    var i = 0
                    while i < w {
                        var sum = SIMD8<Float>.zero
                        for k in (1 - down.reach)..<down.reach { sum += ScenePlanes.load(row(k) + i) }
                        sum += down.edge * (ScenePlanes.load(row(-down.reach) + i) + ScenePlanes.load(row(down.reach) + i))
                        let out = across.reach == 0 ? finished + offset : middle
                        UnsafeMutableRawPointer(out + i).storeBytes(of: sum * down.scale, as: SIMD8<Float>.self)
                        i += 8
                    }
                }
                guard across.reach > 0 else { continue }
                for k in 1...MovedRows.pad { middle[-k] = middle[0]; middle[w - 1 + k] = middle[w - 1] }
                let dst = finished + offset
                var i = 0
                while i < w {
                    UnsafeMutableRawPointer(dst + i).storeBytes(of: ScenePlanes.across(middle + i, across), as: SIMD8<Float>.self)
                    i += 8
                }
            }
            return UnsafePointer(finished)
        }
    }
}
