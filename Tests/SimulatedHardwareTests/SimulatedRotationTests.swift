import Boards
import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing

/// The simulated camera turns in front of the chart as a pinhole camera does: yaw and pitch move
/// the picture, roll turns it about the centre, and a rolling shutter reads each row at its own
/// time (rows read later see the camera turned further), all from the same truth the IMU reports.
@Suite struct SimulatedRotationTests {
    /// A rig turning at a constant rate (rad/s, camera frame).
    final class Spin: MotionTruth {
        let rate: Vector3
        init(_ rate: Vector3) { self.rate = rate }
        func angularVelocity(at time: MonotonicTime) -> Vector3 { rate }
        func acceleration(at time: MonotonicTime) -> Vector3 { Vector3(0, -9.80665, 0) }
    }
    final class Log: @unchecked Sendable { var completed: [CompletedRequest] = [] }

    static let size = PixelSize(width: 640, height: 360)

    /// The first video frame's luma (rows of `size.width`) with the rig turning at `rate`, and
    /// the focal length (output pixels), readout (s) and exposure (s) it was made with.
    static func firstFrame(rate: Vector3) throws -> (luma: [UInt8], focal: Double, readout: Double, exposure: Double) {
        let loop = ManualEventLoop()
        let sensor = try SensorDescription.embedded(model: "imx708")
        let provider = SimulatedCameraProvider(loop: loop, sensor: sensor, motion: Spin(rate), seed: 9)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let log = Log()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { log.completed.append(c) } }
        _ = try camera.configure([StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: size)])
        try camera.start(controls: [ControlName.exposureTime: .int32(2000), ControlName.analogueGain: .float(4)])
        try camera.queueRequest(CaptureRequest(cookie: 1, roles: [.videoRecording]))
        loop.advance(by: .milliseconds(200))
        camera.stop()
        let frame = try #require(log.completed.first { $0.isComplete })
        let buffer = try #require(frame.buffers[.videoRecording])
        let luma = buffer.withUnsafeBytes { bytes in
            (0..<size.height).flatMap { y in (0..<size.width).map { bytes[y * buffer.stride + $0] } }
        }
        // The stream shows the ScalerCrop (pixel-array pixels) of the mode chosen for it.
        guard case .rectangle(let crop) = try #require(frame.metadata[ControlName.scalerCrop]) else {
            throw HardwareError(.invalidArgument, "no ScalerCrop rectangle")
        }
        let mode = try #require(sensor.modes.first { $0.crop == crop })
        let focal = (sensor.lens?.focalLengthMillimetres ?? 0) * 1000 / (sensor.pixelSizeMicrometres ?? 1) * Double(size.width) / Double(crop.width)
        let readout = (mode.readoutMilliseconds ?? 1e3 / mode.maximumFps) / 1000
        let exposure = Double(frame.metadata[ControlName.exposureTime]?.doubleValue ?? 0) / 1e6
        return (luma, focal, readout, exposure)
    }

    /// Where a 48 × 48 block of `a` centred at (x, y) is found in `b`: (dx, dy) by least squared
    /// difference over ±12 px, refined to a fraction by a parabola through the neighbours.
    static func displacement(_ a: [UInt8], _ b: [UInt8], x: Int, y: Int) -> SIMD2<Double> {
        let w = size.width, half = 24, reach = 12
        func cost(_ dx: Int, _ dy: Int) -> Double {
            var sum = 0.0
            for j in (y - half)..<(y + half) {
                for i in (x - half)..<(x + half) {
                    let d = Double(a[j * w + i]) - Double(b[(j + dy) * w + i + dx]); sum += d * d
                }
            }
            return sum
        }
        var best = (cost: Double.infinity, dx: 0, dy: 0)
        for dy in -reach...reach { for dx in -reach...reach { let c = cost(dx, dy); if c < best.cost { best = (c, dx, dy) } } }
        func vertex(_ m: Double, _ c: Double, _ p: Double) -> Double { let d = m - 2 * c + p; return d > 0 ? (m - p) / (2 * d) : 0 }
        return SIMD2(Double(best.dx) + vertex(cost(best.dx - 1, best.dy), best.cost, cost(best.dx + 1, best.dy)),
                     Double(best.dy) + vertex(cost(best.dx, best.dy - 1), best.cost, cost(best.dx, best.dy + 1)))
    }

    /// The most textured block centre in x ∈ `xs`, y ∈ `ys`: the largest of the smaller of the
    /// summed squared gradients across and down (texture both ways, so both shifts are seen).
    static func textured(_ a: [UInt8], xs: ClosedRange<Int>, ys: ClosedRange<Int>) -> (x: Int, y: Int) {
        let w = size.width
        var best = (energy: -1.0, x: xs.lowerBound, y: ys.lowerBound)
        for y in stride(from: ys.lowerBound, through: ys.upperBound, by: 8) {
            for x in stride(from: xs.lowerBound, through: xs.upperBound, by: 8) {
                var across = 0.0, down = 0.0
                for j in stride(from: y - 24, to: y + 24, by: 2) {
                    for i in stride(from: x - 24, to: x + 24, by: 2) {
                        let gx = Double(a[j * w + i + 1]) - Double(a[j * w + i]), gy = Double(a[(j + 1) * w + i]) - Double(a[j * w + i])
                        across += min(gx * gx, 400); down += min(gy * gy, 400)
                    }
                }
                let energy = min(across, down)
                if energy > best.energy { best = (energy, x, y) }
            }
        }
        return (best.x, best.y)
    }

    @Test func yawMovesThePictureLeftAndTheRollingShutterSkewsIt() throws {
        let still = try Self.firstFrame(rate: .zero)
        let turning = try Self.firstFrame(rate: Vector3(0, 0.15, 0))  // 8.6 °/s to the right
        let a = Self.textured(still.luma, xs: 40...600, ys: 40...80), b = Self.textured(still.luma, xs: 40...600, ys: 220...260)
        let top = Self.displacement(still.luma, turning.luma, x: a.x, y: a.y)
        let bottom = Self.displacement(still.luma, turning.luma, x: b.x, y: b.y)
        // Row y is exposed (y / 360 × readout + exposure / 2) after the frame's start.
        func expected(_ y: Int) -> Double { -still.focal * 0.15 * ((Double(y) + 0.5) / 360 * still.readout + still.exposure / 2) }
        #expect(abs(top.x - expected(a.y)) < 0.25 && abs(bottom.x - expected(b.y)) < 0.25,
                "top \(top) at \(a), bottom \(bottom) at \(b), expected x \(expected(a.y)), \(expected(b.y))")
        #expect(bottom.x < top.x - 0.3, "rows read later have moved further: \(top.x) → \(bottom.x)")
        #expect(abs(top.y) < 0.25 && abs(bottom.y) < 0.25)
    }

    @Test func rollTurnsThePictureAboutTheCentre() throws {
        let still = try Self.firstFrame(rate: .zero)
        let rolling = try Self.firstFrame(rate: Vector3(0, 0, 0.5))  // clockwise, seen from behind
        let l = Self.textured(still.luma, xs: 40...160, ys: 160...200), r = Self.textured(still.luma, xs: 480...600, ys: 160...200)
        let left = Self.displacement(still.luma, rolling.luma, x: l.x, y: l.y)
        let right = Self.displacement(still.luma, rolling.luma, x: r.x, y: r.y)
        // At the middle rows the camera has rolled 0.5 rad/s × (readout / 2 + exposure / 2); the
        // picture turns the other way: the right side up, the left side down (by the angle × the
        // distance from the centre).
        let angle = 0.5 * (still.readout / 2 + still.exposure / 2)
        let expectedLeft = angle * Double(320 - l.x), expectedRight = -angle * Double(r.x - 320)
        #expect(abs(right.y - expectedRight) < 0.25 && abs(left.y - expectedLeft) < 0.25,
                "left \(left) at \(l) right \(right) at \(r), expected \(expectedLeft), \(expectedRight)")
        #expect(right.y < -0.2 && left.y > 0.2, "the right side up, the left down")
    }
}
