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
    private var clock: SampleClock
    private var sampler: TruthSampler
    private let traits: SimulatedIMUChipTraits
    private static let rates: [Double] = [0, 12.5, 26, 52, 104, 208, 416, 833, 1666, 3332, 6667]

    public var sampleSchedule: (next: MonotonicTime, step: Duration)? {
        clock.periodSeconds > 0 ? (clock.next, clock.step) : nil
    }

    public init(model: IMUChipModel = .lsm6dso, truth: any MotionTruth, traits: SimulatedIMUChipTraits = SimulatedIMUChipTraits()) {
        self.model = model
        self.traits = traits
        clock = SampleClock(clockError: traits.clockErrorPartsPerMillion)
        sampler = TruthSampler(truth: truth, traits: traits)
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
        clock.stop()
    }

    private func clearFIFO() {
        words.removeAll(keepingCapacity: true); wordHead = 0; popped = 0; overrun = false; fifoSampleTimes.removeAll()
    }

    public func write(register: UInt8, bytes: [UInt8], at time: MonotonicTime) {
        produce(upTo: time)
        for (i, value) in bytes.enumerated() {
            let r = Int(register) + i
            guard r < 0x78 else { break }
            switch r {
            case 0x12:
                if value & 0x01 != 0 { reset(); continue }
                registers[r] = value
            case 0x11:
                registers[r] = value
                let rate = Self.rates[min(Int(value >> 4), 10)]
                if rate > 0 { clock.start(at: time, periodSeconds: 1 / rate) } else { clock.stop() }
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
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var r = Int(register)
        let increments = registers[0x12] & 0x04 != 0
        for _ in 0..<count {
            switch r {
            case 0x0F: out.append(whoAmIOverride ?? model.whoAmI)
            case 0x3A: out.append(UInt8(fifoWordCount & 0xFF))
            case 0x3B:
                let full: UInt8 = fifoWordCount >= fifoCapacityWords ? 0x20 : 0
                let high = UInt8((fifoWordCount >> 8) & (tagged ? 0x03 : 0x0F))
                out.append((overrun ? 0x40 : 0) | full | (!tagged && fifoWordCount == 0 ? 0x10 : 0) | high)
                overrun = false
            case 0x3C where !tagged: out.append(UInt8((popped % 6) & 0xFF))
            case 0x3D where !tagged: out.append(0)
            case 0x3E...0x3F where hasFIFO && !tagged:
                out.append(wordHead < words.count ? words[wordHead][r - 0x3E] : 0)
                if r == 0x3F {  // word consumed; roll back to the low byte
                    if wordHead < words.count { wordHead += 1; popped += 1 }
                    if wordHead > 4096 { words.removeFirst(wordHead); wordHead = 0 }
                    r = 0x3E
                    continue
                }
            case 0x78...0x7E where tagged:
                out.append(wordHead < words.count ? words[wordHead][r - 0x78] : 0)
                if r == 0x7E {  // word consumed; roll back to the tag
                    if wordHead < words.count { wordHead += 1 }
                    if wordHead > 4096 { words.removeFirst(wordHead); wordHead = 0 }
                    r = 0x78
                    continue
                }
            case 0x22...0x2D:
                out.append(registers[r])
                registers[0x1E] &= ~0x03
            case 0..<128: out.append(registers[r])
            default: out.append(0)
            }
            if increments { r += 1 }
        }
        return out
    }

    private func produce(upTo time: MonotonicTime) {
        let (times, skipped) = clock.due(upTo: time, limit: fifoCapacityWords / 2 + 2)
        let mode = registers[0x0A] & 0x07
        if skipped > 0, hasFIFO, mode != 0 { markOverrun() }
        let gyroPerLSB = [250.0, 500, 1000, 2000][Int(registers[0x11] >> 2) & 3] / 32768 * .pi / 180
        let accelPerLSB = [2.0, 16, 4, 8][Int(registers[0x10] >> 2) & 3] / 32768 * 9.80665
        for t in times {
            let (g, a) = sampler.reading(at: t)
            let gyro = [g.x, g.y, g.z].map { lsb($0, gyroPerLSB) }
            let accel = [a.x, a.y, a.z].map { lsb($0, accelPerLSB) }
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
                if word[0] >> 3 == 0x01, traits.recordsSampleTimes { fifoSampleTimes.append(t) }
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
        if traits.recordsSampleTimes { fifoSampleTimes.append(t) }
    }

    private func markOverrun() {
        if !overrun { overflowCount += 1 }
        overrun = true
        fifoSampleTimes.removeAll()  // the record no longer matches what the driver will see
    }
}
