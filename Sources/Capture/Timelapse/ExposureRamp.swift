import Foundation

/// The day-to-night exposure ramp of a time-lapse (`timelapse start ... ramp auto`): each shot is
/// metered from its raw frame, and the next shot's exposure moves towards what the metering asks,
/// smoothed and under a rate limit, so the sequence does not flicker. What the ramp has not caught
/// up with is left as a correction for the raw developer (`crs:Exposure2012` in the XMP sidecar).
///
/// Exposure is counted in "exposure EV" here: log₂(exposure time µs × analogue gain), the light a
/// frame gathers (one more is twice the exposure). In the manner of Magic Lantern's Auto ETTR the
/// target puts the median at mid-grey unless that clips the highlight percentile; in the manner of
/// the Timelapse+ VIEW the move per hour is capped (`rateEVPerHour`, setting `timelapse.ramp.rate`).
/// Loop-confined value, persisted with the time-lapse so that a restart goes on where it was.
public struct ExposureRamp: Hashable, Sendable, Codable {
    /// The median's level the target puts it at (18 % grey, as a reflected-light meter does).
    public static let medianGoal = 0.18
    /// The highlight percentile's level the target keeps it below (`RawExposureMeter.highlightPercentile`).
    public static let highlightCeiling = 0.85
    /// Weight of the newest metered target in the smoothed one (a first-order filter): one shot's
    /// metering noise moves the sequence by half as much.
    public static let smoothing = 0.5
    /// The largest correction the XMP carries, EV (crs:Exposure2012's range).
    public static let maximumCorrectionEV = 5.0

    /// The sensor's and format's exposure range, and the longest exposure the interval leaves room for.
    public struct Limits: Hashable, Sendable {
        public var minimumMicroseconds: Int
        public var maximumMicroseconds: Int
        public var minimumGain: Double
        public var maximumGain: Double
        public init(minimumMicroseconds: Int, maximumMicroseconds: Int, minimumGain: Double, maximumGain: Double) {
            self.minimumMicroseconds = max(minimumMicroseconds, 1)
            self.maximumMicroseconds = max(maximumMicroseconds, self.minimumMicroseconds)
            self.minimumGain = max(minimumGain, 0.01)
            self.maximumGain = max(maximumGain, self.minimumGain)
        }

        /// Exposure EV → time and gain: time first, up to the longest, then gain (at night the
        /// exposure lengthens to the maximum, then ISO rises). The result is within the limits, so
        /// the EV it gives may be less than asked (`exposureEV` of the result says what it is).
        public func split(_ ev: Double) -> (microseconds: Int, gain: Double) {
            let total = pow(2, ev)
            let time = min(max(total / minimumGain, Double(minimumMicroseconds)), Double(maximumMicroseconds))
            let microseconds = max(Int(time.rounded()), minimumMicroseconds)
            let gain = min(max(total / Double(microseconds), minimumGain), maximumGain)
            return (microseconds, gain)
        }
    }

    /// One shot's metering and what it leaves for the raw developer.
    public struct Metering: Hashable, Sendable, Codable {
        /// The exposure the shot had (its metadata), exposure EV.
        public var shotEV: Double
        /// The exposure this shot's own metering asks for, exposure EV.
        public var targetEV: Double
        /// The smoothed target after this shot, exposure EV.
        public var smoothedTargetEV: Double
        /// What the raw developer adds, EV: smoothed target − shot, at most ±5.
        public var correctionEV: Double
        /// The measurement it came from (median, mid-tones, highlight: 0…1 above black).
        public var median: Double
        public var midtone: Double
        public var highlight: Double
    }

    /// The rate limit, EV per hour of clock time (`timelapse.ramp.rate`).
    public var rateEVPerHour: Double
    /// The smoothed target so far; nil before the first shot was metered.
    public private(set) var smoothedTargetEV: Double?
    /// The last metered shot's exposure EV.
    public private(set) var lastShotEV: Double?
    /// The exposure EV the ramp last asked a shot for (`commanded`). Steps go on from here, not
    /// from the metered one: the bracket engine takes a frame within 2 % of a step's exposure as the
    /// step's, so a ramp stepping from what it metered would never leave the exposure it started at
    /// while its rate limit allows less than 2 % a shot (30 EV/h at a 3 s interval).
    public private(set) var lastCommandedEV: Double?

    public init(rateEVPerHour: Double) { self.rateEVPerHour = rateEVPerHour }

    /// log₂(µs × gain).
    public static func exposureEV(microseconds: Int, gain: Double) -> Double {
        log2(Double(max(microseconds, 1)) * max(gain, 1e-6))
    }

    /// The exposure the shot's measurement asks for: the mid-tones (the middle half's mean, around
    /// the median) at `medianGoal`, or less if that would put the highlight percentile above
    /// `highlightCeiling` (both scale with the exposure, so the lower of the two holds steadily), but
    /// never more than `highlightGiveEV` below the mid-tones' target (a lamp in the frame does not
    /// drown the scene). Mid-tones at black (a frame too dark to read) count as just above it; a
    /// clipped median asks for 2 EV less at least, so the target still falls.
    public static func target(shotEV: Double, measurement: RawExposureMeasurement) -> Double {
        let midtone = max(measurement.midtone, 1e-4)
        let forMidtones = shotEV + log2(medianGoal / midtone)
        let forHighlights = shotEV + log2(highlightCeiling / max(measurement.highlight, 1e-4))
        var target = max(min(forMidtones, forHighlights), forMidtones - highlightGiveEV)
        if measurement.median >= 0.999 { target = min(target, shotEV - 2) }
        return target
    }

    /// How far below the mid-tones' target the highlights may pull the exposure, EV.
    public static let highlightGiveEV = 3.0

    /// Takes a shot's metering: updates the smoothed target and returns the correction it leaves.
    public mutating func meter(shotEV: Double, measurement: RawExposureMeasurement) -> Metering {
        let target = Self.target(shotEV: shotEV, measurement: measurement)
        let smoothed = smoothedTargetEV.map { $0 + Self.smoothing * (target - $0) } ?? target
        smoothedTargetEV = smoothed
        lastShotEV = shotEV
        let correction = min(max(smoothed - shotEV, -Self.maximumCorrectionEV), Self.maximumCorrectionEV)
        return Metering(shotEV: shotEV, targetEV: target, smoothedTargetEV: smoothed, correctionEV: correction,
                        median: measurement.median, midtone: measurement.midtone, highlight: measurement.highlight)
    }

    /// The next shot's exposure EV, `interval` after the last: towards the smoothed target, by at
    /// most the rate limit's share of the interval. Nil before the first metering (that shot is
    /// metered by the camera's AE).
    public func nextEV(after interval: Duration) -> Double? {
        guard let smoothedTargetEV, let from = lastCommandedEV ?? lastShotEV else { return nil }
        let hours = Double(interval.nanoseconds) / 3.6e12
        let allowed = max(rateEVPerHour, 0) * hours
        return from + min(max(smoothedTargetEV - from, -allowed), allowed)
    }

    /// The shot the ramp set up asks for `ev` (within the sensor's limits: the split's EV).
    public mutating func commanded(_ ev: Double) { lastCommandedEV = ev }
}
