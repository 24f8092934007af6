import CI2C
import Glibc
import Hardware
import Syscalls

/// An `I2CDevice` on a Linux i2c-dev node (`/dev/i2c-N`).
///
/// `open(2)` the node, `ioctl(I2C_SLAVE, address)` (EBUSY when a kernel driver owns the address:
/// use the IIO backend then), `ioctl(I2C_FUNCS)` to learn whether plain `I2C_RDWR` transfers
/// work; SMBus calls go through libi2c's `i2c_smbus_*` (each one `I2C_SMBUS` ioctl), which return
/// −errno on failure. The syscall seam retries EINTR; other errnos become `HardwareError`s naming the node,
/// the address and the call. Not thread-safe: use from one loop.
public final class LinuxI2CDevice: I2CDevice, @unchecked Sendable {
    public let path: String
    public let address: UInt8
    public let name: String
    public let supportsPlainTransfer: Bool
    /// True when the adapter does SMBus I2C-block reads (`I2C_FUNC_SMBUS_READ_I2C_BLOCK`).
    public let supportsBlockRead: Bool
    private let fd: Int32
    private let syscalls: any I2CSyscalls

    /// Opens `path` ("/dev/i2c-1") and selects `address` (7-bit).
    public convenience init(path: String, address: UInt8) throws {
        try self.init(path: path, address: address, syscalls: SystemSyscalls())
    }

    /// The same through `syscalls` (tests inject faults there).
    init(path: String, address: UInt8, syscalls: any I2CSyscalls) throws {
        self.path = path
        self.address = address
        self.syscalls = syscalls
        let label = "\(path.split(separator: "/").last.map(String.init) ?? path)@0x\(String(address, radix: 16))"
        self.name = label
        let fd: Int32
        do { fd = try syscalls.open(path, O_RDWR | O_CLOEXEC) }
        catch { throw error.hardwareError("\(label): open \(path)") }
        var functions: UInt = 0
        do {
            try syscalls.ioctl(fd, UInt(I2C_SLAVE), value: CInt(address))
        } catch {
            try? syscalls.close(fd)
            throw error.hardwareError("\(label): ioctl I2C_SLAVE")
        }
        do {
            try withUnsafeMutablePointer(to: &functions) { p throws(SyscallError) in
                try syscalls.ioctl(fd, UInt(I2C_FUNCS), pointer: p)
            }
        } catch {
            try? syscalls.close(fd)
            throw error.hardwareError("\(label): ioctl I2C_FUNCS")
        }
        self.fd = fd
        supportsPlainTransfer = functions & UInt(I2C_FUNC_I2C) != 0
        supportsBlockRead = functions & UInt(I2C_FUNC_SMBUS_READ_I2C_BLOCK) != 0
    }

    deinit { try? syscalls.close(fd) }

    private func hex(_ r: UInt8) -> String { "0x" + String(r, radix: 16) }

    /// Runs one SMBus transaction (the seam retries EINTR).
    private func smbus(_ what: @autoclosure () -> String, _ call: SMBusCall) throws -> Int32 {
        do { return try syscalls.smbus(fd, call) }
        catch { throw error.hardwareError("\(name): \(what())") }
    }

    public func readByte(register: UInt8) throws -> UInt8 {
        UInt8(truncatingIfNeeded: try smbus("I2C_SMBUS read byte \(hex(register))", .readByte(register: register)))
    }

    public func writeByte(register: UInt8, value: UInt8) throws {
        _ = try smbus("I2C_SMBUS write byte \(hex(register))", .writeByte(register: register, value: value))
    }

    public func readWord(register: UInt8) throws -> UInt16 {
        UInt16(truncatingIfNeeded: try smbus("I2C_SMBUS read word \(hex(register))", .readWord(register: register)))
    }

    public func writeWord(register: UInt8, value: UInt16) throws {
        _ = try smbus("I2C_SMBUS write word \(hex(register))", .writeWord(register: register, value: value))
    }

    /// `i2c_smbus_read_i2c_block_data`: may return fewer bytes than asked (the caller checks).
    public func readBlock(register: UInt8, count: Int) throws -> [UInt8] {
        guard (1...i2cBlockMaxBytes).contains(count) else {
            throw HardwareError(.invalidArgument, "\(name): I2C block read of \(count) bytes (1…32)", errno: EINVAL)
        }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = try buffer.withUnsafeMutableBufferPointer { p -> Int32 in
            guard let base = p.baseAddress else { return 0 }
            return try smbus("I2C_SMBUS read I2C block \(hex(register)) ×\(count)",
                             .readBlock(register: register, count: UInt8(count), into: base))
        }
        return Array(buffer.prefix(Int(got)))
    }

    public func writeBlock(register: UInt8, bytes: [UInt8]) throws {
        guard (1...i2cBlockMaxBytes).contains(bytes.count) else {
            throw HardwareError(.invalidArgument, "\(name): I2C block write of \(bytes.count) bytes (1…32)", errno: EINVAL)
        }
        _ = try bytes.withUnsafeBufferPointer { p in
            try smbus("I2C_SMBUS write I2C block \(hex(register)) ×\(bytes.count)", .writeBlock(register: register, bytes: p))
        }
    }

    /// One `ioctl(I2C_RDWR)` with repeated starts between messages.
    public func transfer(_ messages: [I2CMessage]) throws -> [[UInt8]] {
        guard supportsPlainTransfer else {
            throw HardwareError(.unsupported, "\(name): I2C_RDWR not supported by the adapter (SMBus only)", errno: EOPNOTSUPP)
        }
        var buffers: [[UInt8]] = messages.map {
            switch $0 { case .write(let b): b; case .read(let n): [UInt8](repeating: 0, count: n) }
        }
        let reads = messages.map { if case .read = $0 { true } else { false } }
        // Pin every buffer for the duration of the ioctl.
        let pointers = buffers.map { b -> UnsafeMutablePointer<UInt8> in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, b.count))
            p.initialize(from: b, count: b.count)
            return p
        }
        defer { pointers.forEach { $0.deallocate() } }
        var msgs = (0..<messages.count).map { i in
            i2c_msg(addr: UInt16(address), flags: reads[i] ? UInt16(I2C_M_RD) : 0, len: UInt16(buffers[i].count), buf: pointers[i])
        }
        do {
            try msgs.withUnsafeMutableBufferPointer { m throws(SyscallError) in
                var data = i2c_rdwr_ioctl_data(msgs: m.baseAddress, nmsgs: UInt32(m.count))
                try withUnsafeMutablePointer(to: &data) { p throws(SyscallError) in
                    try syscalls.ioctl(fd, UInt(I2C_RDWR), pointer: p)
                }
            }
        } catch {
            throw error.hardwareError("\(name): ioctl I2C_RDWR (\(messages.count) messages)")
        }
        for i in buffers.indices where reads[i] {
            buffers[i] = Array(UnsafeBufferPointer(start: pointers[i], count: buffers[i].count))
        }
        return zip(buffers, reads).filter(\.1).map(\.0)
    }
}
