import Hardware
import Video

/// What happens in the recorder, as values; the console layer words them (`record.*`).
public enum RecorderEvent {
    /// A recording started.
    case started(RecordingStarted)
    /// A file of the recording is complete (its sidecar written).
    case fileClosed(VideoSidecar)
    /// The recording ended: by a stop (error nil) or by a fault; its counts at the end.
    case stopped(id: String, status: RecordingStatus?, error: VideoError?)
    /// The preferred encoder could not be used; the note says why and which one is.
    case encoderFallback(note: String)
    /// Something failed during a recording (`recordingID` nil: none was known).
    case recordingFailure(recordingID: String?, reason: String)
    /// Something failed around recordings (the pre-record ring, giving the video stream back).
    case streamFailure(reason: String)
}

/// A recording that started: its id and file, the frame size and the rate it records at.
public struct RecordingStarted: Equatable {
    public var id: String
    /// The file's path in the store (`folder/id.ext`).
    public var file: String
    /// The frames' size.
    public var size: PixelSize
    /// The rate it records at, frames per second.
    public var framesPerSecond: Double
    /// What the camera said of the video stream, if anything.
    public var note: String?
}

/// A shot's record start or stop, done on its frame: what it started (nil for a stop), the
/// recording, and that frame's exposure start.
public struct ArmedShotOutcome {
    public var started: RecordingStarted?
    /// The recording started, or the one stopping.
    public var recordingID: String
    /// The frame's exposure start, wall clock (ns since 1970), and whether the frame's own
    /// wall-clock metadata gave it (else the sensor timestamp did).
    public var exposureStartNanoseconds: Int64
    public var fromFrameWallClock: Bool
}
