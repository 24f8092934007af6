import Foundation
import Hardware

/// The chart as the sensor sees it through one crop at one output size, before exposure: linear
/// camera channel values (white-balanced, 1 = a white diffuser) as 32-bit floats.
///
/// `.rgb` holds three full planes (R, then G, then B) for processed streams; `.mosaic` one plane
/// holding at each site only the channel of the sensor's colour filter there, for raw streams.
struct ScenePlanes {
    enum Kind: Hashable { case rgb, mosaic }
    let kind: Kind
    let size: PixelSize
    /// The planes one after another, then 8 spare values.
    var values: [Float]

    var planeCount: Int { kind == .rgb ? 3 : 1 }
    /// Distance between samples of one colour along a line: 2 in a Bayer mosaic.
    var step: Int { kind == .rgb ? 1 : 2 }

    /// Samples the chart over `crop` (sensor pixel coordinates) at `size`, each pixel the mean of
    /// 2 × 2 points of its area; `cfa` gives the channel (0 R, 1 G, 2 B) of each site in a 2 × 2
    /// tile for a mosaic.
    static func sample(pixelArray: PixelSize, crop: PixelRect, size: PixelSize, kind: Kind, cfa: [Int],
                       lighting: TestChart.Lighting = .even) -> ScenePlanes {
        let w = size.width, h = size.height, n = w * h
        let planes = kind == .rgb ? 3 : 1
        let m = SimulatedColourResponse.sensorFromSRGB
        let rows = (0..<3).map { SIMD3(m[$0 * 3], m[$0 * 3 + 1], m[$0 * 3 + 2]) }
        // Sensor pixels to chart units: the chart spans the pixel array.
        let unitY = 1 / Double(max(pixelArray.height, 1)), unitX = TestChart.aspect / Double(max(pixelArray.width, 1))
        let dx = Double(crop.width) / Double(w) * unitX, dy = Double(crop.height) / Double(h) * unitY
        let x0 = Double(crop.x) * unitX, y0 = Double(crop.y) * unitY
        var values = [Float](repeating: 0, count: n * planes + 8)  // padded: see FramePasses
        values.withUnsafeMutableBufferPointer { out in
            for j in 0..<h {
                for i in 0..<w {
                    var sum = SIMD3<Double>.zero
                    for (ox, oy) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                        sum += TestChart.colour(x: x0 + (Double(i) + ox) * dx, y: y0 + (Double(j) + oy) * dy, lighting: lighting)
                    }
                    let rgb = sum * 0.25
                    let p = j * w + i
                    if kind == .rgb {
                        for c in 0..<3 { out[c * n + p] = Float((rows[c] * rgb).sum()) }
                    } else {
                        out[p] = Float((rows[cfa[(j & 1) * 2 + (i & 1)]] * rgb).sum())
                    }
                }
            }
        }
        return ScenePlanes(kind: kind, size: size, values: values)
    }

    /// Box blur of `extentPixels` (fractional) along x and along y, each colour on its own samples.
    mutating func blur(horizontalPixels: Double, verticalPixels: Double) {
        let w = size.width, h = size.height, s = step, planes = planeCount
        var line = LineBlur()
        values.withUnsafeMutableBufferPointer { v in
            guard let base = v.baseAddress else { return }
            for plane in 0..<planes {
                let origin = base + plane * w * h
                if horizontalPixels / Double(s) >= 0.05 {
                    for j in 0..<h {
                        for phase in 0..<min(s, w) {
                            line.blur(origin + j * w + phase, stride: s, count: (w - phase + s - 1) / s,
                                      extent: horizontalPixels / Double(s))
                        }
                    }
                }
                if verticalPixels / Double(s) >= 0.05 {
                    for i in 0..<w {
                        for phase in 0..<min(s, h) {
                            line.blur(origin + phase * w + i, stride: s * w, count: (h - phase + s - 1) / s,
                                      extent: verticalPixels / Double(s))
                        }
                    }
                }
            }
        }
    }

    /// Columns `columns` replaced by those of `source` (same kind and size) box-blurred by `pixels`
    /// along both axes: one strip of `sim scene depth`. Only the strip and a margin of the blur's
    /// reach are blurred; the margin starts on an even column, so a mosaic keeps its colour phase.
    mutating func blur(columns: Range<Int>, pixels: Double, from source: ScenePlanes) {
        let w = size.width, h = size.height, planes = planeCount
        guard !columns.isEmpty, source.size == size, source.kind == kind, w > 0 else { return }
        let margin = Int(pixels.rounded(.up)) + 2
        let lo = max(columns.lowerBound - margin, 0) & ~1, hi = min(columns.upperBound + margin, w)
        let width = hi - lo
        var strip = ScenePlanes(kind: kind, size: PixelSize(width: width, height: h),
                                values: [Float](repeating: 0, count: width * h * planes + 8))
        source.values.withUnsafeBufferPointer { src in
            strip.values.withUnsafeMutableBufferPointer { dst in
                for row in 0..<(planes * h) {
                    for i in 0..<width { dst[row * width + i] = src[row * w + lo + i] }
                }
            }
        }
        strip.blur(horizontalPixels: pixels, verticalPixels: pixels)
        strip.values.withUnsafeBufferPointer { src in
            values.withUnsafeMutableBufferPointer { dst in
                for row in 0..<(planes * h) {
                    for i in columns { dst[row * w + i] = src[row * width + i - lo] }
                }
            }
        }
    }

    /// The same box blur as `blur(horizontalPixels:verticalPixels:)`, written into `storage` (motion
    /// blur, every frame). Full-colour planes and short boxes (the usual motion blur) sum their taps
    /// directly, eight samples at a time in Float: vertically from row to row (rows stay in cache,
    /// unlike the column walk), then horizontally along each row; the rest go the general way.
    mutating func blur(horizontalPixels: Double, verticalPixels: Double, using storage: inout [Float]) -> Bool {
        let w = size.width, h = size.height
        let across = Self.box(horizontalPixels), down = Self.box(verticalPixels)
        guard blurs(horizontalPixels: horizontalPixels, verticalPixels: verticalPixels) else { return false }
        guard kind == .rgb, w >= 2, h >= 2, across.reach <= 16, down.reach <= 16 else {
            _ = copy(using: &storage)
            blur(horizontalPixels: horizontalPixels, verticalPixels: verticalPixels)
            return true
        }
        return remap(into: &storage) { dst, src, plane, j in
            let origin = src + plane * w * h
            func row(_ k: Int) -> UnsafePointer<Float> { origin + min(max(k, 0), h - 1) * w }
            // The row's own scratch line (rows are filled on several threads at once).
            let padded = UnsafeMutablePointer<Float>.allocate(capacity: w + 2 * 17 + 8)
            defer { padded.deallocate() }
            do {
                let pad = 17, middle = padded + pad
                // Down: this row's taps, into the middle of `line`.
                if down.reach == 0 {
                    middle.update(from: row(j), count: w)
                } else {
                    var i = 0
                    while i < w {
                        var sum = SIMD8<Float>.zero
                        for k in (1 - down.reach)..<down.reach { sum += Self.load(row(j + k) + i) }
                        sum += down.edge * (Self.load(row(j - down.reach) + i) + Self.load(row(j + down.reach) + i))
                        UnsafeMutableRawPointer(middle + i).storeBytes(of: sum * down.scale, as: SIMD8<Float>.self)
                        i += 8
                    }
                }
                if across.reach == 0 {
                    dst.update(from: middle, count: w)
                    return
                }
                // Across: edges repeated into the padding, then each sample's taps.
                for k in 1...pad { middle[-k] = middle[0]; middle[w - 1 + k] = middle[w - 1] }
                var i = 0
                while i + 8 <= w {
                    UnsafeMutableRawPointer(dst + i).storeBytes(of: Self.across(middle + i, across), as: SIMD8<Float>.self)
                    i += 8
                }
                if i < w {
                    let tail = Self.across(middle + i, across)
                    for k in 0..<(w - i) { dst[i + k] = tail[k] }
                }
            }
        }
    }

    /// Whether a blur of these extents changes anything (a box narrower than one sample does not).
    func blurs(horizontalPixels: Double, verticalPixels: Double) -> Bool {
        Self.box(horizontalPixels / Double(step)).reach > 0 || Self.box(verticalPixels / Double(step)).reach > 0
    }

    /// A box of `extent` samples as LineBlur weighs it: taps within reach − 1 at 1, at ±reach
    /// `edge`, all × scale (1 / total weight); reach 0 leaves samples unchanged.
    static func box(_ extent: Double) -> (reach: Int, edge: Float, scale: Float) {
        guard extent >= 0.05 else { return (0, 0, 1) }
        let half = extent / 2
        let reach = Int((half + 0.5).rounded(.down))
        let edge = half + 0.5 - Double(reach)
        return (reach, Float(edge), Float(1 / (Double(2 * reach - 1) + 2 * edge)))
    }

    @inline(__always)
    static func across(_ p: UnsafePointer<Float>, _ box: (reach: Int, edge: Float, scale: Float)) -> SIMD8<Float> {
        var sum = SIMD8<Float>.zero
        for k in (1 - box.reach)..<box.reach { sum += load(p + k) }
        sum += box.edge * (load(p - box.reach) + load(p + box.reach))
        return sum * box.scale
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    // Motion: each step writes the new values into `storage` (as many values, held only by the
    // caller), which then holds the old ones; each returns false when nothing changed.

    /// Moves the image by whole steps (`dx` right, `dy` down, output pixels, rounded), wrapping
    /// around: what leaves one edge comes in at the other, so a pan never runs off the chart.
    mutating func translate(dx: Double, dy: Double, using storage: inout [Float]) -> Bool {
        let w = size.width, h = size.height, s = step
        let shiftX = Int((dx / Double(s)).rounded()) * s, shiftY = Int((dy / Double(s)).rounded()) * s
        guard shiftX != 0 || shiftY != 0, w > 0, h > 0 else { return false }
        let x0 = ((-shiftX) % w + w) % w  // source column of output column 0
        return remap(into: &storage) { dst, src, plane, j in
            // Two runs: columns x0..<w, then 0..<x0.
            let row = src + (plane * h + ((j - shiftY) % h + h) % h) * w
            dst.update(from: row + x0, count: w - x0)
            (dst + (w - x0)).update(from: row, count: x0)
        }
    }

    /// Rolling-shutter skew: row j takes the content of row j + vertical(j), moved right by
    /// horizontal(j) pixels (rounded to whole samples of its colour; edges repeated). With
    /// `translatedBy`, of the planes first moved as `translate` moves them (one pass for both).
    mutating func skew(horizontal: (Int) -> Double, vertical: (Int) -> Double, translatedBy shift: (dx: Double, dy: Double) = (0, 0),
                       using storage: inout [Float]) -> Bool {
        let w = size.width, h = size.height, s = step
        guard w > 0, h > 0 else { return false }
        let shiftX = Int((shift.dx / Double(s)).rounded()) * s, shiftY = Int((shift.dy / Double(s)).rounded()) * s
        let x0 = ((-shiftX) % w + w) % w  // source column of the moved planes' column 0
        // The nearest sample of the same colour inside 0..<limit.
        func inside(_ x: Int, _ limit: Int) -> Int {
            var x = x
            if x < 0 { x += (-x + s - 1) / s * s }
            if x >= limit { x -= ((x - limit) / s + 1) * s }
            return x
        }
        var shifts: [(from: Int, dx: Int)] = []
        shifts.reserveCapacity(h)
        for j in 0..<h {
            let from = inside(j + Int((vertical(j) / Double(s)).rounded()) * s, h)
            shifts.append((((from - shiftY) % h + h) % h, Int((horizontal(j) / Double(s)).rounded()) * s))
        }
        return remap(into: &storage) { dst, src, plane, j in
            let (from, dx) = shifts[j]
            let row = src + (plane * h + from) * w
            // Column x of the moved row is column (x + x0) mod w of the source row.
            func moved(_ x: Int) -> Float { row[x + x0 < w ? x + x0 : x + x0 - w] }
            // Output columns lo..<hi read moved columns lo − dx..<hi − dx; the rest repeat the edges.
            let lo = min(max(dx, 0), w), hi = max(lo, min(w, w + dx))
            for i in 0..<lo { dst[i] = moved(inside(i - dx, w)) }
            if hi > lo {
                let start = lo - dx + x0 < w ? lo - dx + x0 : lo - dx + x0 - w, first = min(hi - lo, w - start)
                (dst + lo).update(from: row + start, count: first)
                (dst + lo + first).update(from: row, count: hi - lo - first)
            }
            for i in hi..<w { dst[i] = moved(inside(i - dx, w)) }
        }
    }

    /// The same values in `storage` (so they can be changed in place without touching the cache's).
    mutating func copy(using storage: inout [Float]) -> Bool {
        let w = size.width, h = size.height
        return remap(into: &storage) { dst, src, plane, j in
            dst.update(from: src + (plane * h + j) * w, count: w)
        }
    }

    /// New values built row by row in `storage`, then swapped in: `fill(destination row, source
    /// values, plane, row)` writes all `size.width` values of the row, and only those (rows are
    /// filled in bands on several threads at once); the spare values after the planes are copied.
    private mutating func remap(into storage: inout [Float],
                                _ fill: (UnsafeMutablePointer<Float>, UnsafePointer<Float>, Int, Int) -> Void) -> Bool {
        let w = size.width, h = size.height, planes = planeCount, count = values.count
        if storage.count != count { storage = [Float](repeating: 0, count: count) }
        storage.withUnsafeMutableBufferPointer { out in
            values.withUnsafeBufferPointer { src in
                guard let o = out.baseAddress, let source = src.baseAddress else { return }
                RowBands.run(rows: planes * h) { band in
                    for k in band { fill(o + k * w, source, k / h, k % h) }
                }
                let spare = planes * w * h
                (o + spare).update(from: source + spare, count: count - spare)
            }
        }
        swap(&values, &storage)
        return true
    }
}

/// A box filter of fractional width along one line of samples, by running sums (cost independent
/// of the width). Weights are 1 inside, the fraction left over at both ends; edge samples repeat.
struct LineBlur {
    private var padded: [Double] = []
    private var prefix: [Double] = []

    mutating func blur(_ start: UnsafeMutablePointer<Float>, stride: Int, count: Int, extent: Double) {
        guard count > 1 else { return }
        let half = extent / 2
        let reach = Int((half + 0.5).rounded(.down))  // the outermost tap, weighted `edge`
        let edge = half + 0.5 - Double(reach)
        guard reach > 0 else { return }  // narrower than one sample: no change
        let total = Double(2 * reach - 1) + 2 * edge
        let pad = reach + 1
        if padded.count < count + 2 * pad { padded = [Double](repeating: 0, count: count + 2 * pad) }
        if prefix.count < count + 2 * pad + 1 { prefix = [Double](repeating: 0, count: count + 2 * pad + 1) }
        padded.withUnsafeMutableBufferPointer { p in
            prefix.withUnsafeMutableBufferPointer { sums in
                for k in 0..<(count + 2 * pad) {
                    p[k] = Double(start[min(max(k - pad, 0), count - 1) * stride])
                }
                sums[0] = 0
                for k in 0..<(count + 2 * pad) { sums[k + 1] = sums[k] + p[k] }
                for a in 0..<count {
                    let c = a + pad
                    // Taps c-(reach-1) … c+(reach-1) at weight 1, c±reach at `edge`.
                    let inner = sums[c + reach] - sums[c - reach + 1]
                    start[a * stride] = Float((inner + edge * (p[c - reach] + p[c + reach])) / total)
                }
            }
        }
    }
}
