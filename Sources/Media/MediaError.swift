import Hardware

/// An error from encoding or storing captures, with a message that names the file and the call.
public typealias MediaError = ServiceError<MediaErrorKind>

/// What went wrong with a capture, for callers that react differently (refuse vs retry vs report).
public enum MediaErrorKind: String, Sendable {
    /// Not enough free space for a bracket; see `message` for needed vs free bytes.
    case noRoom
    /// The storage failed (ENOSPC, EIO, …); `storageError` has the details.
    case storage
    /// libtiff or libjpeg refused the image (a JPEG, a DNG or its preview).
    case encoding
    /// The frame or its metadata cannot be written as asked (wrong format, missing values).
    case invalidFrame
    /// A bracket that already finished or failed was used again.
    case bracketClosed
    /// A capability that is not built yet.
    case notYet
}
