import Hardware

/// An error from the camera layer: a setting out of range, an unsupported feature, a bad format
/// choice. The message states the allowed range or the alternatives, for a person to read.
public struct CameraError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A value outside the camera's range; the message states the range.
        case outOfRange
        /// The sensor or libcamera cannot do this (fixed-focus AF, HDR on 0.0.3, …).
        case unsupported
        /// A format choice that matches nothing; the message names the nearest formats.
        case noSuchFormat
        /// Wrong state (not streaming, no frame yet, …).
        case notReady
        /// The sensor database could not be read.
        case database
        /// Part of the feature is not implemented yet.
        case notYet
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }

    static func database(_ message: String) -> CameraError { CameraError(.database, message) }
}
