/// An error from a service above the devices (media, video): a kind for callers that react
/// differently (refuse, retry, report), a message for a person that names the file and the call,
/// and the storage error behind it when the storage failed. Each service names its kinds:
/// `MediaError` is `ServiceError<MediaErrorKind>`, `VideoError` is `ServiceError<VideoErrorKind>`.
public struct ServiceError<K: Hashable & Sendable>: Error, Hashable, Sendable, CustomStringConvertible {
    /// The service's categories.
    public typealias Kind = K

    /// The category.
    public var kind: Kind
    /// Names the file or call, and the cause.
    public var message: String
    /// The storage error behind a storage failure.
    public var storageError: HardwareError?

    /// An error of `kind` with a message for a person.
    public init(_ kind: Kind, _ message: String, storageError: HardwareError? = nil) {
        self.kind = kind; self.message = message; self.storageError = storageError
    }

    /// The message.
    public var description: String { message }
}
