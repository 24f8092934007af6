import Foundation
import Hardware
import ManualLoop
import Motion
import SimulatedHardware
import Testing

/// The profile's true orientation as a quaternion (body to the profile's world: y down).
func trueOrientation(_ p: ProfileMotion, at t: MonotonicTime) -> Quaternion {
    let a = p.angles(at: t)
    return Quaternion(axis: Vector3(0, 1, 0), angle: a.yaw) * Quaternion(axis: Vector3(1, 0, 0), angle: a.pitch)
        * Quaternion(axis: Vector3(0, 0, 1), angle: a.roll)
}

func angleBetween(_ a: Vector3, _ b: Vector3) -> Double {
    acos(min(1, max(-1, (a * b).sum() / (norm(a) * norm(b)))))
}

/// Runs the simulated IMU + driver + tracker: `still` for 4 s (auto-calibration), then `profile`.
final class FusionRun {
    let loop = ManualEventLoop()
    let imu: SimulatedIMU
    private(set) var tracker: MotionTracker
    let pending = LockedValue<[IMUSample]>([])

    init(model: IMUChipModel = .mpu6050, mounting: String = "yXZ",
         onCalibration: @escaping (GyroCalibration) -> Void = { _ in }) throws {
        var c = IMUConfiguration()
        c.axisMapping = try AxisMapping(mounting)
        imu = SimulatedIMU(loop: loop, model: model, profile: MotionProfile.still.make(origin: loop.now()),
                           configuration: c, seed: 9)
        tracker = MotionTracker(deviceName: "")
        let sink = pending
        try imu.start { if case .samples(let s) = $0 { sink.withLock { $0 += s } } }
        // The driver names the chip once it has identified it; calibrations are keyed by that name.
        loop.advance(by: .milliseconds(150))
        tracker = MotionTracker(deviceName: imu.name, onCalibration: onCalibration)
    }

    /// Advances by `duration` in 10 ms steps, feeding the tracker; calls `each` per sample.
    func run(for duration: Duration, each: (IMUSample) -> Void = { _ in }) {
        let end = loop.now() + duration
        while loop.now() < end {
            loop.advance(by: .milliseconds(10))
            let batch = pending.withLock { b -> [IMUSample] in defer { b.removeAll() }; return b }
            for s in tracker.ingest(batch) { each(s) }
        }
    }
}

@Suite("Fusion, calibration and blur against the ground truth")
struct FusionTests {
    @Test("bias is measured automatically while still, in the camera frame")
    func calibration() throws {
        let stored = LockedValue<[GyroCalibration]>([])
        let run = try FusionRun(onCalibration: { c in stored.withLock { $0.append(c) } })
        run.run(for: .seconds(4))
        let calibration = try #require(run.tracker.calibration)
        let expected = try AxisMapping("yXZ").toCamera(SimulatedIMUChipTraits().gyroBias)
        #expect(norm(calibration.bias - expected) < 0.0005)
        #expect(stored.current.count >= 1)
        #expect(calibration.deviceName == run.imu.name)
        let decoded = try JSONDecoder().decode(GyroCalibration.self, from: JSONEncoder().encode(calibration))
        #expect(decoded == calibration)
        // A stored calibration for another device is not applied.
        #expect(MotionTracker(deviceName: "other", calibration: calibration).calibration == nil)
    }

    @Test("a steady pan is not mistaken for bias")
    func panIsNotBias() throws {
        let run = try FusionRun()
        try run.imu.setMotion("pan", amplitudeDegreesPerSecond: 8)
        run.run(for: .seconds(6))
        #expect(run.tracker.calibration == nil)
        #expect(!run.tracker.isStill)
        #expect(abs(run.tracker.angularSpeedDegreesPerSecond - 8) < 1.0)  // uncalibrated: ≈ 0.9 °/s bias
    }

    // Error bounds (stated in docs/imu.md), Mahony (Kp 0.5, Ki 0) on the MPU-6050 model with noise
    // and bias calibrated while still: worst tilt and worst rotation relative to 1 s after the
    // profile starts, over 20 s: 1° handheld and pan, 2.5° walking (its vertical acceleration
    // disturbs the gravity reference).
    @Test("Mahony orientation tracks the truth", arguments: [("handheld", 1.0), ("walking", 2.5), ("pan", 1.0)])
    func fusion(profile: String, boundDegrees: Double) throws {
        let run = try FusionRun()
        run.run(for: .seconds(4))
        try run.imu.setMotion(profile)
        run.run(for: .seconds(1))
        let truth = run.imu.truth.profile
        var reference: (truth: Quaternion, estimate: Quaternion)?
        var worstTilt = 0.0, worstRelative = 0.0, count = 0
        run.run(for: .seconds(20)) { s in
            let estimate = run.tracker.orientation
            let t = trueOrientation(truth, at: s.timestamp)
            let ref = reference ?? (t, estimate)
            reference = ref
            let trueUp = truth.worldToBody(Vector3(0, -1, 0), at: s.timestamp)
            worstTilt = max(worstTilt, angleBetween(trueUp, run.tracker.filter.upInBody))
            worstRelative = max(worstRelative, (ref.truth.conjugate * t).angle(to: ref.estimate.conjugate * estimate))
            count += 1
        }
        let degrees = 180 / Double.pi
        print("fusion \(profile): worst tilt \(worstTilt * degrees)°, worst relative \(worstRelative * degrees)° over \(count) samples")
        #expect(count > 9000)
        #expect(worstTilt * degrees < boundDegrees)
        #expect(worstRelative * degrees < boundDegrees)
    }

    @Test("predicted blur matches the rendered blur", arguments: ["handheld", "walking", "pan"])
    func blur(profile: String) throws {
        let run = try FusionRun()
        run.run(for: .seconds(4))
        try run.imu.setMotion(profile)
        run.run(for: .seconds(3))
        let truth = run.imu.truth
        let f = 4.74 * 1000 / 1.4 / 2  // IMX708 binned 2304×1296
        var worst = 0.0
        for exposure in [Duration.milliseconds(2), .milliseconds(33), .milliseconds(125), .milliseconds(500)] {
            for k in 0..<5 {
                let start = run.loop.now() - .seconds(2.5) + .milliseconds(371 * k)
                let predicted = try #require(run.tracker.predictedBlurPixels(start: start, exposure: exposure, focalLengthPixels: f))
                let rendered = renderedBlurPixels(truth: truth, window: start...(start + exposure), focalLengthPixels: f)
                let error = abs(predicted - rendered) / max(rendered, 1)
                worst = max(worst, error)
                #expect(error < 0.08, "exposure \(exposure) at +\(k): predicted \(predicted), rendered \(rendered)")
            }
        }
        print("blur \(profile): worst relative error \(worst)")
        // Outside the history: no prediction rather than a wrong one.
        #expect(run.tracker.predictedBlurPixels(start: run.loop.now() + .seconds(1), exposure: .milliseconds(10), focalLengthPixels: f) == nil)
    }

    @Test("blur of a steady pan equals rate × time × focal length")
    func panBlurAnalytic() throws {
        let run = try FusionRun()
        run.run(for: .seconds(4))
        try run.imu.setMotion("pan", amplitudeDegreesPerSecond: 5)
        run.run(for: .seconds(2))
        let f = 3386.0
        let analytic = 5 * Double.pi / 180 * 0.1 * f   // 29.5 px
        let predicted = try #require(run.tracker.predictedBlurPixels(start: run.loop.now() - .seconds(1), exposure: .milliseconds(100), focalLengthPixels: f))
        #expect(abs(predicted - analytic) / analytic < 0.03)
    }

    @Test("focal length in pixels from the sensor database and the mode")
    func focalLength() throws {
        let json = """
        {"model": "imx708", "product": "Camera Module 3", "pixelArray": {"width": 4608, "height": 2592},
         "pixelSizeMicrometres": 1.4, "bitDepth": 10, "analogueGainMinimum": 1, "analogueGainMaximum": 16,
         "isoPerGain": 100, "exposureMinimumMicroseconds": 26, "exposureMaximumMicroseconds": 112015096,
         "exposureDelayFrames": 2, "gainDelayFrames": 2, "afSystem": "phase", "hdr": true,
         "lens": {"focalLengthMillimetres": 4.74, "fNumber": 1.8},
         "modes": [
          {"width": 4608, "height": 2592, "bitDepth": 10, "readout": "full",
           "crop": {"x": 0, "y": 0, "width": 4608, "height": 2592}, "maximumFps": 14},
          {"width": 2304, "height": 1296, "bitDepth": 10, "readout": "binned",
           "crop": {"x": 0, "y": 0, "width": 4608, "height": 2592}, "maximumFps": 56}]}
        """
        var sensor = try JSONDecoder().decode(SensorDescription.self, from: Data(json.utf8))
        #expect(abs((focalLengthPixels(sensor: sensor, mode: sensor.modes[0]) ?? 0) - 3385.714) < 0.01)
        #expect(abs((focalLengthPixels(sensor: sensor, mode: sensor.modes[1]) ?? 0) - 1692.857) < 0.01)
        sensor.lens = nil
        #expect(focalLengthPixels(sensor: sensor, mode: sensor.modes[0]) == nil)
    }
}
