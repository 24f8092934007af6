import Hardware

/// Register driver for the ST LSM6DSO (tagged FIFO) and LSM6DS3 (pattern FIFO).
///
/// LSM6DSO: gyro and accel batched at the output rate into the tagged FIFO; each word is 7 bytes
/// (tag, then X/Y/Z little-endian signed 16-bit) read from FIFO_DATA_OUT_TAG (0x78); the address
/// rolls back from 0x7E to 0x78, so reads take 4 words (28 bytes) per SMBus block. FIFO_STATUS1/2
/// (0x3A/0x3B) give the word count (10 bits) and FIFO_OVR_IA (bit 6 of 0x3B).
/// LSM6DS3: the pattern FIFO: gyro and accel undecimated (FIFO_CTRL3 0x08), FIFO ODR and
/// continuous mode in FIFO_CTRL5 (0x0A); 16-bit little-endian words Gx Gy Gz XLx XLy XLz read from
/// FIFO_DATA_OUT_L (0x3E, rolling back from 0x3F) in 32-byte blocks; FIFO_STATUS1–4 (0x3A–0x3D)
/// give the word count (12 bits), OVER_RUN (bit 6 of 0x3B) and the pattern index, which must be 0
/// at a sample boundary (else the FIFO is reset).
final class LSM6DSDriver: IMUChipDriver {
    enum Register {
        static let fifoControl3: UInt8 = 0x09, fifoControl4: UInt8 = 0x0A
        static let control1Accel: UInt8 = 0x10, control2Gyro: UInt8 = 0x11, control3: UInt8 = 0x12
        static let control4: UInt8 = 0x13, control6: UInt8 = 0x15
        static let fifoStatus1: UInt8 = 0x3A, fifoDataTag: UInt8 = 0x78
    }
    static let bytesPerWord = 7
    static let wordsPerBlock = 4
    static let maximumWordsPerDrain = 128

    let model: IMUChipModel
    private(set) var outputRateHertz: Double = 833
    private var scales = FullScales()
    /// The last accelerometer word, paired with following gyro words.
    private var lastAccel = Vector3.zero

    init(model: IMUChipModel) { self.model = model }

    var usesFIFO: Bool { true }
    private var tagged: Bool { model == .lsm6dso }
    /// LSM6DSO: 512 words, gyro and accel one word each per sample. LSM6DS3: 8 KB, 12 bytes a sample.
    var fifoDepthSamples: Int { tagged ? 256 : 682 }
    var sampleRateHertz: Double { outputRateHertz }

    func configure(_ device: any I2CDevice, _ c: IMUConfiguration) throws {
        try device.writeByte(register: Register.control3, value: 0x44)  // BDU, IF_INC
        let rates: [Double] = [12.5, 26, 52, 104, 208, 416, 833, 1666, 3332, 6667]
        let r = rates.firstIndex { $0 >= c.rateHertz } ?? rates.count - 1
        let odr = UInt8(r + 1)
        outputRateHertz = rates[r]
        // Accel FS codes for ±2, 4, 8, 16 g: 00, 10, 11, 01.
        let a = scales.chooseAccel(covering: c.accelRangeG, from: [2, 4, 8, 16])
        try device.writeByte(register: Register.control1Accel, value: odr << 4 | [0, 2, 3, 1][a] << 2)
        // Gyro FS codes: 00 250, 01 500, 10 1000, 11 2000 °/s.
        let g = scales.chooseGyro(covering: c.gyroRangeDegreesPerSecond)
        try device.writeByte(register: Register.control2Gyro, value: odr << 4 | UInt8(g) << 2)
        // Gyro LPF1 (CTRL4_C LPF1_SEL_G, CTRL6_C FTYPE); corners at 833 Hz ODR (unverified).
        let filter = nearestLowPass([(0, 245), (1, 195), (2, 155), (3, 293), (4, 78), (5, 53)], to: c.lowPassHertz)
        try device.writeByte(register: Register.control4, value: 0x02)
        try device.writeByte(register: Register.control6, value: filter)
        if tagged {
            try device.writeByte(register: Register.fifoControl3, value: odr << 4 | odr)  // BDR_GY, BDR_XL
        } else {
            try device.writeByte(register: 0x08, value: 0x09)  // DEC_FIFO_GYRO = DEC_FIFO_XL = 1 (no decimation)
        }
        fifoODRCode = odr
        try resetFIFO(device)
    }

    private var fifoODRCode: UInt8 = 7

    func resetFIFO(_ device: any I2CDevice) throws {
        // LSM6DSO FIFO_CTRL4 and LSM6DS3 FIFO_CTRL5 are both 0x0A with the mode in bits 2:0;
        // the LSM6DS3 also takes the FIFO ODR in bits 6:3.
        let rate: UInt8 = tagged ? 0 : fifoODRCode << 3
        try device.writeByte(register: Register.fifoControl4, value: rate)         // bypass: empties
        try device.writeByte(register: Register.fifoControl4, value: rate | 0x06)  // continuous
    }

    func drain(_ device: any I2CDevice, clock: () -> MonotonicTime) throws -> ChipDrain {
        tagged ? try drainFIFO(device, clock) : try drainPatternFIFO(device, clock)
    }

    /// LSM6DS3 pattern FIFO.
    private func drainPatternFIFO(_ device: any I2CDevice, _ clock: () -> MonotonicTime) throws -> ChipDrain {
        var result = ChipDrain()
        let (status, statusTime) = try sampled(clock) { try device.readBlock(register: Register.fifoStatus1, count: 4) }
        guard status.count == 4 else { throw ShortRead(expected: 4, got: status.count) }
        result.countSampledAt = statusTime
        let words = Int(status[0]) | Int(status[1] & 0x0F) << 8
        let pattern = Int(status[2]) | Int(status[3] & 0x03) << 8
        if status[1] & 0x40 != 0 || (words > 0 && pattern != 0) {
            try resetFIFO(device)
            if status[1] & 0x40 != 0 { result.overflowed = true } else { result.resynchronised = true }
            return result
        }
        let available = words / 6
        let samples = min(available, 64)
        result.leftInFIFO = available - samples
        guard samples > 0 else { return result }
        let bytes = try readFIFOBytes(device, register: 0x3E, count: samples * 12, chunk: i2cBlockMaxBytes)
        for k in 0..<samples {
            result.readings.append(RawIMUReading(gyro: scales.gyro(counts16(bytes, at: k * 12, bigEndian: false)),
                                                 accel: scales.accel(counts16(bytes, at: k * 12 + 6, bigEndian: false))))
        }
        return result
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
        let v = counts16(b, at: i + 1, bigEndian: false)
        switch b[i] >> 3 {
        case 0x01: result.readings.append(RawIMUReading(gyro: scales.gyro(v), accel: lastAccel))
        case 0x02: lastAccel = scales.accel(v)
        default: break  // timestamp, temperature and other tags are not batched
        }
    }
}
