/// Why the live stream could not start: one line naming the address and the cause.
public struct StreamError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
