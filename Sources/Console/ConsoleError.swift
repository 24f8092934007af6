/// An error a console reports as `err <code> <message>`.
public struct ConsoleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable, machine-readable error codes. Scripts match on these.
    public enum Code: String, Sendable, CaseIterable {
        /// Unknown command.
        case unknownCommand = "unknown-command"
        /// Wrong number or shape of arguments.
        case usage
        /// A value that does not parse.
        case badValue = "bad-value"
        /// A value outside what the device allows.
        case outOfRange = "out-of-range"
        /// The device or format cannot do this.
        case unsupported
        /// Something is already running.
        case busy
        /// A device or storage error.
        case device
        /// The line was longer than the limit.
        case lineTooLong = "line-too-long"
        /// Binary garbage, NUL bytes, invalid UTF-8.
        case badInput = "bad-input"
        /// A capability that is not built yet.
        case notYet = "not-yet"
        /// Unknown setting key.
        case unknownKey = "unknown-key"
        /// Too much input too fast.
        case flood
        /// This origin may not do this (docs/security.md): ask at the rig's own console.
        case denied
    }

    public var code: Code
    /// What was wrong and what is allowed, in one line.
    public var message: String

    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }

    public var description: String { "\(code.rawValue): \(message)" }
}
