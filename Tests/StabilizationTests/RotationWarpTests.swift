import Camera
import Foundation
import Hardware
import Motion
import SimulatedHardware
import Testing
import Video
@testable import Stabilization

/// An I420 image of `size` whose samples are `luma(x, y)` and `chroma(x, y)` (x, y: pixel centres
/// in luma coordinates, from the top left), in a frame.
func pattern(_ size: PixelSize, luma: (Double, Double) -> Double, chroma: (Double, Double) -> Double) throws -> VideoFrame {
    try VideoFrame(size: size, stride: size.width, sequence: 0, sensorTimestamp: .zero) { bytes in
        let w = size.width, h = size.height
        for y in 0..<h { for x in 0..<w { bytes[y * w + x] = UInt8(min(max(luma(Double(x) + 0.5, Double(y) + 0.5).rounded(), 0), 255)) } }
        for plane in 0..<2 {
            let base = w * h + plane * (w / 2) * (h / 2)
            for y in 0..<(h / 2) {
                for x in 0..<(w / 2) {
                    bytes[base + y * (w / 2) + x] = UInt8(min(max(chroma(2 * Double(x) + 1, 2 * Double(y) + 1).rounded(), 0), 255))
                }
            }
        }
    }
}

/// The warp of `frame` by `warp`, as I420 bytes.
func warped(_ frame: VideoFrame, _ warp: YUVRotationWarp) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: VideoFrame.byteCount(size: frame.size, stride: frame.size.width))
    frame.withUnsafeBytes { source in
        out.withUnsafeMutableBytes { target in
            guard let s = source.baseAddress, let t = target.baseAddress else { return }
            warp.warp(source: s, sourceStride: frame.stride, into: t, targetStride: frame.size.width, size: frame.size)
        }
    }
    return out
}

@Suite("Rotation warp")
struct RotationWarpTests {
    static let size = PixelSize(width: 320, height: 180)
    static let focal = 300.0

    static func smooth(_ x: Double, _ y: Double) -> Double { 128 + 60 * sin(x / 9) * cos(y / 7) + 0.1 * x }
    static func smoothChroma(_ x: Double, _ y: Double) -> Double { 128 + 40 * cos(x / 13 + y / 11) }

    @Test("the 16-lane blend in 16-bit lanes gives the bytes of the scalar integer blend")
    func sixteenLaneBlendIsTheScalarBlend() {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<4096 {
            // Every other round only the extremes (0, 255), where 16-bit overflow would show first.
            func tap() -> UInt16 { round & 1 == 0 ? UInt16.random(in: 0...255, using: &rng) : (Bool.random(using: &rng) ? 255 : 0) }
            var p = (SIMD16<UInt16>(), SIMD16<UInt16>(), SIMD16<UInt16>(), SIMD16<UInt16>()), ax = SIMD16<UInt16>(), ay = SIMD16<UInt16>()
            for k in 0..<16 {
                p.0[k] = tap(); p.1[k] = tap(); p.2[k] = tap(); p.3[k] = tap()
                ax[k] = UInt16.random(in: 0...255, using: &rng); ay[k] = UInt16.random(in: 0...255, using: &rng)
            }
            let lanes = YUVRotationWarp.blend16(p.0, p.1, p.2, p.3, ax: ax, ay: ay)
            for k in 0..<16 {
                let p00 = Int(p.0[k]), p10 = Int(p.1[k]), p01 = Int(p.2[k]), p11 = Int(p.3[k]), fx = Int(ax[k]), fy = Int(ay[k])
                let upper = (p00 << 8) + (p10 - p00) * fx, lower = (p01 << 8) + (p11 - p01) * fx
                let expected = ((upper << 8) + (lower - upper) * fy + 32768) >> 16
                #expect(Int(lanes[k]) == expected, "taps \(p00) \(p10) \(p01) \(p11), fractions \(fx) \(fy)")
                if Int(lanes[k]) != expected { return }
            }
        }
    }

    @Test("the view equal to the camera with no margin gives the frame back")
    func identity() throws {
        let frame = try pattern(Self.size, luma: Self.smooth, chroma: Self.smoothChroma)
        let geometry = WarpGeometry(size: Self.size, focalLengthPixels: Self.focal, margin: 0, lineNanoseconds: 0)
        let q = Quaternion(axis: Vector3(0.3, 0.9, 0.1) / (0.91).squareRoot(), angle: 0.2)
        let bands = (0..<geometry.bandCount).map { _ in geometry.homography(camera: q, view: q) }
        let out = warped(frame, YUVRotationWarp(geometry: geometry, bands: bands, threads: 2))
        let source = frame.withUnsafeBytes { Array($0.prefix(out.count)) }
        let worst = zip(out, source).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "largest difference \(worst)")
    }

    @Test("each output pixel is the source sampled where the band's homography points (luma and chroma)")
    func samplesThroughTheHomography() throws {
        let frame = try pattern(Self.size, luma: Self.smooth, chroma: Self.smoothChroma)
        let geometry = WarpGeometry(size: Self.size, focalLengthPixels: Self.focal, margin: 0.2, lineNanoseconds: 0)
        // Roll 2°, yaw 0.5°, pitch −0.3°: the view turned against the camera.
        let view = Quaternion(axis: Vector3(0, 0, 1), angle: 2 * .pi / 180) * Quaternion(axis: Vector3(0, 1, 0), angle: 0.5 * .pi / 180)
            * Quaternion(axis: Vector3(1, 0, 0), angle: -0.3 * .pi / 180)
        let h = geometry.homography(camera: .identity, view: view)
        let out = warped(frame, YUVRotationWarp(geometry: geometry, bands: Array(repeating: h, count: geometry.bandCount)))
        let w = Self.size.width, ht = Self.size.height
        var worstLuma = 0.0, worstChroma = 0.0
        for y in stride(from: 4, to: ht - 4, by: 3) {
            for x in stride(from: 4, to: w - 4, by: 3) {
                let p = try #require(h.apply(Double(x) + 0.5 - Double(w) / 2, Double(y) + 0.5 - Double(ht) / 2))
                let expected = Self.smooth(p.x + Double(w) / 2, p.y + Double(ht) / 2)
                worstLuma = max(worstLuma, abs(Double(out[y * w + x]) - expected))
            }
        }
        for y in stride(from: 2, to: ht / 2 - 2, by: 2) {
            for x in stride(from: 2, to: w / 2 - 2, by: 2) {
                let p = try #require(h.apply(2 * Double(x) + 1 - Double(w) / 2, 2 * Double(y) + 1 - Double(ht) / 2))
                let expected = Self.smoothChroma(p.x + Double(w) / 2, p.y + Double(ht) / 2)
                worstChroma = max(worstChroma, abs(Double(out[w * ht + y * (w / 2) + x]) - expected))
            }
        }
        // Bilinear on a pattern with a 9-pixel period: within about 2 levels of the exact value.
        #expect(worstLuma < 3, "luma \(worstLuma)")
        #expect(worstChroma < 3, "chroma \(worstChroma)")
    }

    @Test("each row band is corrected with the orientation of its own exposure (rolling shutter)")
    func bandsFollowTheRollingShutter() throws {
        let size = PixelSize(width: 640, height: 360)
        let line = 33_000_000.0 / 360  // the whole readout takes 33 ms
        let rate = 0.5  // rad/s of yaw
        let stabilizer = RecordingStabilizer(
            planner: try RotationPathPlanner(mode: .standard),
            geometry: { WarpGeometry(size: $0, focalLengthPixels: 600, margin: 0, lineNanoseconds: line) },
            orientationAt: { Quaternion(axis: Vector3(0, 1, 0), angle: rate * Double($0.nanoseconds) / 1e9) })
        let frame = try VideoFrame(size: size, stride: size.width, sequence: 1, sensorTimestamp: MonotonicTime(nanoseconds: 1_000_000_000)) { _ in }
        let out = try #require(stabilizer.push(frame).first)
        let warp = try #require(out.warp as? YUVRotationWarp)
        let top = try #require(warp.bands.first?.apply(0, warp.geometry.bandCentreY(0)))
        let bottom = try #require(warp.bands.last?.apply(0, warp.geometry.bandCentreY(warp.bands.count - 1)))
        // The bottom rows were read ~28 ms after the top ones (the output is zoomed by the margin,
        // so its bands come from source rows 1 / 1.1 as far apart); the camera turned right
        // meanwhile, so the same view is found further left in them: by f × rate × Δt.
        let rows = (warp.geometry.bandCentreY(warp.bands.count - 1) - warp.geometry.bandCentreY(0)) / 1.1
        let dt = rows * line / 1e9
        let expected = -600 * rate * dt
        #expect(abs((bottom.x - top.x) - expected) < 0.3, "top \(top.x) bottom \(bottom.x), expected a difference of \(expected)")
    }

    @Test("a band the view turns reads rows exposed at different times across it: each column follows its own row's time")
    func slantedBands() throws {
        let size = PixelSize(width: 640, height: 360)
        let line = 50_000.0, rate = 0.8  // 18 ms readout; yaw 0.8 rad/s
        func camera(_ t: MonotonicTime) -> Quaternion { Quaternion(axis: Vector3(0, 1, 0), angle: rate * Double(t.nanoseconds) / 1e9) }
        let geometry = WarpGeometry(size: size, focalLengthPixels: 600, margin: 0.2, lineNanoseconds: line)
        // The view rolled 6° from the camera: the middle band's output row crosses ±20 source rows.
        let start = MonotonicTime(nanoseconds: 1_000_000_000)
        let middle = start + .nanoseconds(Int64(180 * line))
        let view = (camera(middle) * Quaternion(axis: Vector3(0, 0, 1), angle: 6 * .pi / 180)).normalized
        let b = geometry.bandCount / 2, y = geometry.bandCentreY(b)
        let at = start + .nanoseconds(Int64((try #require(geometry.homography(camera: camera(middle), view: view).apply(0, y)).y + 180) * line))
        let plain = geometry.homography(camera: camera(at), view: view)
        let slanted = RecordingStabilizer.slanted(plain, later: geometry.homography(camera: camera(at + RecordingStabilizer.rateStep), view: view),
                                                  y: y, lineNanoseconds: line)
        var worstPlain = 0.0, worstSlanted = 0.0
        for x in stride(from: -320.0, through: 320.0, by: 40) {
            // Exact: the source point under the camera at the time of the row it lands on (fixed point).
            var t = at
            var exact = try #require(plain.apply(x, y))
            for _ in 0..<4 {
                exact = try #require(geometry.homography(camera: camera(t), view: view).apply(x, y))
                t = start + .nanoseconds(Int64((exact.y + 180) * line))
            }
            worstPlain = max(worstPlain, ((try #require(plain.apply(x, y))) - exact).x.magnitude)
            worstSlanted = max(worstSlanted, ((try #require(slanted.apply(x, y))) - exact).x.magnitude)
        }
        #expect(worstPlain > 0.3, "a single time per band is off at the band's ends: \(worstPlain) px")
        #expect(worstSlanted < 0.3 * worstPlain, "each column at its own row's time: \(worstSlanted) px, one time per band: \(worstPlain) px")
    }

    @Test("cinematic levels the horizon: a steady 2° roll is turned back")
    func cinematicLevels() throws {
        // Level in the tracker's world (+z up): the camera's y (down) along −z, rolled 2° about its optical axis.
        let level = Quaternion(axis: Vector3(1, 0, 0), angle: -.pi / 2)
        #expect(abs(level.rotate(Vector3(0, 1, 0)).z + 1) < 1e-9, "y points down")
        let rolled = (level * Quaternion(axis: Vector3(0, 0, 1), angle: 2 * .pi / 180)).normalized
        let planner = try RotationPathPlanner(mode: .cinematic)
        var targets: [RotationPathPlanner.Target] = []
        for i in 0..<40 {
            targets += planner.push(time: MonotonicTime(nanoseconds: Int64(i) * 33_333_333)) { _ in rolled }
        }
        let target = try #require(targets.last)
        let correction = (target.camera.conjugate * target.view).normalized.rotationVector * (180 / .pi)
        #expect(abs(correction.z + 2) < 0.01 && abs(correction.x) < 0.01 && abs(correction.y) < 0.01, "\(correction)")
        // Standard smooths but keeps the camera's roll.
        let standard = try RotationPathPlanner(mode: .standard)
        var last: RotationPathPlanner.Target?
        for i in 0..<40 { last = standard.push(time: MonotonicTime(nanoseconds: Int64(i) * 33_333_333)) { _ in rolled }.last }
        let kept = try #require(last)
        #expect(kept.camera.angle(to: kept.view) < 1e-6)
    }

    @Test("motion beyond the margin eases towards the camera's path: the warp stays inside, no jump")
    func marginEases() throws {
        let size = PixelSize(width: 640, height: 360)
        let geometry = WarpGeometry(size: size, focalLengthPixels: 600, margin: 0, lineNanoseconds: 0)
        // A 6° yaw swing at 0.4 Hz: far more than a 10 % margin (~3°) can take back.
        func camera(_ t: MonotonicTime) -> Quaternion? {
            Quaternion(axis: Vector3(0, 1, 0), angle: 6 * .pi / 180 * sin(2 * .pi * 0.4 * Double(t.nanoseconds) / 1e9))
        }
        let stabilizer = RecordingStabilizer(planner: try RotationPathPlanner(mode: .standard), geometry: { _ in geometry },
                                             orientationAt: camera)
        var views: [Double] = [], cameras: [Double] = [], hits = 0
        for i in 0..<150 {
            let time = MonotonicTime(nanoseconds: Int64(i) * 33_333_333)
            let frame = try VideoFrame(size: size, stride: size.width, sequence: UInt64(i), sensorTimestamp: time) { _ in }
            let out = try #require(stabilizer.push(frame).first)
            let warp = try #require(out.warp as? YUVRotationWarp)
            let record = try #require(out.stabilized)
            #expect(warp.geometry.marginUse(warp.bands) <= 1 + 1e-9, "frame \(i): the warp leaves the frame")
            if record.marginHit { hits += 1 }
            let yaw = try #require(camera(time)).rotationVector.y * 180 / .pi
            cameras.append(yaw)
            views.append(yaw + record.correctionDegrees[1])
        }
        #expect(hits > 20, "the swing outgrows the margin on many frames (\(hits))")
        let largestCameraStep = zip(cameras.dropFirst(), cameras).map { abs($0 - $1) }.max() ?? 0
        let largestViewStep = zip(views.dropFirst(), views).map { abs($0 - $1) }.max() ?? 0
        #expect(largestViewStep < largestCameraStep, "the view never jumps more than the camera moves: \(largestViewStep)° vs \(largestCameraStep)°")
    }
}
