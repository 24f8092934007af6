/// An error from the stabilization module, with a message that names the setting or call.
public struct StabilizationError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Code: String, Sendable {
        /// The request needs something this rig or format lacks now (IMU down, format without headroom).
        case unsupported
        /// A value that is not one of the accepted ones.
        case invalidArgument
    }
    public let code: Code
    public let message: String
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }
    public var description: String { "\(code.rawValue): \(message)" }
}
