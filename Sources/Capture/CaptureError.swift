import Camera

/// Why a capture, a preset or a time-lapse could not do what was asked: a kind the edge turns
/// into the console's error code, and one line saying what was wrong and what is allowed.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Wrong number or shape of words (a preset's or a time-lapse's bracket arguments).
        case usage
        /// A value that does not read, or names nothing (a missing preset).
        case badValue
        /// A value outside what the camera or the plan allows.
        case outOfRange
        /// The camera or format cannot do this (no camera, no raw stream).
        case unsupported
        /// Something is already running, or the service is stopping.
        case busy
        /// The camera or the store failed.
        case device
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }

    public var description: String { message }

    /// The error for a preset name with no saved preset.
    public static func missingPreset(_ name: String) -> CaptureError {
        CaptureError(.badValue, "no bracket preset \"\(name)\"; `preset list` shows the saved ones")
    }
}

/// Reads a bracket's arguments (`ev 5 1`, a saved preset's words) as a plan: the console's bracket
/// parser, passed in at composition.
public typealias BracketArgumentsReader = ([String]) throws(CaptureError) -> BracketPlan
