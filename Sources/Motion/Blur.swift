import Hardware

/// The focal length in output pixels of `mode`: focal length mm ÷ pixel pitch µm × 1000, divided
/// by the mode's scaling (binning) factor = crop width ÷ output width. Nil when the sensor
/// database lacks the lens or the pixel pitch.
public func focalLengthPixels(sensor: SensorDescription, mode: SensorDescription.Mode) -> Double? {
    guard let lens = sensor.lens, let pitch = sensor.pixelSizeMicrometres, pitch > 0, mode.width > 0 else { return nil }
    let binning = max(1, Double(mode.crop.width) / Double(mode.width))
    return lens.focalLengthMillimetres * 1000 / pitch / binning
}

/// A time-ordered window of bias-corrected samples, with blur integration.
public struct SampleHistory: Sendable {
    public let duration: Duration
    private var samples: [IMUSample] = []
    private var head = 0

    public init(duration: Duration) { self.duration = duration }

    public mutating func append(_ s: IMUSample) {
        if let last = samples.last, s.timestamp <= last.timestamp { return }
        samples.append(s)
        while head < samples.count, s.timestamp - samples[head].timestamp > duration { head += 1 }
        if head > 8192 { samples.removeFirst(head); head = 0 }
    }

    /// The kept samples, oldest first: a view of the history, not a copy.
    public var kept: ArraySlice<IMUSample> { samples[head...] }

    public var newest: IMUSample? { samples.last }
    public var oldest: IMUSample? { head < samples.count ? samples[head] : nil }

    /// The kept samples with timestamps in [from, to], in time order (for stabilization's
    /// alignment and video paths). Empty when the window is outside the history.
    public func samples(from start: MonotonicTime, to end: MonotonicTime) -> [IMUSample] {
        guard head < samples.count, end >= start else { return [] }
        var lo = head, hi = samples.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].timestamp < start { lo = mid + 1 } else { hi = mid }
        }
        var out: [IMUSample] = []
        var i = lo
        while i < samples.count, samples[i].timestamp <= end { out.append(samples[i]); i += 1 }
        return out
    }

    /// Blur at the image centre, pixels: f × ∫|ω⊥(t)| dt over [from, to], where ω⊥ = (ωx, ωy)
    /// is the rotation that moves the image (roll about the optical axis z blurs nothing at the
    /// centre), integrated by the trapezoid rule on the samples, linearly interpolated at the ends.
    /// This is the length of the path the centre pixel travels. Nil if samples do not cover the window.
    public func blurPixels(from start: MonotonicTime, to end: MonotonicTime, focalLengthPixels: Double) -> Double? {
        guard end > start, let first = oldest, let last = newest,
              first.timestamp <= start, last.timestamp >= end else { return nil }
        // First sample index at or after start (binary search).
        var lo = head, hi = samples.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].timestamp < start { lo = mid + 1 } else { hi = mid }
        }
        func rate(_ s: IMUSample) -> Double { (s.gyro.x * s.gyro.x + s.gyro.y * s.gyro.y).squareRoot() }
        func interpolate(_ a: IMUSample, _ b: IMUSample, at t: MonotonicTime) -> Double {
            let span = (b.timestamp - a.timestamp).secondsValue
            let f = span > 0 ? (t - a.timestamp).secondsValue / span : 0
            return rate(a) + (rate(b) - rate(a)) * f
        }
        var angle = 0.0
        var previousTime = start
        var previousRate = lo > head ? interpolate(samples[lo - 1], samples[lo], at: start) : rate(samples[lo])
        var i = lo
        while i < samples.count, samples[i].timestamp < end {
            let r = rate(samples[i])
            angle += 0.5 * (previousRate + r) * (samples[i].timestamp - previousTime).secondsValue
            previousTime = samples[i].timestamp
            previousRate = r
            i += 1
        }
        let endRate = i < samples.count && i > 0 ? interpolate(samples[i - 1], samples[i], at: end) : previousRate
        angle += 0.5 * (previousRate + endRate) * (end - previousTime).secondsValue
        return angle * focalLengthPixels
    }
}
