import CI2C
import Glibc
import Hardware
import ManualLoop
import Syscalls
import Testing
import TestSupport
@testable import LinuxHardware

/// An i2c-dev node in memory: registers, the adapter's functions, and faults queued per call
/// (the descriptor seam, as `FaultInjectingSyscalls` is for storage).
private final class FakeI2CNode: FaultInjectingSyscalls, I2CSyscalls, @unchecked Sendable {
    var registers: [UInt8: UInt8] = [0x75: 0x68]
    var functions: UInt = UInt(I2C_FUNC_I2C) | UInt(I2C_FUNC_SMBUS_READ_I2C_BLOCK)
    /// errnos to throw at the next calls of a kind ("open", "I2C_SLAVE", "smbus"), in order.
    var faults: [String: [Int32]] = [:]
    private(set) var opened = 0, closed = 0, smbusCalls = 0

    private func fault(_ call: String) throws(SyscallError) {
        guard var queue = faults[call], !queue.isEmpty else { return }
        let e = queue.removeFirst()
        faults[call] = queue
        throw SyscallError(errno: e)
    }

    override func open(_ path: String, _ flags: Int32, mode: mode_t) throws(SyscallError) -> Int32 {
        try fault("open")
        opened += 1
        return 42
    }
    override func close(_ fd: Int32) throws(SyscallError) { closed += 1 }
    override func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int { throw SyscallError(errno: EINVAL) }
    override func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError) { try fault("I2C_SLAVE") }
    override func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError) {
        if request == UInt(I2C_FUNCS) { pointer.storeBytes(of: functions, as: UInt.self) } else { try fault("I2C_RDWR") }
    }
    func smbus(_ fd: Int32, _ call: SMBusCall) throws(SyscallError) -> Int32 {
        smbusCalls += 1
        try fault("smbus")
        switch call {
        case .readByte(let register): return Int32(registers[register] ?? 0)
        case .writeByte(let register, let value): registers[register] = value; return 0
        default: return 0
        }
    }
}

@Suite struct I2CSyscallFaultTests {
    @Test func anInterruptedTransactionIsRetried() throws {
        let node = FakeI2CNode()
        node.faults = ["open": [EINTR], "I2C_SLAVE": [EINTR], "smbus": [EINTR, EINTR]]
        let device = try LinuxI2CDevice(path: "/dev/i2c-1", address: 0x68, syscalls: RetryingSyscalls(node))
        #expect(try device.readByte(register: 0x75) == 0x68)
        #expect(node.smbusCalls == 3, "two EINTRs, then the read")
        #expect(device.supportsPlainTransfer && device.supportsBlockRead)
    }

    @Test func aNackIsAnIOErrorNamingTheRegister() throws {
        let node = FakeI2CNode()
        let device = try LinuxI2CDevice(path: "/dev/i2c-1", address: 0x68, syscalls: RetryingSyscalls(node))
        node.faults = ["smbus": [EREMOTEIO]]
        do {
            _ = try device.readByte(register: 0x3b)
            Issue.record("a NACK must throw")
        } catch let error as HardwareError {
            #expect(error.kind == .io)
            #expect(error.message.contains("i2c-1@0x68") && error.message.contains("0x3b"), "\(error.message)")
        }
        #expect(try device.readByte(register: 0x75) == 0x68, "the next transaction goes through")
    }

    /// The error opening `path` with `faults` queued, or nil when it opened.
    private func openError(_ node: FakeI2CNode, _ path: String, faults: [String: [Int32]]) -> HardwareError? {
        node.faults = faults
        do { _ = try LinuxI2CDevice(path: path, address: 0x68, syscalls: RetryingSyscalls(node)) } catch { return error as? HardwareError }
        return nil
    }

    @Test func anAddressOwnedByAKernelDriverIsBusyAndTheNodeIsClosed() throws {
        let node = FakeI2CNode()
        let error = try #require(openError(node, "/dev/i2c-1", faults: ["I2C_SLAVE": [EBUSY]]))
        #expect(error.kind == .busy && error.message.contains("I2C_SLAVE"), "\(error)")
        #expect(node.opened == 1 && node.closed == 1, "no descriptor leaks")
    }

    @Test func aMissingAdapterIsNotFound() throws {
        let node = FakeI2CNode()
        let error = try #require(openError(node, "/dev/i2c-9", faults: ["open": [ENOENT]]))
        #expect(error.kind == .notFound && error.message.contains("/dev/i2c-9"), "\(error)")
        #expect(node.opened == 0 && node.closed == 0)
    }
}

@Suite struct IIOSyscallFaultTests {
    /// EINTR and EAGAIN at the buffer's read are not faults; EIO makes the IMU unavailable (saying
    /// where), and it comes back by itself.
    @Test func anIOErrorReadingTheBufferIsReportedAndRecovered() throws {
        let fake = try FakeIIO()
        try fake.appendToBuffer([])
        let loop = ManualEventLoop()
        let reads = FaultInjectingSyscalls()
        let found = try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first)
        let imu = IIOIMU(found: found, loop: loop, axisMapping: .identity, rateHertz: 500, pollInterval: .milliseconds(10),
                         syscalls: RetryingSyscalls(reads))
        let health = LockedValue<[IMUHealth]>([])
        try imu.start { e in if case .health(let h) = e { health.withLock { $0.append(h) } } }
        loop.advance(by: .milliseconds(50))
        #expect(health.current == [.running])
        reads.fail(.read, errno: EINTR)
        reads.fail(.read, errno: EAGAIN)
        loop.advance(by: .milliseconds(50))
        #expect(health.current == [.running], "EINTR is retried and EAGAIN means nothing to read")
        reads.fail(.read, errno: EIO)
        loop.advance(by: .milliseconds(20))
        guard case .unavailable(let reason)? = health.current.last else { Issue.record("\(health.current)"); return }
        #expect(reason.contains(found.devicePath) && reason.contains("read"), "\(reason)")
        loop.advance(by: .seconds(1))
        #expect(health.current.last == .running, "back by itself: \(health.current)")
        imu.stop()
        loop.run()
    }
}
