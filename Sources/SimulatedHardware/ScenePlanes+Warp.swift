import Foundation
import Hardware

/// A projective map of one output row: centred output pixel (x, y, 1) → centred source point
/// (dot(row0, p) / dot(row2, p), dot(row1, p) / dot(row2, p)). Centred means pixel (i, j) is at
/// (i + 0.5 − width / 2, j + 0.5 − height / 2).
struct RowHomography: Sendable {
    var row0: SIMD3<Double>, row1: SIMD3<Double>, row2: SIMD3<Double>

    static let identity = RowHomography(row0: SIMD3(1, 0, 0), row1: SIMD3(0, 1, 0), row2: SIMD3(0, 0, 1))

    /// K·R·K⁻¹ with K = diag(f, f, 1) in centred coordinates: a pixel seen by a camera turned by
    /// `rotation` (body now → body of the source view, as a matrix of three rows) is found at this
    /// point of the source view.
    init(rotation m: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>), focalLengthPixels f: Double) {
        row0 = SIMD3(m.0.x, m.0.y, m.0.z * f)
        row1 = SIMD3(m.1.x, m.1.y, m.1.z * f)
        row2 = SIMD3(m.2.x / f, m.2.y / f, m.2.z)
    }

    init(row0: SIMD3<Double>, row1: SIMD3<Double>, row2: SIMD3<Double>) {
        self.row0 = row0; self.row1 = row1; self.row2 = row2
    }
}

extension ScenePlanes {
    /// Source points are computed exactly at both ends of each block of this many output pixels
    /// and stepped linearly between (`sourcePoints`).
    static let warpBlockPixels = 16
    /// How far a stepped source point may stray from the exact one, pixels.
    static let pointTolerancePixels = 1.0 / 1024
    /// Fractional bits of the fixed-point source points (16.16).
    private static let fractionBits = 16

    /// Every output row j shows the planes through `rows[j]` (one map per row: a rolling shutter
    /// reads each row at its own time, so each row sees the scene turned by its own rotation),
    /// sampled bilinearly for full-colour planes and from the nearest site of the same colour for
    /// a mosaic. Source points wrap around the planes (what leaves one edge comes in at the
    /// other, so a pan never runs off the chart); a point behind the camera repeats the centre.
    /// `shift` then moves the result (output pixels, right and down: a moved copy of a cached crop).
    /// `cubic` samples full-colour planes with Catmull-Rom (4 × 4 taps) instead: it keeps the finest
    /// detail at any sub-pixel position, where bilinear softens it by a different amount per frame
    /// (stills and the viewfinder, whose sharpness is judged, use it; video keeps the quicker bilinear).
    mutating func warp(rows: [RowHomography], shift: (dx: Double, dy: Double), cubic: Bool = false, using storage: inout [Float]) -> Bool {
        let w = size.width, h = size.height, planes = planeCount, count = values.count
        guard w > 1, h > 1, rows.count == h else { return false }
        if storage.count != count { storage = [Float](repeating: 0, count: count) }
        let mosaic = kind == .mosaic
        storage.withUnsafeMutableBufferPointer { out in
            values.withUnsafeBufferPointer { src in
                guard let o = out.baseAddress, let s = src.baseAddress else { return }
                RowBands.run(rows: h) { band in
                    // This band's source points of one row (bands run on several threads at once).
                    let xs = UnsafeMutablePointer<Int>.allocate(capacity: w), ys = UnsafeMutablePointer<Int>.allocate(capacity: w)
                    defer { xs.deallocate(); ys.deallocate() }
                    for j in band {
                        if mosaic {
                            Self.sourcePoints(row: j, map: rows[j], shift: shift, width: w, height: h, xs: xs, ys: ys)
                            Self.nearestSites(row: j, xs: xs, ys: ys, width: w, height: h, source: s, target: o)
                        } else {
                            Self.warpRow(j, map: rows[j], shift: shift, cubic: cubic, width: w, height: h, source: s,
                                         into: o + j * w, channelStride: w * h, xs: xs, ys: ys)
                        }
                    }
                }
                let spare = planes * w * h
                (o + spare).update(from: s + spare, count: count - spare)
            }
        }
        swap(&values, &storage)
        return true
    }

    /// Row `j` of full-colour planes (`source`, planes width × height apart) through `map`, bilinear
    /// or Catmull-Rom, written to `target` (red; green and blue `channelStride` and 2 × `channelStride`
    /// further). `xs`, `ys`: scratch for `width` source points.
    /// `interleaved`: the same planes as one (R, G, B, 0) vector per pixel (`interleave`), for
    /// bilinear sampling with one load per tap (the same values).
    static func warpRow(_ j: Int, map: RowHomography, shift: (dx: Double, dy: Double), cubic: Bool, width w: Int, height h: Int,
                        source: UnsafePointer<Float>, interleaved: UnsafePointer<SIMD4<Float>>? = nil,
                        into target: UnsafeMutablePointer<Float>, channelStride: Int,
                        xs: UnsafeMutablePointer<Int>, ys: UnsafeMutablePointer<Int>) {
        sourcePoints(row: j, map: map, shift: shift, width: w, height: h, xs: xs, ys: ys)
        if !cubic, let interleaved {
            bilinearRow(xs: xs, ys: ys, width: w, height: h, interleaved: interleaved, target: target, channelStride: channelStride)
        } else if cubic {
            catmullRomRow(xs: xs, ys: ys, width: w, height: h, source: source, target: target, channelStride: channelStride)
        } else {
            bilinearRow(xs: xs, ys: ys, width: w, height: h, source: source, target: target, channelStride: channelStride)
        }
    }

    /// The source point of every output pixel of row `j`, in source pixel coordinates (pixel k's
    /// centre at k), moved by the cached crop's `shift` and wrapped into the planes, as 16.16 fixed
    /// point. Exact (one divide) at both ends of each block, stepped linearly between. The map is
    /// projective, so a chord strays from it: the block is the longest (at most
    /// `warpBlockPixels`) whose chords stray by at most `pointTolerancePixels` over this row (16
    /// pixels for 1080p turned a few degrees; shorter for small renders or large turns; one pixel
    /// where the row reaches towards the horizon or behind the camera).
    private static func sourcePoints(row j: Int, map: RowHomography, shift: (dx: Double, dy: Double), width w: Int, height h: Int,
                                     xs: UnsafeMutablePointer<Int>, ys: UnsafeMutablePointer<Int>) {
        let halfW = Double(w) / 2, halfH = Double(h) / 2
        let y = Double(j) + 0.5 - halfH
        // Along the row, numerators and the denominator are affine in x.
        let a0 = map.row0.y * y + map.row0.z, b0 = map.row1.y * y + map.row1.z, c0 = map.row2.y * y + map.row2.z
        let offsetX = halfW - 0.5 - shift.dx, offsetY = halfH - 0.5 - shift.dy
        let one = Double(1 << fractionBits), spanX = w << fractionBits, spanY = h << fractionBits
        /// Output column i's exact source point, fixed point, not yet wrapped; nil behind the camera
        /// (or so near the horizon that the point is of no use).
        func point(_ i: Int) -> (x: Int, y: Int)? {
            let x = Double(i) + 0.5 - halfW
            let den = map.row2.x * x + c0
            guard den > 1e-6 else { return nil }
            let sx = (map.row0.x * x + a0) / den + offsetX, sy = (map.row1.x * x + b0) / den + offsetY
            guard abs(sx) < 1e9, abs(sy) < 1e9 else { return nil }
            return (Int((sx * one).rounded(.down)), Int((sy * one).rounded(.down)))
        }
        /// `v` wrapped into 0..<span (the planes repeat); the check is almost always the answer.
        @inline(__always) func wrapped(_ v: Int, _ span: Int) -> Int {
            v >= 0 && v < span ? v : ((v % span) + span) % span
        }
        let block = Self.blockPixels(numerators: (SIMD2(map.row0.x, map.row1.x), SIMD2(a0, b0)), denominator: (map.row2.x, c0),
                                     from: 0.5 - halfW, to: Double(w) + 0.5 - halfW)
        let centre = (x: Int((offsetX * one).rounded(.down)), y: Int((offsetY * one).rounded(.down)))
        var start = point(0)
        var i = 0
        while i < w {
            let count = min(block, w - i)
            let end = point(i + block)
            if let s = start, let e = end {
                let stepX = (e.x - s.x) / block, stepY = (e.y - s.y) / block
                var x = wrapped(s.x, spanX), y = wrapped(s.y, spanY)
                let lastX = x + stepX * (count - 1), lastY = y + stepY * (count - 1)
                if lastX >= 0 && lastX < spanX && lastY >= 0 && lastY < spanY {
                    // The whole block inside the planes (almost every block): no wrapping to check.
                    for k in 0..<count {
                        xs[i &+ k] = x; ys[i &+ k] = y
                        x &+= stepX; y &+= stepY
                    }
                } else {
                    for k in 0..<count {
                        xs[i + k] = x; ys[i + k] = y
                        x = wrapped(x + stepX, spanX); y = wrapped(y + stepY, spanY)
                    }
                }
            } else {
                for k in 0..<count {
                    let p = point(i + k) ?? centre
                    xs[i + k] = wrapped(p.x, spanX); ys[i + k] = wrapped(p.y, spanY)
                }
            }
            start = end
            i += block
        }
    }

    /// The block length for a row whose source point is (slope·x + intercept) / (c·x + d) over
    /// output x in `from`…`to` (+ a block): along it |s″| = 2|c|·|slope·d − intercept·c| / |c·x + d|³,
    /// and a chord over L pixels strays by at most L²/8 · max|s″|. One pixel when the denominator
    /// comes near zero on the row.
    private static func blockPixels(numerators n: (slope: SIMD2<Double>, intercept: SIMD2<Double>), denominator: (c: Double, d: Double),
                                    from: Double, to: Double) -> Int {
        let longest = Double(warpBlockPixels)
        let first = denominator.c * from + denominator.d, last = denominator.c * (to + longest) + denominator.d
        guard first > 1e-3, last > 1e-3 else { return 1 }
        let cross = n.slope * denominator.d - n.intercept * denominator.c
        let curvature = 2 * abs(denominator.c) * max(abs(cross.x), abs(cross.y)) / pow(min(first, last), 3)
        guard curvature > 0 else { return warpBlockPixels }
        return Int(min(max((8 * pointTolerancePixels / curvature).squareRoot(), 1), longest))
    }

    /// The four pixels around the 16.16 fixed-point point (`x`, `y`) of a `width` × `height`
    /// plane (the right and bottom neighbours wrap), as indices, and its fractions across and
    /// down. Wrapping arithmetic: the points are inside the planes, so nothing can overflow.
    @inline(__always)
    private static func bilinearTaps(x: Int, y: Int, width w: Int, height h: Int)
        -> (i00: Int, i10: Int, i01: Int, i11: Int, tx: Float, ty: Float) {
        let mask = (1 << fractionBits) - 1, unit = 1 / Float(1 << fractionBits)
        let x0 = x &>> fractionBits, y0 = y &>> fractionBits
        let x1 = x0 &+ 1 < w ? x0 &+ 1 : 0, y1 = y0 &+ 1 < h ? y0 &+ 1 : 0
        let r0 = y0 &* w, r1 = y1 &* w
        return (r0 &+ x0, r0 &+ x1, r1 &+ x0, r1 &+ x1, Float(x & mask) * unit, Float(y & mask) * unit)
    }

    /// One row of three full-colour planes, bilinear between the four pixels around each point.
    private static func bilinearRow(xs: UnsafePointer<Int>, ys: UnsafePointer<Int>, width w: Int, height h: Int,
                                    source: UnsafePointer<Float>, target out: UnsafeMutablePointer<Float>, channelStride cs: Int) {
        let n = w * h
        let r = source, g = source + n, b = source + 2 * n
        for i in 0..<w {
            let (p00, p10, p01, p11, tx, ty) = bilinearTaps(x: xs[i], y: ys[i], width: w, height: h)
            @inline(__always) func blend(_ p: UnsafePointer<Float>) -> Float {
                let top = p[p00] + (p[p10] - p[p00]) * tx
                let bottom = p[p01] + (p[p11] - p[p01]) * tx
                return top + (bottom - top) * ty
            }
            out[i] = blend(r); out[i &+ cs] = blend(g); out[i &+ 2 &* cs] = blend(b)
        }
    }

    /// Full-colour planes as one (R, G, B, 0) vector per pixel, row by row.
    static func interleave(_ planes: ScenePlanes) -> [SIMD4<Float>] {
        let n = planes.size.area
        guard planes.kind == .rgb, planes.values.count >= 3 * n else { return [] }
        return planes.values.withUnsafeBufferPointer { v in
            (0..<n).map { p in SIMD4(v[p], v[n + p], v[2 * n + p], 0) }
        }
    }

    /// `bilinearRow` from interleaved planes: the same arithmetic on all three channels at once;
    /// four pixels' (R, G, B, 0) results turned into one vector per channel, stored whole.
    private static func bilinearRow(xs: UnsafePointer<Int>, ys: UnsafePointer<Int>, width w: Int, height h: Int,
                                    interleaved p: UnsafePointer<SIMD4<Float>>, target out: UnsafeMutablePointer<Float>,
                                    channelStride cs: Int) {
        @inline(__always) func sample(_ i: Int) -> SIMD4<Float> {
            let (i00, i10, i01, i11, tx, ty) = bilinearTaps(x: xs[i], y: ys[i], width: w, height: h)
            let p00 = p[i00], p10 = p[i10], p01 = p[i01], p11 = p[i11]
            let top = p00 + (p10 - p00) * tx
            let bottom = p01 + (p11 - p01) * tx
            return top + (bottom - top) * ty
        }
        let red = UnsafeMutableRawPointer(out), green = UnsafeMutableRawPointer(out + cs), blue = UnsafeMutableRawPointer(out + 2 * cs)
        var i = 0
        while i &+ 4 <= w {
            let a = sample(i), b = sample(i &+ 1), c = sample(i &+ 2), d = sample(i &+ 3)
            let offset = i &* 4
            red.storeBytes(of: SIMD4(a.x, b.x, c.x, d.x), toByteOffset: offset, as: SIMD4<Float>.self)
            green.storeBytes(of: SIMD4(a.y, b.y, c.y, d.y), toByteOffset: offset, as: SIMD4<Float>.self)
            blue.storeBytes(of: SIMD4(a.z, b.z, c.z, d.z), toByteOffset: offset, as: SIMD4<Float>.self)
            i &+= 4
        }
        while i < w {
            let v = sample(i)
            out[i] = v.x; out[i &+ cs] = v.y; out[i &+ 2 &* cs] = v.z
            i &+= 1
        }
    }

    /// One row of three full-colour planes, Catmull-Rom over the 4 × 4 pixels around each point.
    private static func catmullRomRow(xs: UnsafePointer<Int>, ys: UnsafePointer<Int>, width w: Int, height h: Int,
                                      source: UnsafePointer<Float>, target: UnsafeMutablePointer<Float>, channelStride cs: Int) {
        let n = w * h, mask = (1 << fractionBits) - 1, unit = 1 / Float(1 << fractionBits)
        for i in 0..<w {
            let x = xs[i], y = ys[i]
            let x0 = x >> fractionBits, y0 = y >> fractionBits
            let wx = catmullRom(Float(x & mask) * unit), wy = catmullRom(Float(y & mask) * unit)
            var columns = SIMD4<Int>(), offsets = SIMD4<Int>()
            if x0 >= 1 && x0 + 2 < w {
                columns = SIMD4(x0 - 1, x0, x0 + 1, x0 + 2)
            } else {
                for k in 0..<4 { columns[k] = (x0 + k - 1 + w) % w }
            }
            if y0 >= 1 && y0 + 2 < h {
                offsets = SIMD4(y0 - 1, y0, y0 + 1, y0 + 2) &* w
            } else {
                for k in 0..<4 { offsets[k] = ((y0 + k - 1 + h) % h) * w }
            }
            for plane in 0..<3 {
                let base = source + plane * n
                var sum: Float = 0
                for r in 0..<4 {
                    let row = base + offsets[r]
                    sum += wy[r] * (wx[0] * row[columns[0]] + wx[1] * row[columns[1]] + wx[2] * row[columns[2]] + wx[3] * row[columns[3]])
                }
                target[plane * cs + i] = sum
            }
        }
    }

    /// Row `j` of a mosaic: each site takes the nearest source site with its own colour (same
    /// parity in x and y).
    private static func nearestSites(row j: Int, xs: UnsafePointer<Int>, ys: UnsafePointer<Int>, width w: Int, height h: Int,
                                     source: UnsafePointer<Float>, target: UnsafeMutablePointer<Float>) {
        let unit = 1 / Double(1 << fractionBits)
        for i in 0..<w {
            let sx = Double(xs[i]) * unit, sy = Double(ys[i]) * unit
            var px = i + Int(((sx - Double(i)) / 2).rounded()) * 2, py = j + Int(((sy - Double(j)) / 2).rounded()) * 2
            px = ((px % w) + w) % w; py = ((py % h) + h) % h
            if px & 1 != i & 1 { px = px > 0 ? px - 1 : px + 1 }
            if py & 1 != j & 1 { py = py > 0 ? py - 1 : py + 1 }
            target[j * w + i] = source[py * w + px]
        }
    }

    /// Catmull-Rom weights of the four taps around a point `t` (0…1) past the second.
    @inline(__always)
    private static func catmullRom(_ t: Float) -> SIMD4<Float> {
        let t2 = t * t, t3 = t2 * t
        return SIMD4((-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2)
    }
}
