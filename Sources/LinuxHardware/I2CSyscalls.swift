import CI2C
import Glibc
import Hardware
import Syscalls

/// The syscall seam (`SystemCalls`, module Syscalls) with libi2c's SMBus calls, for i2c-dev nodes.
protocol I2CSyscalls: SystemCalls {
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

/// The real calls: Glibc (module Syscalls) and libi2c, each made once.
extension GlibcSyscalls: I2CSyscalls {
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

/// The seam's EINTR retry for the SMBus calls too.
extension RetryingSyscalls: I2CSyscalls where Raw: I2CSyscalls {
    func smbus(_ fd: Int32, _ call: SMBusCall) throws(SyscallError) -> Int32 {
        try retrying { () throws(SyscallError) in try raw.smbus(fd, call) }
    }
}
