import Hardware

/// What a bracket engine asks before and after each frame. Stabilization implements it (motion
/// gating, retakes, alignment, per-frame status); `UngatedFrames` is the null fallback (status Off).
///
/// Called on the camera's event loop. Implementations must answer quickly and never block.
public protocol BracketFrameGate: AnyObject {
    /// Before queueing step `index` whose exposure lasts `exposure`: go now, or ask again after a
    /// delay. The gate bounds the total wait itself (it answers `.go` once its limit has passed).
    func readiness(index: Int, exposure: Duration, now: MonotonicTime) -> GateReadiness
    /// After step `index` completed (attempt 1, 2, …) with its actual exposure window (from
    /// SensorTimestamp and the ExposureTime in its metadata): keep it or retake it, and what to record.
    func judge(index: Int, attempt: Int, exposureStart: MonotonicTime, exposure: Duration) -> FrameVerdict
}

/// A gate's answer before a frame.
public enum GateReadiness: Equatable, Sendable {
    case go
    case wait(Duration)
}

/// Per-frame stabilization status (AVFoundation's still-image lens stabilization status names).
public enum StabilizationStatus: String, Sendable, Codable, CaseIterable {
    /// Applied, and within range.
    case active = "Active"
    /// Motion beyond what gating and retakes could fix, or an exposure longer than the limit.
    case outOfRange = "OutOfRange"
    /// The IMU was absent or failed during this frame.
    case unavailable = "Unavailable"
    /// Not requested.
    case off = "Off"
}

/// A gate's decision after a frame.
public struct FrameVerdict: Equatable, Sendable {
    public var retake: Bool
    public var status: StabilizationStatus
    /// Blur measured from IMU samples during the exposure, pixels; nil without an IMU.
    public var measuredBlurPixels: Double?
    /// Rotation of this frame relative to the bracket's first frame, as a unit quaternion (w, x, y, z).
    public var alignment: [Double]?

    public init(retake: Bool, status: StabilizationStatus, measuredBlurPixels: Double? = nil, alignment: [Double]? = nil) {
        self.retake = retake; self.status = status; self.measuredBlurPixels = measuredBlurPixels; self.alignment = alignment
    }
}

/// The null gate: every frame goes at once, is kept, and records status Off.
public final class UngatedFrames: BracketFrameGate {
    public init() {}
    public func readiness(index: Int, exposure: Duration, now: MonotonicTime) -> GateReadiness { .go }
    public func judge(index: Int, attempt: Int, exposureStart: MonotonicTime, exposure: Duration) -> FrameVerdict {
        FrameVerdict(retake: false, status: .off)
    }
}
