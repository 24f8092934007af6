/// A reason `tripod run` cannot start, said in one line; the process exits non-zero.
public struct StartupError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
