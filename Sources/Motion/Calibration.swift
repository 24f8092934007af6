import Hardware

/// A gyro bias measured while the rig was still, for one device; the supervisor persists it.
public struct GyroCalibration: Hashable, Sendable, Codable {
    /// Which device it belongs to ("mpu6050 on i2c-1@0x68").
    public var deviceName: String
    /// Bias in the camera frame, rad/s; subtracted from every gyro sample.
    public var biasRadiansPerSecond: [Double]
    /// When it was measured, monotonic seconds (for "measured N s ago").
    public var measuredAtSeconds: Double
    /// Samples averaged.
    public var sampleCount: Int

    public init(deviceName: String, bias: Vector3, measuredAt: MonotonicTime, sampleCount: Int) {
        self.deviceName = deviceName
        self.biasRadiansPerSecond = [bias.x, bias.y, bias.z]
        self.measuredAtSeconds = measuredAt.seconds
        self.sampleCount = sampleCount
    }

    public var bias: Vector3 {
        biasRadiansPerSecond.count == 3 ? Vector3(biasRadiansPerSecond[0], biasRadiansPerSecond[1], biasRadiansPerSecond[2]) : .zero
    }
}

/// Decides whether the rig is still, over a sliding window of samples.
///
/// Still means: over the last `window`, every gyro sample's rate magnitude stays within
/// `gyroSpreadRadiansPerSecond` of the window mean, and the accelerometer magnitude stays within
/// `accelToleranceMetresPerSecondSquared` of its mean (no handling, no taps). A constant bias does
/// not count as motion, which is what lets the same test find the bias.
public struct StillnessDetector: Sendable {
    public var window: Duration = .seconds(1)
    public var gyroSpreadRadiansPerSecond = 0.01   // ≈ 0.6 °/s
    public var accelToleranceMetresPerSecondSquared = 0.15
    /// A steady rate above this is a pan, not a bias (MEMS gyro bias is a few °/s at most).
    public var maximumBiasRadiansPerSecond = 0.1
    private var samples: [IMUSample] = []
    private var head = 0

    public init() {}

    /// Adds a sample to the window (ask `isStill` after a batch).
    public mutating func add(_ sample: IMUSample) {
        samples.append(sample)
        while head < samples.count, sample.timestamp - samples[head].timestamp > window { head += 1 }
        if head > 4096 { samples.removeFirst(head); head = 0 }
    }

    /// Forgets the window (after a gap in the stream).
    public mutating func reset() { samples.removeAll(keepingCapacity: true); head = 0 }

    /// True when the window is full and quiet.
    public var isStill: Bool {
        let live = samples[head...]
        guard let first = live.first, let last = live.last,
              (last.timestamp - first.timestamp).secondsValue >= window.secondsValue * 0.9 else { return false }
        let meanGyro = live.reduce(Vector3.zero) { $0 + $1.gyro } / Double(live.count)
        let meanAccel = live.reduce(0.0) { $0 + length($1.accel) } / Double(live.count)
        if length(meanGyro) > maximumBiasRadiansPerSecond { return false }
        for s in live {
            if length(s.gyro - meanGyro) > gyroSpreadRadiansPerSecond { return false }
            if abs(length(s.accel) - meanAccel) > accelToleranceMetresPerSecondSquared { return false }
        }
        return true
    }

    /// The mean gyro over the window (the bias, when still).
    public var meanGyro: Vector3 {
        let live = samples[head...]
        return live.isEmpty ? .zero : live.reduce(Vector3.zero) { $0 + $1.gyro } / Double(live.count)
    }
    public var windowCount: Int { samples.count - head }
}

@inline(__always) func length(_ v: Vector3) -> Double { (v * v).sum().squareRoot() }
