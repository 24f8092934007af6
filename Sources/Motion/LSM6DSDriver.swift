import Hardware

/// Register driver for the ST LSM6DSO (tagged FIFO) and LSM6DS3 (output registers only).
///
/// LSM6DSO: gyro and accel batched at the output rate into the tagged FIFO; each word is 7 bytes
/// (tag, then X/Y/Z little-endian signed 16-bit) read from FIFO_DATA_OUT_TAG (0x78); the address
/// rolls back from 0x7E to 0x78, so reads take 4 words (28 bytes) per SMBus block. FIFO_STATUS1/2
/// (0x3A/0x3B) give the word count (10 bits) and FIFO_OVR_IA (bit 6 of 0x3B).
/// LSM6DS3: its FIFO (pattern-based, at 0x3E) is not driven yet; the driver reads the output
/// registers (0x22–0x2D) once per poll or data-ready edge, so the delivered rate is the poll rate.
final class LSM6DSDriver: IMUChipDriver {
    enum Register {
        static let fifoControl3: UInt8 = 0x09, fifoControl4: UInt8 = 0x0A
        static let control1Accel: UInt8 = 0x10, control2Gyro: UInt8 = 0x11, control3: UInt8 = 0x12
        static let control4: UInt8 = 0x13, control6: UInt8 = 0x15
        static let status: UInt8 = 0x1E, gyroOutput: UInt8 = 0x22
        static let fifoStatus1: UInt8 = 0x3A, fifoDataTag: UInt8 = 0x78
    }
    static let bytesPerWord = 7
    static let wordsPerBlock = 4
    static let maximumWordsPerDrain = 128

    let model: IMUChipModel
    private(set) var outputRateHertz: Double = 833
    private var gyroRadiansPerLSB = 0.0
    private var accelMetresPerSecondSquaredPerLSB = 0.0
    /// The last accelerometer word, paired with following gyro words.
    private var lastAccel = Vector3.zero
    /// The poll interval, which is the delivered rate for the LSM6DS3 (no FIFO).
    var directPollHertz: Double = 100

    init(model: IMUChipModel) { self.model = model }

    var usesFIFO: Bool { model == .lsm6dso }
    /// 512 words, gyro and accel each one word per sample.
    var fifoDepthSamples: Int { usesFIFO ? 256 : Int.max }
    var sampleRateHertz: Double { usesFIFO ? outputRateHertz : min(outputRateHertz, directPollHertz) }

    func configure(_ device: any I2CDevice, _ c: IMUConfiguration) throws {
        try device.writeByte(register: Register.control3, value: 0x44)  // BDU, IF_INC
        let rates: [Double] = [12.5, 26, 52, 104, 208, 416, 833, 1666, 3332, 6667]
        let r = rates.firstIndex { $0 >= c.rateHertz } ?? rates.count - 1
        let odr = UInt8(r + 1)
        outputRateHertz = rates[r]
        // Accel FS codes: 00 ±2 g, 10 ±4 g, 11 ±8 g, 01 ±16 g.
        let accel: [(g: Double, code: UInt8)] = [(2, 0), (4, 2), (8, 3), (16, 1)]
        let a = accel.first { $0.g >= c.accelRangeG } ?? accel[3]
        try device.writeByte(register: Register.control1Accel, value: odr << 4 | a.code << 2)
        accelMetresPerSecondSquaredPerLSB = a.g / 32768 * standardGravity
        // Gyro FS codes: 00 250, 01 500, 10 1000, 11 2000 °/s.
        let gyro: [Double] = [250, 500, 1000, 2000]
        let g = gyro.firstIndex { $0 >= c.gyroRangeDegreesPerSecond } ?? 3
        try device.writeByte(register: Register.control2Gyro, value: odr << 4 | UInt8(g) << 2)
        gyroRadiansPerLSB = gyro[g] / 32768 * .pi / 180
        // Gyro LPF1 (CTRL4_C LPF1_SEL_G, CTRL6_C FTYPE); corners at 833 Hz ODR (unverified).
        let corners: [(code: UInt8, hertz: Double)] = [(0, 245), (1, 195), (2, 155), (3, 293), (4, 78), (5, 53)]
        let f = corners.min { abs($0.hertz - c.lowPassHertz) < abs($1.hertz - c.lowPassHertz) } ?? (4, 78)
        try device.writeByte(register: Register.control4, value: 0x02)
        try device.writeByte(register: Register.control6, value: f.code)
        directPollHertz = 1 / c.pollInterval.secondsValue
        if usesFIFO {
            try device.writeByte(register: Register.fifoControl3, value: odr << 4 | odr)  // BDR_GY, BDR_XL
            try resetFIFO(device)
        }
    }

    func resetFIFO(_ device: any I2CDevice) throws {
        guard usesFIFO else { return }
        try device.writeByte(register: Register.fifoControl4, value: 0x00)  // bypass: empties
        try device.writeByte(register: Register.fifoControl4, value: 0x06)  // continuous
    }

    func drain(_ device: any I2CDevice, clock: () -> MonotonicTime) throws -> ChipDrain {
        usesFIFO ? try drainFIFO(device, clock) : try readOutputRegisters(device, clock)
    }

    private func drainFIFO(_ device: any I2CDevice, _ clock: () -> MonotonicTime) throws -> ChipDrain {
        var result = ChipDrain()
        let (status, statusTime) = try sampled(clock) { try device.readBlock(register: Register.fifoStatus1, count: 2) }
        result.countSampledAt = statusTime
        guard status.count == 2 else { throw ShortRead(expected: 2, got: status.count) }
        if status[1] & 0x40 != 0 {
            try resetFIFO(device)
            result.overflowed = true
            return result
        }
        let words = Int(status[0]) | Int(status[1] & 0x03) << 8
        let take = min(words, Self.maximumWordsPerDrain)
        result.leftInFIFO = (words - take) / 2
        var remaining = take
        while remaining > 0 {
            let n = min(Self.wordsPerBlock, remaining)
            let bytes = try device.readBlock(register: Register.fifoDataTag, count: n * Self.bytesPerWord)
            guard bytes.count == n * Self.bytesPerWord else {
                try resetFIFO(device)
                result.resynchronised = true
                result.leftInFIFO = 0
                return result
            }
            for w in 0..<n { decodeWord(bytes, at: w * Self.bytesPerWord, into: &result) }
            remaining -= n
        }
        return result
    }

    private func decodeWord(_ b: [UInt8], at i: Int, into result: inout ChipDrain) {
        func value(_ k: Int) -> Double {
            Double(Int16(bitPattern: UInt16(b[i + 1 + 2 * k]) | UInt16(b[i + 2 + 2 * k]) << 8))
        }
        let v = Vector3(value(0), value(1), value(2))
        switch b[i] >> 3 {
        case 0x01: result.readings.append(RawIMUReading(gyro: v * gyroRadiansPerLSB, accel: lastAccel))
        case 0x02: lastAccel = v * accelMetresPerSecondSquaredPerLSB
        default: break  // timestamp, temperature and other tags are not batched
        }
    }

    private func readOutputRegisters(_ device: any I2CDevice, _ clock: () -> MonotonicTime) throws -> ChipDrain {
        var result = ChipDrain()
        let (status, statusTime) = try sampled(clock) { try device.readByte(register: Register.status) }
        result.countSampledAt = statusTime
        guard status & 0x02 != 0 else { return result }  // GDA: no new gyro sample
        let b = try device.readBlock(register: Register.gyroOutput, count: 12)
        guard b.count == 12 else { throw ShortRead(expected: 12, got: b.count) }
        func value(_ k: Int) -> Double { Double(Int16(bitPattern: UInt16(b[2 * k]) | UInt16(b[2 * k + 1]) << 8)) }
        result.readings.append(RawIMUReading(
            gyro: Vector3(value(0), value(1), value(2)) * gyroRadiansPerLSB,
            accel: Vector3(value(3), value(4), value(5)) * accelMetresPerSecondSquaredPerLSB))
        return result
    }
}
