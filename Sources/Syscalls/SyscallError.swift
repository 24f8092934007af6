import Glibc
import Hardware

/// An errno from one system call.
public struct SyscallError: Error, Equatable, Sendable, CustomStringConvertible {
    public var errno: Int32
    public init(errno: Int32) { self.errno = errno }

    /// The system's text for the errno (`strerror`).
    public var description: String { String(cString: strerror(errno)) }

    /// The `HardwareError` for this failure of `what` (the device or file, and the call): the kind
    /// from the one errno mapping, `HardwareError.Kind(errno:)`, and a message
    /// "`what`: the system's text (errno N)".
    public func hardwareError(_ what: String) -> HardwareError {
        HardwareError(HardwareError.Kind(errno: errno), "\(what): \(description) (errno \(errno))", errno: errno)
    }
}
