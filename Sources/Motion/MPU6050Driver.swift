import Hardware

/// Register driver for the InvenSense MPU-6050 / 6500 / 9250 (register map in hardware-facts.md).
///
/// FIFO mode: accel X/Y/Z then gyro X/Y/Z, big-endian signed 16-bit, 12 bytes per sample, read
/// from FIFO_R_W (0x74) in 32-byte SMBus block reads (the FIFO is a byte stream, so chunks need
/// not align with samples). Overflow is read from INT_STATUS (0x3A, FIFO_OFLOW_INT, cleared on
/// read); after an overflow the stream is misaligned, so the FIFO is reset.
final class MPU6050Driver: IMUChipDriver {
    enum Register {
        static let sampleRateDivider: UInt8 = 0x19, config: UInt8 = 0x1A
        static let gyroConfig: UInt8 = 0x1B, accelConfig: UInt8 = 0x1C, fifoEnable: UInt8 = 0x23
        static let interruptEnable: UInt8 = 0x38, interruptStatus: UInt8 = 0x3A
        static let userControl: UInt8 = 0x6A, powerManagement1: UInt8 = 0x6B
        static let fifoCount: UInt8 = 0x72, fifoData: UInt8 = 0x74
    }
    static let bytesPerSample = 12
    /// Samples read per drain at most, so one drain stays short (≈ 12 ms at 400 kHz).
    static let maximumSamplesPerDrain = 64

    let model: IMUChipModel
    private(set) var sampleRateHertz: Double = 500
    private var scales = FullScales()

    init(model: IMUChipModel) { self.model = model }

    /// FIFO size in bytes: 1024 on the MPU-6050, 512 (the default) on the 6500 and 9250.
    var fifoCapacityBytes: Int { model == .mpu6050 ? 1024 : 512 }
    var fifoDepthSamples: Int { fifoCapacityBytes / Self.bytesPerSample }

    func configure(_ device: any I2CDevice, _ c: IMUConfiguration) throws {
        try device.writeByte(register: Register.powerManagement1, value: 0x01)  // awake, PLL on gyro X
        // DLPF: the bandwidth nearest the request; with DLPF on the gyro output rate is 1 kHz.
        let filter = nearestLowPass([(1, 188), (2, 98), (3, 42), (4, 20), (5, 10), (6, 5)], to: c.lowPassHertz)
        try device.writeByte(register: Register.config, value: filter)
        let divider = max(0, min(255, Int((1000 / max(c.rateHertz, 4)).rounded(.down)) - 1))
        try device.writeByte(register: Register.sampleRateDivider, value: UInt8(divider))
        sampleRateHertz = 1000 / Double(divider + 1)
        let g = scales.chooseGyro(covering: c.gyroRangeDegreesPerSecond)
        try device.writeByte(register: Register.gyroConfig, value: UInt8(g) << 3)
        let a = scales.chooseAccel(covering: c.accelRangeG, from: [2, 4, 8, 16])
        try device.writeByte(register: Register.accelConfig, value: UInt8(a) << 3)
        try device.writeByte(register: Register.interruptEnable, value: 0x11)  // FIFO overflow, data ready
        try device.writeByte(register: Register.fifoEnable, value: 0x78)       // XG YG ZG ACCEL
        try resetFIFO(device)
    }

    func resetFIFO(_ device: any I2CDevice) throws {
        try device.writeByte(register: Register.userControl, value: 0x04)  // FIFO_RESET
        try device.writeByte(register: Register.userControl, value: 0x40)  // FIFO_EN
        _ = try device.readByte(register: Register.interruptStatus)        // clear latched flags
    }

    func drain(_ device: any I2CDevice, clock: () -> MonotonicTime) throws -> ChipDrain {
        var result = ChipDrain()
        let status = try device.readByte(register: Register.interruptStatus)
        if status & 0x10 != 0 {
            try resetFIFO(device)
            result.overflowed = true
            return result
        }
        let (countBytes, countTime) = try sampled(clock) { try device.readBlock(register: Register.fifoCount, count: 2) }
        result.countSampledAt = countTime
        guard countBytes.count == 2 else { throw ShortRead(expected: 2, got: countBytes.count) }
        let count = Int(countBytes[0]) << 8 | Int(countBytes[1])
        if count > fifoCapacityBytes {
            try resetFIFO(device)
            result.resynchronised = true
            return result
        }
        let available = count / Self.bytesPerSample
        let samples = min(available, Self.maximumSamplesPerDrain)
        result.leftInFIFO = available - samples
        guard samples > 0 else { return result }
        let bytes: [UInt8]
        do {
            bytes = try readFIFOBytes(device, register: Register.fifoData,
                                      count: samples * Self.bytesPerSample, chunk: i2cBlockMaxBytes)
        } catch is ShortRead {
            try resetFIFO(device)   // the stream position is unknown now
            result.resynchronised = true
            result.leftInFIFO = 0
            return result
        }
        result.readings.reserveCapacity(samples)
        for s in 0..<samples {
            let base = s * Self.bytesPerSample
            result.readings.append(RawIMUReading(gyro: scales.gyro(counts16(bytes, at: base + 6, bigEndian: true)),
                                                 accel: scales.accel(counts16(bytes, at: base, bigEndian: true))))
        }
        return result
    }
}
