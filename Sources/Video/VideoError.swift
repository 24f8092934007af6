import Hardware

/// An error from encoding, muxing or storing a video, with a message that names the file and call.
public typealias VideoError = ServiceError<VideoErrorKind>

/// What went wrong with a recording.
public enum VideoErrorKind: String, Sendable {
    /// Settings or frames that cannot be recorded as asked (size, format, values).
    case invalidArgument
    /// FFmpeg has no such encoder, or it refused to open.
    case encoderUnavailable
    /// libavcodec or libavformat failed while encoding or muxing.
    case encoding
    /// Not enough free space to start or to go on.
    case noRoom
    /// The storage failed (ENOSPC, EIO, …); `storageError` has the details.
    case storage
    /// start while recording, stop while idle.
    case state
    /// The camera stopped delivering frames (unplugged): the file is finished with what came.
    case sourceLost
}
