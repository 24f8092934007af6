import Hardware
import ManualLoop
import Motion
import SimulatedHardware

/// A driver on the simulated bus with one chip, collecting what the driver reports.
final class Rig {
    let loop = ManualEventLoop()
    let bus: SimulatedI2CBus
    let chip: any SimulatedI2CChip & SimulatedSampleSource
    let truth: ProfileMotion
    let driver: I2CIMU
    let address: UInt8
    let dataReadyLine: SimulatedDataReadyLine?
    private let collected = LockedValue<[IMUEvent]>([])

    init(model: IMUChipModel, profile: MotionProfile = .still, amplitude: Double? = nil,
         mounting: String = "XYZ", driverMapping: String? = nil, configure: (inout IMUConfiguration) -> Void = { _ in },
         traits: (inout SimulatedIMUChipTraits) -> Void = { _ in }, dataReady: Bool = false) throws {
        bus = SimulatedI2CBus(loop: loop)
        truth = profile.make(amplitudeDegreesPerSecond: amplitude, seed: 42, origin: loop.now())
        var t = SimulatedIMUChipTraits()
        t.mounting = try AxisMapping(mounting)
        t.recordsSampleTimes = true
        traits(&t)
        if model.isInvenSense {
            chip = SimulatedMPU6050(model: model, truth: truth, traits: t)
        } else {
            chip = SimulatedLSM6DSO(model: model, truth: truth, traits: t)
        }
        address = model.addresses[1]
        bus.attach(chip, at: address)
        var c = IMUConfiguration()
        c.axisMapping = try AxisMapping(driverMapping ?? mounting)
        configure(&c)
        let line = dataReady ? SimulatedDataReadyLine(loop: loop, source: chip) : nil
        dataReadyLine = line
        let bus = self.bus
        driver = I2CIMU(device: bus.device(at: address), loop: loop, configuration: c, dataReady: line,
                        clock: { bus.now() })
    }

    func start() throws {
        let sink = collected
        try driver.start { event in sink.withLock { $0.append(event) } }
    }

    var events: [IMUEvent] { collected.current }
    var samples: [IMUSample] {
        events.flatMap { if case .samples(let s) = $0 { s } else { [IMUSample]() } }
    }
    var healths: [IMUHealth] {
        events.compactMap { if case .health(let h) = $0 { h } else { nil } }
    }
    func clear() { collected.withLock { $0.removeAll() } }

    var mpu: SimulatedMPU6050? { chip as? SimulatedMPU6050 }
    var lsm: SimulatedLSM6DSO? { chip as? SimulatedLSM6DSO }
    var recordedSampleTimes: [MonotonicTime] { mpu?.fifoSampleTimes ?? lsm?.fifoSampleTimes ?? [] }
    func setWhoAmI(_ value: UInt8?) {
        mpu?.whoAmIOverride = value
        lsm?.whoAmIOverride = value
    }
}

func norm(_ v: Vector3) -> Double { (v * v).sum().squareRoot() }
let g0 = 9.80665
