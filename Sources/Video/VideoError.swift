import Hardware

/// An error from encoding, muxing or storing a video, with a message that names the file and call.
public struct VideoError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
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

    public var kind: Kind
    public var message: String
    /// The storage error behind a `.storage` failure.
    public var storageError: HardwareError?

    public init(_ kind: Kind, _ message: String, storageError: HardwareError? = nil) {
        self.kind = kind; self.message = message; self.storageError = storageError
    }

    public var description: String { message }
}
