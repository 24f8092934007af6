import Hardware

/// Turns IMU samples into what the camera needs: bias-corrected rates, stillness, orientation,
/// and blur predictions. Not thread-safe: feed it from one loop (the supervisor's).
public final class MotionTracker {
    /// The device whose calibration this tracker keeps.
    public let deviceName: String
    /// The current gyro bias (loaded, or measured while still).
    public private(set) var calibration: GyroCalibration?
    /// Called when a new calibration is measured: persist it.
    public var onCalibration: ((GyroCalibration) -> Void)?
    /// Stillness needed before the bias is (re)measured.
    public var calibrationStillness: Duration = .seconds(2)
    public private(set) var filter: MahonyFilter
    public private(set) var stillness = StillnessDetector()
    /// Bias-corrected samples kept for blur prediction.
    public private(set) var history: SampleHistory
    private var stillSince: MonotonicTime?
    private var lastCalibrationAt: MonotonicTime?
    private var lastTimestamp: MonotonicTime?
    private var aligned = false

    /// - Parameters:
    ///   - calibration: a stored bias for this device, if the supervisor has one.
    ///   - historyDuration: how far back blur can be asked for.
    public init(deviceName: String, calibration: GyroCalibration? = nil,
                filter: MahonyFilter = MahonyFilter(), historyDuration: Duration = .seconds(4)) {
        self.deviceName = deviceName
        self.calibration = calibration?.deviceName == deviceName ? calibration : nil
        self.filter = filter
        self.history = SampleHistory(duration: historyDuration)
    }

    /// Adds a batch in time order; returns the bias-corrected samples (for gcsv logs).
    @discardableResult
    public func ingest(_ samples: [IMUSample]) -> [IMUSample] {
        let bias = calibration?.bias ?? .zero
        var corrected: [IMUSample] = []
        corrected.reserveCapacity(samples.count)
        for raw in samples {
            var s = raw
            s.gyro -= bias
            if let last = lastTimestamp {
                let dt = (s.timestamp - last).secondsValue
                if dt > 0.1 || dt <= 0 {  // a gap: restart stillness, keep orientation
                    stillness.reset()
                } else {
                    filter.update(gyro: s.gyro, accel: s.accel, dt: dt)
                }
            } else if !aligned {
                filter.align(accel: s.accel)
                aligned = true
            }
            lastTimestamp = s.timestamp
            stillness.add(raw)
            history.append(s)
            corrected.append(s)
        }
        if let last = samples.last { updateCalibration(at: last.timestamp) }
        return corrected
    }

    private func updateCalibration(at now: MonotonicTime) {
        guard stillness.isStill else { stillSince = nil; return }
        let since = stillSince ?? now
        stillSince = since
        guard now - since >= calibrationStillness - stillness.window else { return }
        if let last = lastCalibrationAt, now - last < calibrationStillness { return }
        let measured = GyroCalibration(deviceName: deviceName, bias: stillness.meanGyro, measuredAt: now,
                                       sampleCount: stillness.windowCount)
        calibration = measured
        lastCalibrationAt = now
        onCalibration?(measured)
    }

    /// True when the rig has been still for the detector's window.
    public var isStill: Bool { stillness.isStill }
    /// The newest bias-corrected angular rate, rad/s, camera frame.
    public var angularRate: Vector3 { history.newest?.gyro ?? .zero }
    /// The newest angular speed, °/s.
    public var angularSpeedDegreesPerSecond: Double { length(angularRate) * 180 / .pi }
    /// The estimated orientation (camera to a world frame with +z up; yaw is relative).
    public var orientation: Quaternion { filter.orientation }

    /// The orientation at `time` (not after the newest sample): the current one with the rotation
    /// since `time`, integrated from the gyro history, taken back. Frames arrive after the IMU's
    /// samples of their exposure, so video stabilization asks for the exposure's middle.
    public func orientation(at time: MonotonicTime) -> Quaternion {
        guard let newest = history.newest, time < newest.timestamp else { return orientation }
        var since = Quaternion.identity
        var previous = time
        for sample in history.samples(from: time, to: newest.timestamp) where sample.timestamp > previous {
            let dt = (sample.timestamp - previous).secondsValue
            previous = sample.timestamp
            let rate = length(sample.gyro)
            if rate > 0 { since = since * Quaternion(axis: sample.gyro / rate, angle: rate * dt) }
        }
        return (orientation * since.conjugate).normalized
    }

    /// Predicted blur in pixels for an exposure from `start` lasting `exposure`, or nil when the
    /// history does not cover it. See `predictedBlurPixels(samples:...)`.
    public func predictedBlurPixels(start: MonotonicTime, exposure: Duration, focalLengthPixels: Double) -> Double? {
        history.blurPixels(from: start, to: start + exposure, focalLengthPixels: focalLengthPixels)
    }
}
