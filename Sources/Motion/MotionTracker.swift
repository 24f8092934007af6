import Hardware

/// Turns IMU samples into what the camera needs: bias-corrected rates, stillness, orientation,
/// and blur predictions. Not thread-safe: feed it from one loop (the supervisor's).
public final class MotionTracker {
    /// The device whose calibration this tracker keeps.
    public let deviceName: String
    /// The current gyro bias (loaded, or measured while still).
    public private(set) var calibration: GyroCalibration?
    /// Called when a new calibration is measured: persist it.
    private let onCalibration: (GyroCalibration) -> Void
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
    /// For `orientation(at:)`: the rotation from each kept sample's start to the newest sample,
    /// newest first (`products[k]` starts at the k-th sample back from the newest), worked out
    /// back only as far as asked, and again once a newer sample came. A recording's stabilizer
    /// asks ~170 times a frame, each of which integrated up to 0.5 s of samples afresh.
    private var rotationsToNewest: (newest: MonotonicTime, products: [Quaternion]) = (MonotonicTime(nanoseconds: .min), [])

    /// - Parameters:
    ///   - calibration: a stored bias for this device, if the supervisor has one.
    ///   - historyDuration: how far back blur can be asked for.
    ///   - onCalibration: called with each new calibration measured (the supervisor persists it).
    public init(deviceName: String, calibration: GyroCalibration? = nil,
                filter: MahonyFilter = MahonyFilter(), historyDuration: Duration = .seconds(4),
                onCalibration: @escaping (GyroCalibration) -> Void = { _ in }) {
        self.deviceName = deviceName
        self.onCalibration = onCalibration
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
        onCalibration(measured)
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
        let kept = history.kept
        // The first sample after `time`: its rate turns the camera from `time` to it.
        var lo = kept.startIndex, hi = kept.endIndex - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if kept[mid].timestamp <= time { lo = mid + 1 } else { hi = mid }
        }
        let first = kept[lo]
        let since = Self.rotation(first.gyro, seconds: (first.timestamp - time).secondsValue) * rotationToNewest(after: lo, in: kept)
        return (orientation * since.conjugate).normalized
    }

    /// The rotation over the samples after kept index `index` to the newest (each sample's rate
    /// over the time since the one before it); identity after the newest.
    private func rotationToNewest(after index: Int, in kept: ArraySlice<IMUSample>) -> Quaternion {
        let newest = kept.endIndex - 1
        if rotationsToNewest.newest != kept[newest].timestamp { rotationsToNewest = (kept[newest].timestamp, []) }
        let back = newest - index  // samples after `index`
        guard back > 0 else { return .identity }
        while rotationsToNewest.products.count < back {
            let j = newest - rotationsToNewest.products.count
            let step = Self.rotation(kept[j].gyro, seconds: (kept[j].timestamp - kept[j - 1].timestamp).secondsValue)
            rotationsToNewest.products.append(step * (rotationsToNewest.products.last ?? .identity))
        }
        return rotationsToNewest.products[back - 1]
    }

    /// The rotation at a constant rate `gyro` (rad/s, camera frame) for `seconds`.
    private static func rotation(_ gyro: Vector3, seconds: Double) -> Quaternion {
        let rate = length(gyro)
        return rate > 0 ? Quaternion(axis: gyro / rate, angle: rate * seconds) : .identity
    }

    /// Predicted blur in pixels for an exposure from `start` lasting `exposure`, or nil when the
    /// history does not cover it. See `predictedBlurPixels(samples:...)`.
    public func predictedBlurPixels(start: MonotonicTime, exposure: Duration, focalLengthPixels: Double) -> Double? {
        history.blurPixels(from: start, to: start + exposure, focalLengthPixels: focalLengthPixels)
    }
}
