import Hardware
import Motion

/// An LSM6DSO (or LSM6DS3) at register level: WHO_AM_I, CTRL3_C software reset and IF_INC,
/// ODR and full scale in CTRL1_XL/CTRL2_G, little-endian output registers with STATUS_REG, and
/// (LSM6DSO) the tagged FIFO: BDR in FIFO_CTRL3, mode in FIFO_CTRL4 (bypass empties, continuous
/// overwrites the oldest word and sets FIFO_OVR_IA), FIFO_STATUS1/2 word count, 7-byte words read
/// from 0x78–0x7E with the address rolling back to 0x78 as each word is consumed; (LSM6DS3) the
/// pattern FIFO: decimation in FIFO_CTRL3 (0x08), ODR and mode in FIFO_CTRL5 (0x0A), 16-bit words
/// Gx Gy Gz XLx XLy XLz read from FIFO_DATA_OUT_L/H (0x3E/0x3F, rolling back to 0x3E),
/// FIFO_STATUS1–4 (0x3A–0x3D: 12-bit word count, OVER_RUN, pattern index).
public final class SimulatedLSM6DSO: SimulatedI2CChip, SimulatedSampleSource, @unchecked Sendable {
    public let model: IMUChipModel
    public var whoAmIOverride: UInt8?
    /// True times of gyro samples pushed to the FIFO since its last reset or overrun (when recording).
    public private(set) var fifoSampleTimes: [MonotonicTime] = []
    public private(set) var overflowCount = 0
    /// FIFO depth in words (LSM6DSO 7-byte tagged words; LSM6DS3 16-bit words, 8 KB).
    public var fifoCapacityWords: Int { tagged ? 512 : 4096 }
    /// Words read out of the LSM6DS3 FIFO since its reset (its pattern index is this mod 6).
    private var popped = 0
    private var registers = [UInt8](repeating: 0, count: 128)
    private var words: [[UInt8]] = []
    private var wordHead = 0
    private var overrun = false
    private var sampling: ChipSampling
    private static let rates: [Double] = [0, 12.5, 26, 52, 104, 208, 416, 833, 1666, 3332, 6667]

    public var sampleSchedule: (next: MonotonicTime, step: Duration)? { sampling.schedule }

    public init(model: IMUChipModel = .lsm6dso, truth: any MotionTruth, traits: SimulatedIMUChipTraits = SimulatedIMUChipTraits()) {
        self.model = model
        sampling = ChipSampling(truth: truth, traits: traits)
        reset()
    }

    public var fifoWordCount: Int { words.count - wordHead }
    private var hasFIFO: Bool { model == .lsm6dso || model == .lsm6ds3 }
    private var tagged: Bool { model == .lsm6dso }

    private func reset() {
        registers = [UInt8](repeating: 0, count: 128)
        registers[0x0F] = model.whoAmI
        registers[0x12] = 0x04
        clearFIFO()
        sampling.clock.stop()
    }

    private func clearFIFO() {
        words.removeAll(keepingCapacity: true); wordHead = 0; popped = 0; overrun = false; fifoSampleTimes.removeAll()
    }

    public func write(register: UInt8, bytes: [UInt8], at time: MonotonicTime) {
        produce(upTo: time)
        burstWrite(register, bytes, before: 0x78) { r, value in
            switch r {
            case 0x12:
                if value & 0x01 != 0 { reset(); return }
                registers[r] = value
            case 0x11:
                registers[r] = value
                let rate = Self.rates[min(Int(value >> 4), 10)]
                if rate > 0 { sampling.clock.start(at: time, periodSeconds: 1 / rate) } else { sampling.clock.stop() }
            case 0x0A:
                registers[r] = value
                if value & 0x07 == 0 { clearFIFO() }
            case 0x0F, 0x3A, 0x3B: break
            default: registers[r] = value
            }
        }
    }

    public func read(register: UInt8, count: Int, at time: MonotonicTime) -> [UInt8] {
        produce(upTo: time)
        let step = registers[0x12] & 0x04 != 0 ? 1 : 0  // IF_INC
        let next = { [hasFIFO, tagged] (r: Int) -> Int in
            switch r {
            case 0x3F where hasFIFO && !tagged: 0x3E  // word consumed; roll back to the low byte
            case 0x7E where tagged: 0x78              // word consumed; roll back to the tag
            default: r + step
            }
        }
        return burstRead(register, count: count, next: next) { r in
            switch r {
            case 0x0F: return whoAmIOverride ?? model.whoAmI
            case 0x3A: return UInt8(fifoWordCount & 0xFF)
            case 0x3B:
                let full: UInt8 = fifoWordCount >= fifoCapacityWords ? 0x20 : 0
                let high = UInt8((fifoWordCount >> 8) & (tagged ? 0x03 : 0x0F))
                defer { overrun = false }
                return (overrun ? 0x40 : 0) | full | (!tagged && fifoWordCount == 0 ? 0x10 : 0) | high
            case 0x3C where !tagged: return UInt8((popped % 6) & 0xFF)
            case 0x3D where !tagged: return 0
            case 0x3E...0x3F where hasFIFO && !tagged:
                defer { if r == 0x3F { consumeWord() } }
                return wordHead < words.count ? words[wordHead][r - 0x3E] : 0
            case 0x78...0x7E where tagged:
                defer { if r == 0x7E { consumeWord() } }
                return wordHead < words.count ? words[wordHead][r - 0x78] : 0
            case 0x22...0x2D:
                registers[0x1E] &= ~0x03
                return registers[r]
            case 0..<128: return registers[r]
            default: return 0
            }
        }
    }

    /// The word at the head has been read out.
    private func consumeWord() {
        if wordHead < words.count { wordHead += 1; popped += 1 }
        if wordHead > 4096 { words.removeFirst(wordHead); wordHead = 0 }
    }

    private func produce(upTo time: MonotonicTime) {
        let (samples, skipped) = sampling.samples(
            upTo: time, limit: fifoCapacityWords / 2 + 2,
            gyroRadiansPerSecondPerLSB: [250.0, 500, 1000, 2000][Int(registers[0x11] >> 2) & 3] / 32768 * .pi / 180,
            accelMetresPerSecondSquaredPerLSB: [2.0, 16, 4, 8][Int(registers[0x10] >> 2) & 3] / 32768 * 9.80665)
        let mode = registers[0x0A] & 0x07
        if skipped > 0, hasFIFO, mode != 0 { markOverrun() }
        for sample in samples {
            let t = sample.time, gyro = sample.gyro, accel = sample.accel
            func le(_ v: [Int16]) -> [UInt8] { v.flatMap { [UInt8(UInt16(bitPattern: $0) & 0xFF), UInt8(UInt16(bitPattern: $0) >> 8)] } }
            let gyroBytes = le(gyro), accelBytes = le(accel)
            for k in 0..<6 { registers[0x22 + k] = gyroBytes[k]; registers[0x28 + k] = accelBytes[k] }
            registers[0x1E] |= 0x03
            guard hasFIFO, mode == 6 || mode == 1 else { continue }
            if !tagged {
                pushPattern(gyroBytes + accelBytes, mode: mode, at: t)
                continue
            }
            var batch: [[UInt8]] = []
            if registers[0x09] & 0x0F != 0 { batch.append([0x02 << 3] + accelBytes) }
            if registers[0x09] >> 4 != 0 { batch.append([0x01 << 3] + gyroBytes) }
            for word in batch {
                if fifoWordCount >= fifoCapacityWords {
                    if mode == 1 { markOverrun(); continue }  // FIFO mode stops when full
                    wordHead += 1
                    markOverrun()
                }
                words.append(word)
                if word[0] >> 3 == 0x01, sampling.traits.recordsSampleTimes { fifoSampleTimes.append(t) }
            }
        }
    }

    /// LSM6DS3: one Gx Gy Gz XLx XLy XLz set, when both are batched undecimated at a FIFO ODR.
    private func pushPattern(_ bytes: [UInt8], mode: UInt8, at t: MonotonicTime) {
        guard registers[0x08] & 0x3F == 0x09, (registers[0x0A] >> 3) & 0x0F != 0 else { return }
        if fifoWordCount + 6 > fifoCapacityWords {
            markOverrun()
            if mode == 1 { return }  // FIFO mode stops when full
            wordHead += 6            // continuous: the oldest set is overwritten
        }
        for k in 0..<6 { words.append([bytes[2 * k], bytes[2 * k + 1]]) }
        if sampling.traits.recordsSampleTimes { fifoSampleTimes.append(t) }
    }

    private func markOverrun() {
        if !overrun { overflowCount += 1 }
        overrun = true
        fifoSampleTimes.removeAll()  // the record no longer matches what the driver will see
    }
}
