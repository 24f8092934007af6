/// Why the recorder or video HDR could not do what was asked: a kind the edge turns into the
/// console's error code, and one line saying what was wrong and what is allowed.
public struct RecorderError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Asked out of turn (`record stop` while not recording).
        case usage
        /// A setting the encoder or the pre-roll cannot take.
        case badValue
        /// The storage, camera or format cannot do this.
        case unsupported
        /// A recording runs, or the camera is not streaming yet.
        case busy
        /// The camera or the encoder failed.
        case device
        /// A combination not built yet.
        case notYet
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }

    public var description: String { message }
}
