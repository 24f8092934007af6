import Foundation
import Media

/// What happens in a time-lapse, as values; the console layer words them (`timelapse.shot`, ...).
public enum TimelapseEvent {
    /// Started: the plan and the frames each shot takes.
    case started(TimelapsePlan, framesPerShot: Int)
    /// Went on after a restart, from the state kept.
    case resumed(TimelapseState)
    /// A kept time-lapse the camera no longer takes was dropped at start: why, and the shots taken.
    case notResumed(reason: String, taken: Int)
    /// Ended: the state it ended with, and why.
    case stopped(TimelapseState, reason: String)
    /// These shots (one, or a run of them) were not taken, and why.
    case missed(shots: ClosedRange<Int>, reason: String)
    /// A shot was saved.
    case shot(TimelapseShot)
    /// Something went wrong beside the shots (metering, an XMP file).
    case error(reason: String)
}

/// A time-lapse shot, saved: its number, its sidecar, the ramp's metering and the misses so far.
public struct TimelapseShot {
    public var shot: Int
    /// The last shot's number; nil for an open sequence.
    public var lastShot: Int?
    public var sidecar: BracketSidecar
    /// The ramp's metering of this shot (`ramp auto`), if it was metered.
    public var metering: ExposureRamp.Metering?
    /// Shots missed so far.
    public var missed: Int
}
