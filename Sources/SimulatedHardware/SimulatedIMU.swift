import Hardware
import Motion

/// The simulated board's IMU: a register-level chip model on a simulated 400 kHz bus, driven by a
/// ground truth, and read by the real `I2CIMU` driver, so the driver code runs on the sim board.
///
/// The same `truth` should be handed to the simulated sensor for motion blur
/// (`renderedBlurPixels`). `sim motion NAME [AMPLITUDE]` maps to `setMotion(_:amplitudeDegreesPerSecond:)`.
public final class SimulatedIMU: IMUDevice, @unchecked Sendable {
    public let bus: SimulatedI2CBus
    public let truth: SwitchableMotion
    /// The chip model on the bus (`SimulatedMPU6050` or `SimulatedLSM6DSO`), for fault injection.
    public let chip: any SimulatedI2CChip
    public let address: UInt8
    public let driver: I2CIMU
    /// The chip's simulated INT line, when wired (`dataReady` in the board's imu section).
    public let dataReadyLine: SimulatedDataReadyLine?
    private let loop: any EventLoop
    private let seed: UInt64

    /// - Parameters:
    ///   - model: which chip to model.
    ///   - profile: the initial motion (`MotionProfile.make`).
    ///   - configuration: the driver's configuration; its `axisMapping` is also the chip's mounting.
    ///   - wiresDataReady: give the driver a data-ready line (edges at each sample) instead of a timer.
    public init(loop: any EventLoop, model: IMUChipModel = .mpu6050, profile: ProfileMotion,
                configuration: IMUConfiguration = IMUConfiguration(), traits: SimulatedIMUChipTraits = SimulatedIMUChipTraits(),
                seed: UInt64 = 1, wiresDataReady: Bool = false) {
        self.loop = loop
        self.seed = seed
        truth = SwitchableMotion(profile)
        bus = SimulatedI2CBus(name: "i2c-sim", loop: loop)
        var chipTraits = traits
        chipTraits.mounting = configuration.axisMapping
        chipTraits.seed = seed &+ 0x5EED
        address = model.addresses[0]
        let source: any SimulatedI2CChip & SimulatedSampleSource
        if model.isInvenSense {
            source = SimulatedMPU6050(model: model, truth: truth, traits: chipTraits)
        } else {
            source = SimulatedLSM6DSO(model: model, truth: truth, traits: chipTraits)
        }
        chip = source
        bus.attach(source, at: address)
        dataReadyLine = wiresDataReady ? SimulatedDataReadyLine(loop: loop, source: source) : nil
        let bus = self.bus
        driver = I2CIMU(device: bus.device(at: address), loop: loop, configuration: configuration,
                        dataReady: dataReadyLine, clock: { bus.now() })
    }

    /// Builds it from the board's `imu` section: `motion` (default "still"),
    /// `amplitudeDegreesPerSecond`, `orientation`, `rateHertz`, `dataReady` (any value wires the
    /// simulated INT line); `model` picks the chip (default MPU-6050).
    public convenience init(section: BoardDescription.IMUSection, loop: any EventLoop, seed: UInt64 = 1,
                            model: IMUChipModel = .mpu6050) throws {
        var configuration = IMUConfiguration()
        if let text = section.orientation { configuration.axisMapping = try AxisMapping(text) }
        if let rate = section.rateHertz { configuration.rateHertz = rate }
        let profile = try MotionProfile.named(section.motion ?? "still")
            .make(amplitudeDegreesPerSecond: section.amplitudeDegreesPerSecond, seed: seed, origin: loop.now())
        self.init(loop: loop, model: model, profile: profile, configuration: configuration, seed: seed,
                  wiresDataReady: section.dataReady != nil)
    }

    public var name: String { "\(driver.name) (simulated)" }
    public var sampleRateHertz: Double { driver.sampleRateHertz }
    public func start(handler: @escaping @Sendable (IMUEvent) -> Void) throws { try driver.start(handler: handler) }
    public func stop() { driver.stop() }

    /// Switches the motion profile from now on (`sim motion NAME [AMPLITUDE]`); throws
    /// `.invalidArgument` for an unknown name.
    public func setMotion(_ name: String, amplitudeDegreesPerSecond: Double? = nil) throws {
        let profile = try MotionProfile.named(name)
        truth.switchTo(profile.make(amplitudeDegreesPerSecond: amplitudeDegreesPerSecond, seed: seed, origin: loop.now()))
    }
}
