/// An error from a device or the operating system, with enough context to tell a person what broke.
public struct HardwareError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The device is not there (ENOENT, ENODEV, ENXIO).
        case notFound
        /// Another process holds it (EBUSY).
        case busy
        /// An I/O error or NACK on the bus (EIO, EREMOTEIO).
        case io
        /// The operation timed out (ETIMEDOUT).
        case timeout
        /// Not permitted (EACCES, EPERM).
        case permission
        /// The device or adapter cannot do this (EOPNOTSUPP), or a control is absent.
        case unsupported
        /// Arguments out of range (EINVAL), or a value the device rejected.
        case invalidArgument
        /// No space left (ENOSPC).
        case noSpace
        /// The device went away while in use.
        case disconnected
        /// Something else; see `message`.
        case other
    }

    public var kind: Kind
    /// Names the device and the call, e.g. "/dev/i2c-1 0x68: I2C_SMBUS read byte 0x75".
    public var message: String
    /// The errno behind it, when there is one.
    public var errno: Int32?

    public init(_ kind: Kind, _ message: String, errno: Int32? = nil) {
        self.kind = kind; self.message = message; self.errno = errno
    }

    public var description: String { message }
}
