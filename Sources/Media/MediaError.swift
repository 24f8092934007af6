import Hardware

/// An error from encoding or storing captures, with a message that names the file and the call.
public struct MediaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, for callers that react differently (refuse vs retry vs report).
    public enum Kind: String, Sendable {
        /// Not enough free space for a bracket; see `message` for needed vs free bytes.
        case noRoom
        /// The storage failed (ENOSPC, EIO, …); `storageError` has the details.
        case storage
        /// libtiff or libjpeg refused the image.
        case encoding
        /// The frame or its metadata cannot be written as asked (wrong format, missing values).
        case invalidFrame
        /// A bracket that already finished or failed was used again.
        case bracketClosed
        /// A capability that is not built yet.
        case notYet
    }

    /// The category.
    public var kind: Kind
    /// Names the bracket, file or call, and the cause.
    public var message: String
    /// The storage error behind a `.storage` failure.
    public var storageError: HardwareError?

    /// An error of `kind` with a message for a person.
    public init(_ kind: Kind, _ message: String, storageError: HardwareError? = nil) {
        self.kind = kind; self.message = message; self.storageError = storageError
    }

    /// The message.
    public var description: String { message }
}
