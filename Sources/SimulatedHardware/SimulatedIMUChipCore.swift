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

/// The sampling both chip models own: the clock their rate registers start and stop, and the truth
/// read through bias and noise, quantised at the chip's full scales when samples fall due.
struct ChipSampling {
    var clock: SampleClock
    private var sampler: TruthSampler
    let traits: SimulatedIMUChipTraits

    init(truth: any MotionTruth, traits: SimulatedIMUChipTraits) {
        self.traits = traits
        clock = SampleClock(clockError: traits.clockErrorPartsPerMillion)
        sampler = TruthSampler(truth: truth, traits: traits)
    }

    /// When the next sample falls due and the step between samples; nil while not producing.
    var schedule: (next: MonotonicTime, step: Duration)? {
        clock.periodSeconds > 0 ? (clock.next, clock.step) : nil
    }

    /// The samples due up to `time` (at most `limit`, see `SampleClock.due`), as X/Y/Z counts at
    /// `gyroRadiansPerSecondPerLSB` and `accelMetresPerSecondSquaredPerLSB`; and how many were skipped.
    mutating func samples(upTo time: MonotonicTime, limit: Int, gyroRadiansPerSecondPerLSB: Double,
                          accelMetresPerSecondSquaredPerLSB: Double) -> (samples: [QuantisedSample], skipped: Int) {
        let (times, skipped) = clock.due(upTo: time, limit: limit)
        let samples = times.map { t in
            let (g, a) = sampler.reading(at: t)
            return QuantisedSample(time: t,
                                   gyro: [g.x, g.y, g.z].map { lsb($0, gyroRadiansPerSecondPerLSB) },
                                   accel: [a.x, a.y, a.z].map { lsb($0, accelMetresPerSecondSquaredPerLSB) })
        }
        return (samples, skipped)
    }
}

/// One sample as the chip's output registers hold it: X/Y/Z counts.
struct QuantisedSample {
    var time: MonotonicTime
    var gyro: [Int16]
    var accel: [Int16]
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

/// A burst write as both chips take it: one byte a register from `register` up, stopping before
/// `end`; `store` writes one register.
func burstWrite(_ register: UInt8, _ bytes: [UInt8], before end: Int, _ store: (_ register: Int, _ value: UInt8) -> Void) {
    for (i, value) in bytes.enumerated() where Int(register) + i < end { store(Int(register) + i, value) }
}

/// A burst read as both chips answer it: `count` bytes from `register` on; `load` answers one
/// register (and may consume a FIFO byte or word), `next` is where the address pointer moves after
/// it (the same register for a FIFO port, back to the start at the end of a FIFO word).
func burstRead(_ register: UInt8, count: Int, next: (Int) -> Int, _ load: (Int) -> UInt8) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(count)
    var r = Int(register)
    for _ in 0..<count {
        out.append(load(r))
        r = next(r)
    }
    return out
}

/// Quantises `value` at `perLSB` to a saturated signed 16-bit count.
func lsb(_ value: Double, _ perLSB: Double) -> Int16 {
    Int16(max(-32768, min(32767, (value / perLSB).rounded())))
}
