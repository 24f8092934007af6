import Hardware
import Motion

/// What both simulated IMU chips share: the ground truth seen in the chip's own axes, with bias,
/// noise and a clock that runs `clockErrorPartsPerMillion` slow, producing samples lazily up to
/// the time of each register access.
public struct SimulatedIMUChipTraits: Sendable {
    /// The board's mounting (IMU→camera); the chip reports the truth in IMU axes.
    public var mounting: AxisMapping = .identity
    /// Gyro bias in IMU axes, rad/s.
    public var gyroBias = Vector3(0.008, -0.005, 0.012)
    /// Per-sample white noise, rad/s and m/s² (1σ).
    public var gyroNoise = 0.0008
    public var accelNoise = 0.03
    /// Positive: the chip's oscillator is slow, so samples come later than nominal.
    public var clockErrorPartsPerMillion = 150.0
    public var seed: UInt64 = 7
    /// Keep the true time of every sample pushed into the FIFO (tests compare timestamps).
    public var recordsSampleTimes = false
    public init() {}
}

/// Lazy sample production shared by the chip models.
struct SampleClock {
    var periodSeconds: Double = 0          // 0: not producing
    var next: MonotonicTime = .zero
    var clockError: Double

    /// Starts producing at `time` (first sample one period later).
    mutating func start(at time: MonotonicTime, periodSeconds: Double) {
        self.periodSeconds = periodSeconds
        next = time + step
    }
    mutating func stop() { periodSeconds = 0 }
    var step: Duration { .nanoseconds(Int64((periodSeconds * (1 + clockError * 1e-6) * 1e9).rounded())) }

    /// Sample times due up to `time`; when more than `limit` are due, only the last `limit`
    /// (the rest would have overflowed the FIFO anyway). Returns (times, skipped count).
    mutating func due(upTo time: MonotonicTime, limit: Int) -> (times: [MonotonicTime], skipped: Int) {
        guard periodSeconds > 0, next <= time else { return ([], 0) }
        let s = step
        let count = Int((time - next).nanoseconds / max(1, s.nanoseconds)) + 1
        var skipped = 0
        if count > limit {
            skipped = count - limit
            next = next + .nanoseconds(s.nanoseconds * Int64(skipped))
        }
        var times: [MonotonicTime] = []
        times.reserveCapacity(min(count, limit))
        while next <= time { times.append(next); next = next + s }
        return (times, skipped)
    }
}

/// Truth → IMU-frame readings with bias and noise.
struct TruthSampler {
    let truth: any MotionTruth
    let traits: SimulatedIMUChipTraits
    var rng: SeededGenerator
    init(truth: any MotionTruth, traits: SimulatedIMUChipTraits) {
        self.truth = truth; self.traits = traits; rng = SeededGenerator(seed: traits.seed)
    }
    mutating func reading(at t: MonotonicTime) -> (gyro: Vector3, accel: Vector3) {
        let g = traits.mounting.toIMU(truth.angularVelocity(at: t)) + traits.gyroBias
            + Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * traits.gyroNoise
        let a = traits.mounting.toIMU(truth.acceleration(at: t))
            + Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * traits.accelNoise
        return (g, a)
    }
}

/// Quantises `value` at `perLSB` to a saturated signed 16-bit count.
func lsb(_ value: Double, _ perLSB: Double) -> Int16 {
    Int16(max(-32768, min(32767, (value / perLSB).rounded())))
}
