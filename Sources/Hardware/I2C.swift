/// One message of a plain I2C transfer (`struct i2c_msg` in an `I2C_RDWR` ioctl).
public enum I2CMessage: Sendable, Hashable {
    case write([UInt8])
    case read(count: Int)
}

/// A device at one address on one I2C adapter.
///
/// SMBus calls map one-to-one to `I2C_SMBUS` ioctls. Block transfers carry at most 32 bytes
/// (`I2C_SMBUS_BLOCK_MAX`). Plain transfers with repeated start need an adapter that supports
/// `I2C_FUNC_I2C`; i2c-stub, for one, does not.
public protocol I2CDevice: AnyObject {
    /// "i2c-1@0x68", for messages.
    var name: String { get }
    /// True when the adapter supports plain `I2C_RDWR` transfers.
    var supportsPlainTransfer: Bool { get }
    func readByte(register: UInt8) throws -> UInt8
    func writeByte(register: UInt8, value: UInt8) throws
    /// SMBus word read: little-endian on the wire (low byte at `register`).
    func readWord(register: UInt8) throws -> UInt16
    func writeWord(register: UInt8, value: UInt16) throws
    /// SMBus I2C-block read of `count` ≤ 32 bytes starting at `register`.
    func readBlock(register: UInt8, count: Int) throws -> [UInt8]
    /// SMBus I2C-block write of ≤ 32 bytes starting at `register`.
    func writeBlock(register: UInt8, bytes: [UInt8]) throws
    /// A plain transfer; throws `.unsupported` when the adapter cannot.
    func transfer(_ messages: [I2CMessage]) throws -> [[UInt8]]
}

/// The SMBus block limit (`I2C_SMBUS_BLOCK_MAX`).
public let i2cBlockMaxBytes = 32
