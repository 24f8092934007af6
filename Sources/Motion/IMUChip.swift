import Hardware

/// The IMU chips the I2C driver knows, with their WHO_AM_I values (hardware-facts.md).
public enum IMUChipModel: String, Sendable, Codable, CaseIterable {
    case mpu6050, mpu6500, mpu9250, lsm6dso, lsm6ds3

    /// The register holding the identity byte.
    public var whoAmIRegister: UInt8 { isInvenSense ? 0x75 : 0x0F }
    /// The identity byte the chip answers.
    public var whoAmI: UInt8 {
        switch self {
        case .mpu6050: 0x68
        case .mpu6500: 0x70
        case .mpu9250: 0x71
        case .lsm6dso: 0x6C
        case .lsm6ds3: 0x69
        }
    }
    /// The 7-bit addresses the chip can sit at (AD0 / SA0 pin).
    public var addresses: [UInt8] { isInvenSense ? [0x68, 0x69] : [0x6A, 0x6B] }
    public var isInvenSense: Bool { self == .mpu6050 || self == .mpu6500 || self == .mpu9250 }

    /// Every address any known chip may use, in probe order.
    public static let probeAddresses: [UInt8] = [0x68, 0x69, 0x6A, 0x6B]

    /// Reads WHO_AM_I on `device` and names the chip; throws `.notFound` for an unknown answer.
    /// Transfers: one SMBus read byte per candidate register (0x75, then 0x0F).
    public static func identify(_ device: any I2CDevice) throws -> IMUChipModel {
        var answers: [String] = []
        for register in [UInt8(0x75), 0x0F] {
            let value = try device.readByte(register: register)
            if let model = allCases.first(where: { $0.whoAmIRegister == register && $0.whoAmI == value }) {
                return model
            }
            answers.append(String(format: "0x%02X=0x%02X", register, value))
        }
        throw HardwareError(.notFound, "\(device.name): WHO_AM_I not a known IMU (\(answers.joined(separator: ", ")))")
    }

    /// Probes `addresses` through `open` (which returns the device at an address, or throws when
    /// nothing answers) and returns the first known chip found.
    public static func detect(
        addresses: [UInt8] = probeAddresses, open: (UInt8) throws -> any I2CDevice
    ) throws -> (device: any I2CDevice, model: IMUChipModel) {
        var failures: [String] = []
        for address in addresses {
            do {
                let device = try open(address)
                return (device, try identify(device))
            } catch {
                failures.append(String(format: "0x%02X: ", address) + "\(error)")
            }
        }
        throw HardwareError(.notFound, "no IMU found (\(failures.joined(separator: "; ")))")
    }
}

/// What the driver asks of the chip. Ranges are rounded up to the nearest the chip offers.
public struct IMUConfiguration: Hashable, Sendable {
    /// Output data rate, Hz (the chip picks the nearest it has at or above).
    public var rateHertz: Double = 500
    /// Gyro full scale, °/s.
    public var gyroRangeDegreesPerSecond: Double = 1000
    /// Accelerometer full scale, g.
    public var accelRangeG: Double = 4
    /// Low-pass corner, Hz (digital low-pass filter of the chip).
    public var lowPassHertz: Double = 100
    /// The board's mounting of the IMU relative to the sensor.
    public var axisMapping: AxisMapping = .identity
    /// How often the FIFO is drained when no data-ready line is wired.
    public var pollInterval: Duration = .milliseconds(10)
    /// First retry delay after a fault; doubles up to `retryMaximum`.
    public var retryInitial: Duration = .milliseconds(50)
    public var retryMaximum: Duration = .seconds(2)
    /// When set, a different WHO_AM_I is a fault (the board says which chip is fitted).
    public var expectedModel: IMUChipModel? = nil

    public init() {}
}

/// One reading in the IMU's own frame, SI units (rad/s, m/s²).
public struct RawIMUReading: Sendable, Hashable {
    public var gyro: Vector3
    public var accel: Vector3
}

/// What one drain of the chip returned.
struct ChipDrain {
    var readings: [RawIMUReading] = []
    /// The FIFO overflowed since the previous drain: samples were lost, the stream was reset.
    var overflowed = false
    /// A short read or an unaligned count: data was dropped and the FIFO reset.
    var resynchronised = false
    /// Samples still in the FIFO when the count was read (for timestamping: the newest of the
    /// readings is this many samples older than the newest sample on the chip).
    var leftInFIFO = 0
    /// When the FIFO count was sampled: the midpoint of the clock before and after its read.
    var countSampledAt: MonotonicTime?
}

/// The midpoint of `clock()` around `body`, for stamping when a register was sampled.
func sampled<T>(_ clock: () -> MonotonicTime, _ body: () throws -> T) rethrows -> (T, MonotonicTime) {
    let before = clock()
    let value = try body()
    let after = clock()
    return (value, before + (after - before) / 2)
}

/// A chip-specific register driver. All calls are synchronous I2C transfers on the caller's thread.
protocol IMUChipDriver: AnyObject {
    var model: IMUChipModel { get }
    /// Actual output rate after configuration, Hz.
    var sampleRateHertz: Double { get }
    /// Samples the FIFO holds before it overflows (Int.max without a FIFO).
    var fifoDepthSamples: Int { get }
    /// Resets the chip and applies `configuration`, leaving the FIFO running and empty.
    func configure(_ device: any I2CDevice, _ configuration: IMUConfiguration) throws
    /// Reads everything the FIFO holds (in ≤ 32-byte SMBus block reads).
    func drain(_ device: any I2CDevice, clock: () -> MonotonicTime) throws -> ChipDrain
    /// Empties the FIFO and restarts it.
    func resetFIFO(_ device: any I2CDevice) throws
}

/// Chooses the driver for a model.
func makeChipDriver(_ model: IMUChipModel) -> any IMUChipDriver {
    model.isInvenSense ? MPU6050Driver(model: model) : LSM6DSDriver(model: model)
}

/// Standard gravity, m/s² per g.
public let standardGravity = 9.80665

/// The full scales a driver chose for a configuration, as units per count: for each sensor the
/// smallest range that covers what the configuration asks, else the largest.
struct FullScales {
    /// The gyro ranges both chip families offer, °/s, in the order of their register codes.
    static let gyroRangesDegreesPerSecond: [Double] = [250, 500, 1000, 2000]
    private(set) var gyroRadiansPerSecondPerLSB = 0.0
    private(set) var accelMetresPerSecondSquaredPerLSB = 0.0

    /// Chooses the gyro range for `degreesPerSecond`; returns its index (its register code).
    mutating func chooseGyro(covering degreesPerSecond: Double) -> Int {
        let ranges = Self.gyroRangesDegreesPerSecond
        let i = ranges.firstIndex { $0 >= degreesPerSecond } ?? ranges.count - 1
        gyroRadiansPerSecondPerLSB = ranges[i] / 32768 * .pi / 180
        return i
    }

    /// Chooses from `rangesG` (ascending) the accelerometer range for `g`; returns its index.
    mutating func chooseAccel(covering g: Double, from rangesG: [Double]) -> Int {
        let i = rangesG.firstIndex { $0 >= g } ?? rangesG.count - 1
        accelMetresPerSecondSquaredPerLSB = rangesG[i] / 32768 * standardGravity
        return i
    }

    /// Gyro counts → rad/s.
    func gyro(_ counts: Vector3) -> Vector3 { counts * gyroRadiansPerSecondPerLSB }
    /// Accelerometer counts → m/s².
    func accel(_ counts: Vector3) -> Vector3 { counts * accelMetresPerSecondSquaredPerLSB }
}

/// The low-pass filter setting whose corner is nearest `hertz`, from a chip's table of codes.
func nearestLowPass(_ table: [(code: UInt8, hertz: Double)], to hertz: Double) -> UInt8 {
    table.min { abs($0.hertz - hertz) < abs($1.hertz - hertz) }?.code ?? table[0].code
}

/// Three signed 16-bit counts (X, Y, Z) from `bytes` at `offset`, in the chip's byte order.
func counts16(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> Vector3 {
    func count(_ k: Int) -> Double {
        let first = UInt16(bytes[offset + 2 * k]), second = UInt16(bytes[offset + 2 * k + 1])
        return Double(Int16(bitPattern: bigEndian ? first << 8 | second : second << 8 | first))
    }
    return Vector3(count(0), count(1), count(2))
}

/// Reads `count` bytes from a FIFO data register in block reads of at most `chunk` bytes,
/// throwing `.io` on a short read (the caller resynchronises).
func readFIFOBytes(_ device: any I2CDevice, register: UInt8, count: Int, chunk: Int) throws -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    while bytes.count < count {
        let n = min(chunk, count - bytes.count)
        let got = try device.readBlock(register: register, count: n)
        if got.count != n {
            throw ShortRead(expected: n, got: got.count)
        }
        bytes += got
    }
    return bytes
}

/// A block read that returned fewer bytes than asked.
struct ShortRead: Error { var expected: Int; var got: Int }

import Foundation  // String(format:)
