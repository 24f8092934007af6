import CI2C
import Glibc
import Hardware

/// The system calls on device descriptors (i2c-dev, the IIO buffer), in one place like `StorageSyscalls`, so
/// tests can force EREMOTEIO, EBUSY, EINTR or ENXIO at any of them. Each call is made once:
/// retrying EINTR is the caller's job, so injected EINTRs exercise the real retry loops. Errors
/// become `HardwareError`s through the one errno mapping (`HardwareError.Kind(errno:)`).
protocol DescriptorSyscalls: Sendable {
    func open(_ path: String, _ flags: Int32) throws(SyscallError) -> Int32
    func close(_ fd: Int32)
    /// One read(2); 0 at end of file. EAGAIN on a non-blocking descriptor with nothing to read.
    func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int
    /// ioctl(2) with an integer argument (I2C_SLAVE).
    func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError)
    /// ioctl(2) with a pointer argument (I2C_FUNCS, I2C_RDWR).
    func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError)
    /// One libi2c `i2c_smbus_*` call (one I2C_SMBUS ioctl); returns its non-negative result.
    func smbus(_ fd: Int32, _ call: SMBusCall) throws(SyscallError) -> Int32
}

/// The SMBus transactions Tripod's IMU drivers use.
enum SMBusCall {
    case readByte(register: UInt8)
    case writeByte(register: UInt8, value: UInt8)
    case readWord(register: UInt8)
    case writeWord(register: UInt8, value: UInt16)
    /// Reads up to `count` bytes into `into` (I2C block read).
    case readBlock(register: UInt8, count: UInt8, into: UnsafeMutablePointer<UInt8>)
    case writeBlock(register: UInt8, bytes: UnsafeBufferPointer<UInt8>)
}

/// The real calls: Glibc and libi2c.
struct SystemDescriptorSyscalls: DescriptorSyscalls {
    func open(_ path: String, _ flags: Int32) throws(SyscallError) -> Int32 {
        let fd = Glibc.open(path, flags)
        if fd < 0 { throw SyscallError(errno: Glibc.errno) }
        return fd
    }

    func close(_ fd: Int32) { Glibc.close(fd) }

    func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int {
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n < 0 { throw SyscallError(errno: Glibc.errno) }
        return n
    }

    func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError) {
        if Glibc.ioctl(fd, request, value) < 0 { throw SyscallError(errno: Glibc.errno) }
    }

    func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError) {
        if Glibc.ioctl(fd, request, pointer) < 0 { throw SyscallError(errno: Glibc.errno) }
    }

    /// libi2c returns −errno on failure.
    func smbus(_ fd: Int32, _ call: SMBusCall) throws(SyscallError) -> Int32 {
        let result: Int32
        switch call {
        case .readByte(let register): result = i2c_smbus_read_byte_data(fd, register)
        case .writeByte(let register, let value): result = i2c_smbus_write_byte_data(fd, register, value)
        case .readWord(let register): result = i2c_smbus_read_word_data(fd, register)
        case .writeWord(let register, let value): result = i2c_smbus_write_word_data(fd, register, value)
        case .readBlock(let register, let count, let into): result = i2c_smbus_read_i2c_block_data(fd, register, count, into)
        case .writeBlock(let register, let bytes):
            result = i2c_smbus_write_i2c_block_data(fd, register, UInt8(bytes.count), bytes.baseAddress)
        }
        if result < 0 { throw SyscallError(errno: -result) }
        return result
    }
}
