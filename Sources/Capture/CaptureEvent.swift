import Camera
import Controls
import Hardware
import Media

/// What happens in the capture service, as values; the console layer words them
/// (`bracket.started`, `bracket.done`, ...).
public enum CaptureEvent {
    /// A button press waits for the running bracket (the button's queue-one policy).
    case buttonQueued(ButtonAction)
    /// A button press was refused (busy policy), and why.
    case buttonRejected(ButtonAction, reason: String)
    /// The button's autofocus action failed.
    case autofocusFailed(reason: String)
    /// A bracket started.
    case bracketStarted(BracketStarted)
    /// A frame of the running bracket was saved.
    case frameSaved(BracketFrameSaved)
    /// A bracket was saved.
    case bracketDone(BracketDone)
    /// A bracket failed, or one asked for could not start.
    case bracketFailed(BracketFailure)
    /// The capture store could not be opened.
    case storeFailed(reason: String)
    /// A saved bracket's gyro log could not be written.
    case gyroLogFailed(path: String, reason: String)
}

/// A bracket that started: its plan, when its first request was queued, and who asked.
public struct BracketStarted: Equatable {
    /// The plan as it reads (`BracketPlan.summary`).
    public var planSummary: String
    /// Frames the plan asks for (an auto-range bracket may add some).
    public var frames: Int
    /// Trigger → first request queued; nil while the first request waits for a buffer.
    public var lag: Duration?
    /// The shot at a shared instant this bracket is, if any.
    public var shot: ShotRecord?
    public var trigger: CaptureTrigger
}

/// What `CaptureService.start` did.
public enum CaptureStart: Equatable {
    /// A button press waits for the running bracket.
    case queued
    /// Just after start: the capture starts with the camera's first frame.
    case waitingForFirstFrame
    case started(BracketStarted)
}

/// What `CaptureService.prepare` set up: the still stream's size, the raw stream's (nil: none),
/// the largest bracket, the extra buffers per stream, and how long it took.
public struct PreparedStills: Equatable {
    public var still: PixelSize
    public var raw: PixelSize?
    public var maximumFrames: Int
    public var buffersPerStream: Int
    public var setup: Duration
}

/// One frame of a bracket, saved.
public struct BracketFrameSaved {
    /// The bracket's id; nil before the store named it.
    public var bracketID: String?
    /// 1-based frame number, and the plan's frame count.
    public var frame: Int
    public var total: Int
    /// The frame's record as saved (settings, files, focus).
    public var record: FrameRecord
}

/// A bracket saved: its frames, the engine's counts, the shutter lag and where its sidecar is.
public struct BracketDone {
    public var bracketID: String
    public var framesSaved: Int
    public var statistics: BracketEngine.Statistics
    /// Trigger → first request queued (zero when unknown).
    public var lag: Duration
    /// The shot at a shared instant, as the sidecar records it.
    public var shot: ShotRecord?
    /// The sidecar's path in the store (`folder/id.json`); nil when none was written.
    public var sidecarPath: String?
}

/// A bracket that failed, or one that could not start.
public struct BracketFailure {
    /// The bracket's id; nil when it had none.
    public var bracketID: String?
    public var reason: String
    /// Frames saved before it failed.
    public var framesKept: Int
    /// Who asked; nil where the failure is not told with its trigger (a bracket that ended, a
    /// queued press that could not start).
    public var trigger: CaptureTrigger?
}
