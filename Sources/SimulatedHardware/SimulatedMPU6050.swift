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
    private var sampling: ChipSampling

    public var sampleSchedule: (next: MonotonicTime, step: Duration)? { sampling.schedule }

    public init(model: IMUChipModel = .mpu6050, truth: any MotionTruth, traits: SimulatedIMUChipTraits = SimulatedIMUChipTraits()) {
        self.model = model
        sampling = ChipSampling(truth: truth, traits: traits)
        reset()
    }

    public var fifoCapacity: Int { model == .mpu6050 ? 1024 : 512 }
    public var fifoCount: Int { fifo.count - fifoHead }

    private func reset() {
        registers = [UInt8](repeating: 0, count: 128)
        registers[0x6B] = 0x40  // SLEEP
        registers[0x75] = model.whoAmI
        clearFIFO()
        sampling.clock.stop()
    }

    private func clearFIFO() { fifo.removeAll(keepingCapacity: true); fifoHead = 0; fifoSampleTimes.removeAll() }

    private var periodSeconds: Double {
        let dlpf = registers[0x1A] & 0x07
        return Double(Int(registers[0x19]) + 1) / (dlpf == 0 || dlpf == 7 ? 8000 : 1000)
    }

    public func write(register: UInt8, bytes: [UInt8], at time: MonotonicTime) {
        produce(upTo: time)
        burstWrite(register, bytes, before: 128) { r, value in
            switch r {
            case 0x6B:
                if value & 0x80 != 0 { reset(); return }
                registers[r] = value
                if value & 0x40 != 0 { sampling.clock.stop() } else if sampling.clock.periodSeconds == 0 { sampling.clock.start(at: time, periodSeconds: periodSeconds) }
            case 0x6A:
                if value & 0x04 != 0 { clearFIFO() }
                registers[r] = value & ~0x04
            case 0x19, 0x1A:
                registers[r] = value
                if sampling.clock.periodSeconds > 0 { sampling.clock.start(at: time, periodSeconds: periodSeconds) }
            case 0x75, 0x72, 0x73, 0x3A: break  // read-only
            default: registers[r] = value
            }
        }
    }

    public func read(register: UInt8, count: Int, at time: MonotonicTime) -> [UInt8] {
        produce(upTo: time)
        // FIFO_R_W does not increment.
        return burstRead(register, count: count, next: { $0 == 0x74 ? 0x74 : $0 + 1 }) { r in
            switch r {
            case 0x74:
                guard fifoHead < fifo.count else { return 0 }
                defer {
                    fifoHead += 1
                    if fifoHead > 4096 { fifo.removeFirst(fifoHead); fifoHead = 0 }
                }
                return fifo[fifoHead]
            case 0x72: return UInt8(fifoCount >> 8)
            case 0x73: return UInt8(fifoCount & 0xFF)
            case 0x75: return whoAmIOverride ?? model.whoAmI
            case 0x3A:
                defer { registers[0x3A] = 0 }
                return registers[0x3A]
            case 0..<128: return registers[r]
            default: return 0
            }
        }
    }

    private func produce(upTo time: MonotonicTime) {
        let (samples, skipped) = sampling.samples(
            upTo: time, limit: fifoCapacity / 12 + 2,
            gyroRadiansPerSecondPerLSB: [250.0, 500, 1000, 2000][Int(registers[0x1B] >> 3) & 3] / 32768 * .pi / 180,
            accelMetresPerSecondSquaredPerLSB: [2.0, 4, 8, 16][Int(registers[0x1C] >> 3) & 3] / 32768 * 9.80665)
        if skipped > 0, registers[0x6A] & 0x40 != 0 { overflow() }
        for sample in samples {
            let t = sample.time, accel = sample.accel, gyro = sample.gyro
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
            if sampling.traits.recordsSampleTimes { fifoSampleTimes.append(t) }
        }
    }

    private func overflow() {
        if registers[0x3A] & 0x10 == 0 { overflowCount += 1 }  // count episodes, not bytes
        registers[0x3A] |= 0x10  // FIFO_OFLOW_INT
        fifoSampleTimes.removeAll()  // alignment lost: the record no longer matches
    }
}
