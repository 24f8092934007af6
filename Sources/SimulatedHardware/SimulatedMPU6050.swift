import Hardware
import Motion

/// An MPU-6050 / 6500 / 9250 at register level: WHO_AM_I, PWR_MGMT_1 reset and sleep, SMPLRT_DIV
/// and DLPF rate, full-scale ranges, big-endian output registers, a byte FIFO fed per FIFO_EN that
/// drops its oldest bytes when full (setting FIFO_OFLOW_INT, so the stream misaligns as on the
/// real part), FIFO_COUNT, burst reads of FIFO_R_W without address increment, INT_STATUS cleared
/// on read.
public final class SimulatedMPU6050: SimulatedI2CChip, SimulatedSampleSource, @unchecked Sendable {
    public let model: IMUChipModel
    /// Answer this instead of the real WHO_AM_I (a wrong or counterfeit part).
    public var whoAmIOverride: UInt8?
    /// True times of samples pushed to the FIFO since its last reset (when recording).
    public private(set) var fifoSampleTimes: [MonotonicTime] = []
    /// FIFO overflows so far.
    public private(set) var overflowCount = 0
    private var registers = [UInt8](repeating: 0, count: 128)
    private var fifo: [UInt8] = []
    private var fifoHead = 0
    private var clock: SampleClock
    private var sampler: TruthSampler
    private let traits: SimulatedIMUChipTraits

    public var sampleSchedule: (next: MonotonicTime, step: Duration)? {
        clock.periodSeconds > 0 ? (clock.next, clock.step) : nil
    }

    public init(model: IMUChipModel = .mpu6050, truth: any MotionTruth, traits: SimulatedIMUChipTraits = SimulatedIMUChipTraits()) {
        self.model = model
        self.traits = traits
        clock = SampleClock(clockError: traits.clockErrorPartsPerMillion)
        sampler = TruthSampler(truth: truth, traits: traits)
        reset()
    }

    public var fifoCapacity: Int { model == .mpu6050 ? 1024 : 512 }
    public var fifoCount: Int { fifo.count - fifoHead }

    private func reset() {
        registers = [UInt8](repeating: 0, count: 128)
        registers[0x6B] = 0x40  // SLEEP
        registers[0x75] = model.whoAmI
        clearFIFO()
        clock.stop()
    }

    private func clearFIFO() { fifo.removeAll(keepingCapacity: true); fifoHead = 0; fifoSampleTimes.removeAll() }

    private var periodSeconds: Double {
        let dlpf = registers[0x1A] & 0x07
        return Double(Int(registers[0x19]) + 1) / (dlpf == 0 || dlpf == 7 ? 8000 : 1000)
    }

    public func write(register: UInt8, bytes: [UInt8], at time: MonotonicTime) {
        produce(upTo: time)
        for (i, value) in bytes.enumerated() {
            let r = Int(register) + i
            guard r < 128 else { break }
            switch r {
            case 0x6B:
                if value & 0x80 != 0 { reset(); continue }
                registers[r] = value
                if value & 0x40 != 0 { clock.stop() } else if clock.periodSeconds == 0 { clock.start(at: time, periodSeconds: periodSeconds) }
            case 0x6A:
                if value & 0x04 != 0 { clearFIFO() }
                registers[r] = value & ~0x04
            case 0x19, 0x1A:
                registers[r] = value
                if clock.periodSeconds > 0 { clock.start(at: time, periodSeconds: periodSeconds) }
            case 0x75, 0x72, 0x73, 0x3A: break  // read-only
            default: registers[r] = value
            }
        }
    }

    public func read(register: UInt8, count: Int, at time: MonotonicTime) -> [UInt8] {
        produce(upTo: time)
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var r = Int(register)
        for _ in 0..<count {
            switch r {
            case 0x74:
                if fifoHead < fifo.count { out.append(fifo[fifoHead]); fifoHead += 1 } else { out.append(0) }
                if fifoHead > 4096 { fifo.removeFirst(fifoHead); fifoHead = 0 }
                continue  // FIFO_R_W does not increment
            case 0x72: out.append(UInt8(fifoCount >> 8))
            case 0x73: out.append(UInt8(fifoCount & 0xFF))
            case 0x75: out.append(whoAmIOverride ?? model.whoAmI)
            case 0x3A: out.append(registers[0x3A]); registers[0x3A] = 0
            case 0..<128: out.append(registers[r])
            default: out.append(0)
            }
            r += 1
        }
        return out
    }

    private func produce(upTo time: MonotonicTime) {
        let (times, skipped) = clock.due(upTo: time, limit: fifoCapacity / 12 + 2)
        if skipped > 0, registers[0x6A] & 0x40 != 0 { overflow() }
        let gyroPerLSB = [250.0, 500, 1000, 2000][Int(registers[0x1B] >> 3) & 3] / 32768 * .pi / 180
        let accelPerLSB = [2.0, 4, 8, 16][Int(registers[0x1C] >> 3) & 3] / 32768 * 9.80665
        for t in times {
            let (g, a) = sampler.reading(at: t)
            let accel = [a.x, a.y, a.z].map { lsb($0, accelPerLSB) }
            let gyro = [g.x, g.y, g.z].map { lsb($0, gyroPerLSB) }
            let temperature = Int16(1500)  // ≈ 40 °C
            func put(_ v: Int16, _ at: Int) { registers[at] = UInt8(UInt16(bitPattern: v) >> 8); registers[at + 1] = UInt8(UInt16(bitPattern: v) & 0xFF) }
            for k in 0..<3 { put(accel[k], 0x3B + 2 * k); put(gyro[k], 0x43 + 2 * k) }
            put(temperature, 0x41)
            registers[0x3A] |= 0x01  // DATA_RDY_INT
            guard registers[0x6A] & 0x40 != 0 else { continue }
            let enable = registers[0x23]
            var bytes: [UInt8] = []
            if enable & 0x08 != 0 { bytes += (0..<6).map { registers[0x3B + $0] } }
            if enable & 0x80 != 0 { bytes += [registers[0x41], registers[0x42]] }
            for (k, bit) in [UInt8(0x40), 0x20, 0x10].enumerated() where enable & bit != 0 {
                bytes += [registers[0x43 + 2 * k], registers[0x44 + 2 * k]]
            }
            if fifoCount + bytes.count > fifoCapacity {
                fifoHead += fifoCount + bytes.count - fifoCapacity  // oldest bytes lost
                overflow()
            }
            fifo += bytes
            if traits.recordsSampleTimes { fifoSampleTimes.append(t) }
        }
    }

    private func overflow() {
        if registers[0x3A] & 0x10 == 0 { overflowCount += 1 }  // count episodes, not bytes
        registers[0x3A] |= 0x10  // FIFO_OFLOW_INT
        fifoSampleTimes.removeAll()  // alignment lost: the record no longer matches
    }
}
