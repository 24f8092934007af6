import Hardware

/// A register-level chip on the simulated bus. `time` is when the transfer ends, on the loop clock.
public protocol SimulatedI2CChip: AnyObject {
    /// Reads `count` bytes starting at `register` (auto-increment rules are the chip's).
    func read(register: UInt8, count: Int, at time: MonotonicTime) -> [UInt8]
    /// Writes `bytes` starting at `register`.
    func write(register: UInt8, bytes: [UInt8], at time: MonotonicTime)
}

/// A fault to inject on the next transfers to an address.
public enum SimulatedI2CFault: Sendable, Hashable {
    /// The chip does not acknowledge (EIO / EREMOTEIO).
    case nack
    /// The adapter times out (ETIMEDOUT); costs 10 ms of bus time.
    case timeout
    /// A block read returns half the bytes asked for.
    case shortRead
}

/// A simulated I2C adapter with realistic transfer times.
///
/// Each transfer occupies the bus for its bit count at `clockHertz` (S, address, register,
/// repeated start, 9 bits per byte with ACK, P) plus `overheadPerTransfer` (the ioctl); the bus
/// is serial, so a transfer starts at max(loop now, end of the previous one). The chip sees the
/// end time, so FIFO contents reflect time spent on the wire. Like i2c-stub, it offers SMBus only
/// unless `supportsPlainTransfer`. Confined to one thread (the loop's): not locked.
public final class SimulatedI2CBus: @unchecked Sendable {
    public let name: String
    public let clockHertz: Double
    public var overheadPerTransfer: Duration = .microseconds(20)
    public var supportsPlainTransfer = false
    private let loop: any EventLoop
    private var chips: [UInt8: any SimulatedI2CChip] = [:]
    private var faults: [UInt8: [SimulatedI2CFault]] = [:]
    /// Addresses whose chip has gone (unplugged, no power): every transfer fails with ENXIO.
    public var unplugged: Set<UInt8> = []
    /// When the bus is next free.
    public private(set) var busyUntil: MonotonicTime = .zero
    /// Time the bus spent transferring, and the counts.
    public private(set) var busyTime: Duration = .zero
    public private(set) var transferCount = 0
    public private(set) var bytesTransferred = 0

    public init(name: String = "i2c-sim", loop: any EventLoop, clockHertz: Double = 400_000) {
        self.name = name; self.loop = loop; self.clockHertz = clockHertz
    }

    /// Puts `chip` at `address`.
    public func attach(_ chip: any SimulatedI2CChip, at address: UInt8) { chips[address] = chip }

    /// The `I2CDevice` for `address`; transfers to an empty address fail with ENXIO.
    public func device(at address: UInt8) -> any I2CDevice { SimulatedI2CDevice(bus: self, address: address) }

    /// Makes the next `count` transfers to `address` fail (or read short) with `fault`.
    public func inject(_ fault: SimulatedI2CFault, at address: UInt8, count: Int = 1) {
        faults[address, default: []] += Array(repeating: fault, count: count)
    }

    /// The loop's time plus time already spent on the wire in this loop turn: the clock a driver
    /// on real hardware would read after its transfers (pass it as `I2CIMU`'s `clock`).
    public func now() -> MonotonicTime { max(loop.now(), busyUntil) }

    /// Holds the bus for `duration` from now (another master, or a chip stretching the clock):
    /// the next transfers wait, while the IMU keeps sampling.
    public func hold(for duration: Duration) {
        busyUntil = max(loop.now(), busyUntil) + duration
    }

    /// Runs one transfer of `bits` bits, returning the chip and the time the transfer ends.
    func transfer(_ address: UInt8, bits: Int, call: String, isBlockRead: Bool = false) throws -> (chip: any SimulatedI2CChip, end: MonotonicTime, short: Bool) {
        let start = max(loop.now(), busyUntil)
        let label = "\(name)@0x\(String(address, radix: 16)): \(call)"
        func occupy(_ d: Duration) -> MonotonicTime {
            busyUntil = start + d; busyTime += d; transferCount += 1
            return busyUntil
        }
        let addressOnly = Duration.nanoseconds(Int64(10 / clockHertz * 1e9)) + overheadPerTransfer
        guard let chip = chips[address], !unplugged.contains(address) else {
            _ = occupy(addressOnly)
            throw HardwareError(.notFound, "\(label): no ACK (ENXIO)", errno: 6)
        }
        var short = false
        if var queue = faults[address], !queue.isEmpty {
            let fault = queue.removeFirst()
            faults[address] = queue
            switch fault {
            case .nack:
                _ = occupy(addressOnly)
                throw HardwareError(.io, "\(label): NACK (EREMOTEIO)", errno: 121)
            case .timeout:
                _ = occupy(.milliseconds(10))
                throw HardwareError(.timeout, "\(label): timed out (ETIMEDOUT)", errno: 110)
            case .shortRead:
                if isBlockRead { short = true } else { faults[address, default: []].insert(.shortRead, at: 0) }
            }
        }
        let end = occupy(.nanoseconds(Int64(Double(bits) / clockHertz * 1e9)) + overheadPerTransfer)
        return (chip, end, short)
    }

    func countBytes(_ n: Int) { bytesTransferred += n }
}

/// One address on a `SimulatedI2CBus`.
final class SimulatedI2CDevice: I2CDevice {
    let bus: SimulatedI2CBus
    let address: UInt8
    init(bus: SimulatedI2CBus, address: UInt8) { self.bus = bus; self.address = address }

    var name: String { "\(bus.name)@0x\(String(address, radix: 16))" }
    var supportsPlainTransfer: Bool { bus.supportsPlainTransfer }

    func readByte(register: UInt8) throws -> UInt8 {
        let t = try bus.transfer(address, bits: 38, call: "I2C_SMBUS read byte 0x\(String(register, radix: 16))")
        bus.countBytes(1)
        return t.chip.read(register: register, count: 1, at: t.end).first ?? 0xFF
    }
    func writeByte(register: UInt8, value: UInt8) throws {
        let t = try bus.transfer(address, bits: 29, call: "I2C_SMBUS write byte 0x\(String(register, radix: 16))")
        bus.countBytes(1)
        t.chip.write(register: register, bytes: [value], at: t.end)
    }
    func readWord(register: UInt8) throws -> UInt16 {
        let t = try bus.transfer(address, bits: 47, call: "I2C_SMBUS read word 0x\(String(register, radix: 16))")
        bus.countBytes(2)
        let b = t.chip.read(register: register, count: 2, at: t.end)
        return UInt16(b[0]) | UInt16(b[1]) << 8
    }
    func writeWord(register: UInt8, value: UInt16) throws {
        let t = try bus.transfer(address, bits: 38, call: "I2C_SMBUS write word 0x\(String(register, radix: 16))")
        bus.countBytes(2)
        t.chip.write(register: register, bytes: [UInt8(value & 0xFF), UInt8(value >> 8)], at: t.end)
    }
    func readBlock(register: UInt8, count: Int) throws -> [UInt8] {
        guard (1...i2cBlockMaxBytes).contains(count) else {
            throw HardwareError(.invalidArgument, "\(name): I2C block read of \(count) bytes (1…32)", errno: 22)
        }
        let t = try bus.transfer(address, bits: 30 + 9 * count,
                                 call: "I2C_SMBUS read I2C block 0x\(String(register, radix: 16))", isBlockRead: true)
        let n = t.short ? count / 2 : count
        bus.countBytes(n)
        return t.chip.read(register: register, count: n, at: t.end)
    }
    func writeBlock(register: UInt8, bytes: [UInt8]) throws {
        guard (1...i2cBlockMaxBytes).contains(bytes.count) else {
            throw HardwareError(.invalidArgument, "\(name): I2C block write of \(bytes.count) bytes (1…32)", errno: 22)
        }
        let t = try bus.transfer(address, bits: 20 + 9 * bytes.count, call: "I2C_SMBUS write I2C block 0x\(String(register, radix: 16))")
        bus.countBytes(bytes.count)
        t.chip.write(register: register, bytes: bytes, at: t.end)
    }
    func transfer(_ messages: [I2CMessage]) throws -> [[UInt8]] {
        guard bus.supportsPlainTransfer else {
            throw HardwareError(.unsupported, "\(name): I2C_RDWR not supported by the adapter", errno: 95)
        }
        var pointer: UInt8 = 0
        var results: [[UInt8]] = []
        for message in messages {
            switch message {
            case .write(let bytes):
                let t = try bus.transfer(address, bits: 20 + 9 * bytes.count, call: "I2C_RDWR write")
                guard let first = bytes.first else { continue }
                pointer = first
                if bytes.count > 1 { t.chip.write(register: first, bytes: Array(bytes.dropFirst()), at: t.end) }
            case .read(let count):
                let t = try bus.transfer(address, bits: 20 + 9 * count, call: "I2C_RDWR read")
                results.append(t.chip.read(register: pointer, count: count, at: t.end))
            }
        }
        return results
    }
}
