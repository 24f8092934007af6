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
    static func sample(pixelArray: PixelSize, crop: PixelRect, size: PixelSize, kind: Kind, cfa: [Int]) -> ScenePlanes {
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
                        sum += TestChart.colour(x: x0 + (Double(i) + ox) * dx, y: y0 + (Double(j) + oy) * dy)
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
    /// horizontal(j) pixels (rounded to whole samples of its colour; edges repeated).
    mutating func skew(horizontal: (Int) -> Double, vertical: (Int) -> Double, using storage: inout [Float]) -> Bool {
        let w = size.width, h = size.height, s = step
        guard w > 0, h > 0 else { return false }
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
            shifts.append((inside(j + Int((vertical(j) / Double(s)).rounded()) * s, h), Int((horizontal(j) / Double(s)).rounded()) * s))
        }
        return remap(into: &storage) { dst, src, plane, j in
            let (from, dx) = shifts[j]
            let row = src + (plane * h + from) * w
            // Output columns lo..<hi read columns lo − dx..<hi − dx; the rest repeat the edges.
            let lo = min(max(dx, 0), w), hi = max(lo, min(w, w + dx))
            for i in 0..<lo { dst[i] = row[inside(i - dx, w)] }
            (dst + lo).update(from: row + (lo - dx), count: hi - lo)
            for i in hi..<w { dst[i] = row[inside(i - dx, w)] }
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
    /// values, plane, row)` writes all `size.width` values of the row; the spare values after the
    /// planes are copied.
    private mutating func remap(into storage: inout [Float],
                                _ fill: (UnsafeMutablePointer<Float>, UnsafePointer<Float>, Int, Int) -> Void) -> Bool {
        let w = size.width, h = size.height, planes = planeCount, count = values.count
        if storage.count != count { storage = [Float](repeating: 0, count: count) }
        storage.withUnsafeMutableBufferPointer { out in
            values.withUnsafeBufferPointer { src in
                guard let o = out.baseAddress, let source = src.baseAddress else { return }
                for plane in 0..<planes {
                    for j in 0..<h { fill(o + (plane * h + j) * w, source, plane, j) }
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
