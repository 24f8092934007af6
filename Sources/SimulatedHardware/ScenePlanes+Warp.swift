import Foundation  // floor
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
                    for j in band {
                        Self.warpRow(j, map: rows[j], shift: shift, width: w, height: h, planes: planes, mosaic: mosaic,
                                     cubic: cubic, source: s, target: o)
                    }
                }
                let spare = planes * w * h
                (o + spare).update(from: s + spare, count: count - spare)
            }
        }
        swap(&values, &storage)
        return true
    }

    private static func warpRow(_ j: Int, map: RowHomography, shift: (dx: Double, dy: Double), width w: Int, height h: Int,
                                planes: Int, mosaic: Bool, cubic: Bool, source: UnsafePointer<Float>, target: UnsafeMutablePointer<Float>) {
        let halfW = Double(w) / 2, halfH = Double(h) / 2
        let y = Double(j) + 0.5 - halfH
        let fw = Double(w), fh = Double(h), n = w * h
        // Along the row, numerators and the denominator are affine in x.
        let a = map.row0 * SIMD3(0, y, 1), b = map.row1 * SIMD3(0, y, 1), c = map.row2 * SIMD3(0, y, 1)
        let a0 = a.y + a.z, b0 = b.y + b.z, c0 = c.y + c.z
        for i in 0..<w {
            let x = Double(i) + 0.5 - halfW
            let den = map.row2.x * x + c0
            var sx: Double, sy: Double
            if den > 1e-6 {
                sx = (map.row0.x * x + a0) / den; sy = (map.row1.x * x + b0) / den
            } else {
                sx = 0; sy = 0
            }
            // Source pixel coordinates (centres at k + 0.5), moved by the cached crop's shift, wrapped.
            sx += halfW - 0.5 - shift.dx; sy += halfH - 0.5 - shift.dy
            sx -= floor(sx / fw) * fw; sy -= floor(sy / fh) * fh
            if mosaic {
                // The nearest site with this site's colour (same parity in x and y).
                var px = i + Int(((sx - Double(i)) / 2).rounded()) * 2, py = j + Int(((sy - Double(j)) / 2).rounded()) * 2
                px = ((px % w) + w) % w; py = ((py % h) + h) % h
                if px & 1 != i & 1 { px = px > 0 ? px - 1 : px + 1 }
                if py & 1 != j & 1 { py = py > 0 ? py - 1 : py + 1 }
                target[j * w + i] = source[py * w + px]
                continue
            }
            let x0 = Int(sx), y0 = Int(sy)
            let tx = Float(sx - Double(x0)), ty = Float(sy - Double(y0))
            if cubic {
                let wx = catmullRom(tx), wy = catmullRom(ty)
                var columns = SIMD4<Int>(), offsets = SIMD4<Int>()
                for k in 0..<4 { columns[k] = (x0 + k - 1 + w) % w; offsets[k] = ((y0 + k - 1 + h) % h) * w }
                for plane in 0..<planes {
                    let base = source + plane * n
                    var sum: Float = 0
                    for r in 0..<4 {
                        let row = base + offsets[r]
                        sum += wy[r] * (wx[0] * row[columns[0]] + wx[1] * row[columns[1]] + wx[2] * row[columns[2]] + wx[3] * row[columns[3]])
                    }
                    target[plane * n + j * w + i] = sum
                }
                continue
            }
            let x1 = x0 + 1 < w ? x0 + 1 : 0, y1 = y0 + 1 < h ? y0 + 1 : 0
            let p00 = y0 * w + x0, p10 = y0 * w + x1, p01 = y1 * w + x0, p11 = y1 * w + x1
            for plane in 0..<planes {
                let base = source + plane * n
                let top = base[p00] + (base[p10] - base[p00]) * tx
                let bottom = base[p01] + (base[p11] - base[p01]) * tx
                target[plane * n + j * w + i] = top + (bottom - top) * ty
            }
        }
    }

    /// Catmull-Rom weights of the four taps around a point `t` (0…1) past the second.
    @inline(__always)
    private static func catmullRom(_ t: Float) -> SIMD4<Float> {
        let t2 = t * t, t3 = t2 * t
        return SIMD4((-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2)
    }
}
