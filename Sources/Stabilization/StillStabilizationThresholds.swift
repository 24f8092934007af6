/// The numbers behind still stabilization (motion gating, retakes, status). Why these values:
/// see docs/stabilization.md, "Thresholds".
public struct StillStabilizationThresholds: Hashable, Sendable {
    /// Largest acceptable blur, in pixels of the active sensor mode's output (so a 2×2 binned mode
    /// tolerates twice the angle of the full mode: the threshold follows pixel pitch × binning).
    /// Blur = length of the path the image centre travels during the exposure.
    public var blurThresholdPixels: Double = 2.0
    /// Retakes after the first attempt (K): attempt 1 + up to K retakes.
    public var retakeLimit: Int = 3
    /// Longest a frame waits for a calm moment before it goes anyway.
    public var maximumWaitPerFrame: Duration = .milliseconds(500)
    /// How often the gate asks again while waiting.
    public var pollInterval: Duration = .milliseconds(10)
    /// Exposures longer than this are not gated or retaken: status OutOfRange.
    public var maximumExposure: Duration = .seconds(1)
    /// Automatic still stabilization applies to single captures at least this long (1/30 s).
    public var automaticStillMinimumExposure: Duration = .microseconds(33_333)
    /// Newest IMU sample older than this (against the loop's clock) means the IMU is not delivering.
    public var maximumSampleAge: Duration = .milliseconds(250)
    /// Part of an exposure window the IMU samples must cover to measure it; the rest (the tail still
    /// in the IMU's FIFO when the frame completes) is extrapolated at the newest sample's rate.
    public var minimumCoverage: Double = 0.5

    public init() {}
}
