import Foundation
import Hardware
import Testing
@testable import SimulatedHardware

/// Random planes of `kind` at w × h (plus the 8 spare values).
private func randomPlanes(_ kind: ScenePlanes.Kind, _ w: Int, _ h: Int, _ rng: inout SeededGenerator) -> ScenePlanes {
    let n = w * h * (kind == .rgb ? 3 : 1) + 8
    return ScenePlanes(kind: kind, size: PixelSize(width: w, height: h), values: (0..<n).map { _ in Float(rng.unit()) })
}

@Test func skewWithTranslationIsTranslateThenSkewInOnePass() {
    var rng = SeededGenerator(seed: 3)
    for kind in [ScenePlanes.Kind.rgb, .mosaic] {
        for (w, h) in [(64, 36), (37, 21), (8, 6)] {
            let base = randomPlanes(kind, w, h, &rng)
            for _ in 0..<40 {
                let dx = Double(Int(rng.next() % 200)) - 100, dy = Double(Int(rng.next() % 120)) - 60
                let sx = Double(Int(rng.next() % 40)) - 20, sy = Double(Int(rng.next() % 20)) - 10
                func horizontal(_ j: Int) -> Double { sx * (Double(j) / Double(h - 1) - 0.5) }
                func vertical(_ j: Int) -> Double { sy * (Double(j) / Double(h - 1) - 0.5) }
                var twoPasses = base, onePass = base
                var first: [Float] = [], second: [Float] = [], third: [Float] = []
                _ = twoPasses.translate(dx: dx, dy: dy, using: &first)
                _ = twoPasses.skew(horizontal: horizontal, vertical: vertical, using: &second)
                _ = onePass.skew(horizontal: horizontal, vertical: vertical, translatedBy: (dx, dy), using: &third)
                #expect(twoPasses.values == onePass.values, "\(kind) \(w)x\(h) move \(dx), \(dy) skew \(sx), \(sy)")
            }
        }
    }
}

@Test func motionBlurIntoStorageMatchesTheGeneralBlur() {
    var rng = SeededGenerator(seed: 4)
    for kind in [ScenePlanes.Kind.rgb, .mosaic] {
        for (w, h) in [(64, 36), (37, 21)] {
            let base = randomPlanes(kind, w, h, &rng)
            for (across, down) in [(0.3, 0.0), (1.0, 0.0), (0.0, 2.5), (3.7, 1.2), (9.0, 33.0), (40.0, 5.0)] {
                var general = base, motion = base, storage: [Float] = []
                general.blur(horizontalPixels: across, verticalPixels: down)
                let changed = motion.blur(horizontalPixels: across, verticalPixels: down, using: &storage)
                #expect(changed == motion.blurs(horizontalPixels: across, verticalPixels: down))
                let worst = zip(general.values, motion.values).map { abs($0 - $1) }.max() ?? 0
                #expect(worst < 1e-5, "\(kind) \(w)x\(h) blur \(across), \(down): \(worst)")
            }
        }
    }
}

/// A stabilizer moves its ScalerCrop every frame. The renderer then draws the chart it sampled for
/// the first crop moved by the difference, instead of sampling the chart again: the picture must be
/// the one a fresh sample of the moved crop gives (away from the edges, where the move wraps round).
@Test func aMovedCropShowsTheChartMovedNotResampled() throws {
    let sensor = try sensor("imx708")
    let size = PixelSize(width: 320, height: 180)
    let first = PixelRect(x: 704, y: 396, width: 3200, height: 1800)  // 10 sensor pixels per output pixel
    let moved = PixelRect(x: first.x + 40, y: first.y - 30, width: first.width, height: first.height)  // 4 right, 3 up
    func request(_ crop: PixelRect) -> SimulatedFrameRenderer.Request {
        SimulatedFrameRenderer.Request(
            role: .viewfinder, format: .bgr888, size: size, streamSize: size, crop: crop, scene: SimulatedScene(),
            frame: SimulatedFrameParameters(exposureMicroseconds: 10_000, analogueGain: 1, digitalGain: 1, redGain: 2, blueGain: 1.8,
                                            colourTemperatureKelvin: 5000, lensPositionDioptres: 1, afState: 0,
                                            frameDurationMicroseconds: 33_333, aeLocked: false, focusFigureOfMerit: 0),
            defocusPixels: 0, motion: .init(), bitDepth: 10)
    }
    func bytes(_ frame: FrameBuffer) -> [UInt8] { frame.withUnsafeBytes { Array($0) } }
    let reusing = SimulatedFrameRenderer(sensor: sensor)
    _ = bytes(reusing.render(request(first), rng: SeededGenerator(seed: 1)))
    let reused = bytes(reusing.render(request(moved), rng: SeededGenerator(seed: 2)))
    let fresh = bytes(SimulatedFrameRenderer(sensor: sensor).render(request(moved), rng: SeededGenerator(seed: 2)))
    var differing = 0, compared = 0
    for y in 8..<(size.height - 8) {
        for x in 8..<(size.width - 8) {
            for c in 0..<3 {
                let i = (y * size.width + x) * 3 + c
                compared += 1
                if reused[i] != fresh[i] { differing += 1 }
            }
        }
    }
    #expect(differing == 0, "\(differing) of \(compared) interior values differ from a fresh sample of the moved crop")
    // And the move is real: the first crop's picture is not the moved one's.
    let unmoved = bytes(SimulatedFrameRenderer(sensor: sensor).render(request(first), rng: SeededGenerator(seed: 2)))
    #expect(unmoved != fresh)
}

/// The simulated camera's per-row warp steps its source points through blocks of 16 pixels in
/// fixed point; every output value must be the one the exact projective map of its row gives,
/// point by point (the map divided out at each pixel, as a pinhole sees it): bilinear and
/// Catmull-Rom within 0.003 on values of 0…1 that change by up to 1 per pixel (a few thousandths
/// of a pixel of position), a mosaic's nearest site the same but where a point falls within
/// 0.01 px of halfway between two sites. Turns up to 6° in every axis, a varying turn per row (the
/// rolling shutter), a moved crop, small planes that wrap, and a view turned 80° whose edge
/// reaches past the horizon.
@Test func theRowWarpIsTheExactProjectiveMapOfEachRow() {
    var rng = SeededGenerator(seed: 11)
    /// Rows of the rotation turning by `yaw` about y, `pitch` about x, `roll` about z (radians).
    func rotation(yaw: Double, pitch: Double, roll: Double) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let (cy, sy, cp, sp, cr, sr) = (cos(yaw), sin(yaw), cos(pitch), sin(pitch), cos(roll), sin(roll))
        let y = [SIMD3(cy, 0, sy), SIMD3(0, 1, 0), SIMD3(-sy, 0, cy)]
        let p = [SIMD3(1, 0, 0), SIMD3(0, cp, -sp), SIMD3(0, sp, cp)]
        let r = [SIMD3(cr, -sr, 0), SIMD3(sr, cr, 0), SIMD3(0, 0, 1)]
        func times(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> [SIMD3<Double>] {
            a.map { row in SIMD3((row * SIMD3(b[0].x, b[1].x, b[2].x)).sum(), (row * SIMD3(b[0].y, b[1].y, b[2].y)).sum(),
                                 (row * SIMD3(b[0].z, b[1].z, b[2].z)).sum()) }
        }
        let m = times(times(y, p), r)
        return (m[0], m[1], m[2])
    }
    /// The exact source point of output pixel (i, j), wrapped, in source pixel coordinates.
    func exact(_ map: RowHomography, _ i: Int, _ j: Int, _ w: Int, _ h: Int, _ shift: (dx: Double, dy: Double)) -> (Double, Double) {
        let p = SIMD3(Double(i) + 0.5 - Double(w) / 2, Double(j) + 0.5 - Double(h) / 2, 1)
        let den = (map.row2 * p).sum()
        var sx = den > 1e-6 ? (map.row0 * p).sum() / den : 0, sy = den > 1e-6 ? (map.row1 * p).sum() / den : 0
        sx += Double(w) / 2 - 0.5 - shift.dx; sy += Double(h) / 2 - 0.5 - shift.dy
        return (sx - (sx / Double(w)).rounded(.down) * Double(w), sy - (sy / Double(h)).rounded(.down) * Double(h))
    }
    func catmullRom(_ t: Double) -> [Double] {
        let t2 = t * t, t3 = t2 * t
        return [(-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2]
    }
    // `yaw`: a turn on top of the rows' own (up to `turn` about each axis).
    let cases: [(w: Int, h: Int, f: Double, turn: Double, yaw: Double, shift: (dx: Double, dy: Double))] = [
        (320, 180, 250, 6 * .pi / 180, 0, (0, 0)), (333, 187, 900, 3 * .pi / 180, 0, (7.5, -3.25)),
        (37, 21, 30, 6 * .pi / 180, 0, (2, 1)), (160, 90, 120, 3 * .pi / 180, 80 * .pi / 180, (0, 0)),
    ]
    for c in cases {
        let (w, h) = (c.w, c.h), n = w * h
        // Each row turned a little more than the last (a rolling shutter), about every axis.
        let start = (rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5), end = (rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5)
        let maps = (0..<h).map { j -> RowHomography in
            let t = Double(j) / Double(h - 1)
            let yaw = c.yaw + 2 * c.turn * (start.0 + (end.0 - start.0) * t)
            return RowHomography(rotation: rotation(yaw: yaw, pitch: 2 * c.turn * (start.1 + (end.1 - start.1) * t),
                                                    roll: 2 * c.turn * (start.2 + (end.2 - start.2) * t)), focalLengthPixels: c.f)
        }
        for kind in [ScenePlanes.Kind.rgb, .mosaic] {
            let base = randomPlanes(kind, w, h, &rng)
            for cubic in kind == .rgb ? [false, true] : [false] {
                var warped = base, storage: [Float] = []
                #expect(warped.warp(rows: maps, shift: c.shift, cubic: cubic, using: &storage))
                var worst = 0.0, mismatched = 0, uncertain = 0
                for j in 0..<h {
                    for i in 0..<w {
                        let (sx, sy) = exact(maps[j], i, j, w, h, c.shift)
                        if kind == .mosaic {
                            // The nearest site of this site's colour, and whether the point is too near halfway to say.
                            func site(_ s: Double, _ k: Int, _ size: Int) -> (Int, Bool) {
                                let half = (s - Double(k)) / 2
                                var p = k + Int(half.rounded()) * 2
                                p = ((p % size) + size) % size
                                if p & 1 != k & 1 { p = p > 0 ? p - 1 : p + 1 }
                                return (p, abs(abs(half - half.rounded(.down)) - 0.5) < 0.005)
                            }
                            let (px, ux) = site(sx, i, w), (py, uy) = site(sy, j, h)
                            if ux || uy { uncertain += 1; continue }
                            if warped.values[j * w + i] != base.values[py * w + px] { mismatched += 1 }
                            continue
                        }
                        let x0 = Int(sx), y0 = Int(sy), tx = sx - Double(x0), ty = sy - Double(y0)
                        for plane in 0..<3 {
                            func at(_ x: Int, _ y: Int) -> Double { Double(base.values[plane * n + ((y % h + h) % h) * w + (x % w + w) % w]) }
                            var expected = 0.0
                            if cubic {
                                let wx = catmullRom(tx), wy = catmullRom(ty)
                                for r in 0..<4 { for k in 0..<4 { expected += wy[r] * wx[k] * at(x0 + k - 1, y0 + r - 1) } }
                            } else {
                                let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * tx
                                let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * tx
                                expected = top + (bottom - top) * ty
                            }
                            worst = max(worst, abs(Double(warped.values[plane * n + j * w + i]) - expected))
                        }
                    }
                }
                let label = "\(kind) \(w)x\(h) f \(c.f) turn \(c.turn) cubic \(cubic)"
                #expect(worst < 0.003, "\(label): worst \(worst)")
                #expect(mismatched == 0, "\(label): \(mismatched) sites differ")
                #expect(uncertain < n / 20, "\(label): \(uncertain) sites near halfway")
                #expect(Array(warped.values[(warped.values.count - 8)...]) == Array(base.values[(base.values.count - 8)...]))
            }
        }
    }
}
