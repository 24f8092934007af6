import Hardware
import Motion
import SimulatedHardware
import Testing

@Suite("I2C IMU drivers on the simulated bus")
struct DriverTests {
    static let fifoChips: [IMUChipModel] = [.mpu6050, .mpu6500, .lsm6dso, .lsm6ds3]

    @Test("detection probes addresses and WHO_AM_I", arguments: IMUChipModel.allCases)
    func detection(model: IMUChipModel) throws {
        let rig = try Rig(model: model)
        let found = try IMUChipModel.detect { rig.bus.device(at: $0) }
        #expect(found.model == model)
        #expect(found.device.name.hasSuffix(String(rig.address, radix: 16)))
    }

    @Test("detection of nothing names every address tried")
    func detectionFails() throws {
        let rig = try Rig(model: .mpu6050)
        rig.bus.unplugged.insert(rig.address)
        #expect(throws: HardwareError.self) { try IMUChipModel.detect { rig.bus.device(at: $0) } }
    }

    @Test("streams at the configured rate, in SI units, mapped to the camera frame", arguments: fifoChips)
    func streaming(model: IMUChipModel) throws {
        let rig = try Rig(model: model, mounting: "yXz")
        try rig.start()
        rig.loop.advance(by: .seconds(2))
        #expect(rig.healths == [.running])
        let rate = rig.driver.sampleRateHertz
        #expect(rate >= 500)
        let samples = rig.samples
        // 2 s minus the 100 ms (or 10 ms) settle and one poll of latency.
        #expect(Double(samples.count) > rate * 1.85 && Double(samples.count) < rate * 2.01)
        // Level and still: specific force −g along camera y; gyro = the chip's bias only.
        let meanAccel = samples.reduce(Vector3.zero) { $0 + $1.accel } / Double(samples.count)
        #expect(abs(meanAccel.y + g0) < 0.05 && abs(meanAccel.x) < 0.05 && abs(meanAccel.z) < 0.05)
        let bias = try AxisMapping("yXz").toCamera(SimulatedIMUChipTraits().gyroBias)
        let meanGyro = samples.reduce(Vector3.zero) { $0 + $1.gyro } / Double(samples.count)
        #expect(norm(meanGyro - bias) < 0.001)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    @Test("a wrong axis mapping shows up as gravity on the wrong axis")
    func wrongMapping() throws {
        let rig = try Rig(model: .mpu6050, mounting: "yXZ", driverMapping: "XYZ")
        try rig.start()
        rig.loop.advance(by: .seconds(1))
        let s = try #require(rig.samples.last)
        #expect(abs(s.accel.x + g0) < 0.2)  // camera y landed on x
    }

    @Test("FIFO overflow is detected and recovered without garbage", arguments: fifoChips)
    func overflow(model: IMUChipModel) throws {
        let rig = try Rig(model: model)
        try rig.start()
        rig.loop.advance(by: .seconds(1))
        rig.bus.hold(for: .seconds(1))  // the driver cannot read for a second
        rig.loop.advance(by: .seconds(1))
        rig.bus.hold(for: .seconds(1))
        rig.loop.advance(by: .seconds(2))
        #expect(rig.driver.statistics.overflows == 2)
        #expect((rig.mpu?.overflowCount ?? rig.lsm?.overflowCount ?? 0) == 2)
        #expect(rig.healths == [.running])
        rig.clear()
        rig.loop.advance(by: .seconds(1))
        let samples = rig.samples
        #expect(!samples.isEmpty)
        // A misaligned stream would put gyro bytes into accel: every accel must still read 1 g.
        #expect(samples.allSatisfy { abs(norm($0.accel) - g0) < 0.5 })
        #expect(samples.allSatisfy { norm($0.gyro) < 0.1 })
    }

    @Test("wrong WHO_AM_I makes the IMU unavailable until the right chip answers")
    func wrongWhoAmI() throws {
        let rig = try Rig(model: .mpu6050)
        rig.setWhoAmI(0x12)
        try rig.start()
        rig.loop.advance(by: .seconds(3))
        guard case .unavailable(let reason)? = rig.healths.first else {
            Issue.record("no unavailable event: \(rig.healths)"); return
        }
        #expect(reason.contains("WHO_AM_I"))
        #expect(rig.healths.count == 1)   // retries do not repeat the event
        #expect(rig.samples.isEmpty)
        rig.setWhoAmI(nil)
        rig.loop.advance(by: .seconds(3))
        #expect(rig.healths.last == .running)
        #expect(rig.samples.count > 500)
    }

    @Test("a board that expects another chip reports it")
    func expectedModel() throws {
        let rig = try Rig(model: .mpu6500, configure: { $0.expectedModel = .mpu6050 })
        try rig.start()
        rig.loop.advance(by: .milliseconds(500))
        guard case .unavailable(let reason)? = rig.healths.first else { Issue.record("\(rig.healths)"); return }
        #expect(reason.contains("mpu6500") && reason.contains("mpu6050"))
    }

    @Test("NACK and timeout: unavailable, then recovery by itself", arguments: [SimulatedI2CFault.nack, .timeout])
    func transientFault(fault: SimulatedI2CFault) throws {
        let rig = try Rig(model: .lsm6dso)
        try rig.start()
        rig.loop.advance(by: .seconds(1))
        rig.bus.inject(fault, at: rig.address, count: 3)
        rig.loop.advance(by: .seconds(3))
        #expect(rig.healths.count == 3)
        #expect(rig.healths.first == .running && rig.healths.last == .running)
        guard case .unavailable(let reason) = rig.healths[1] else { Issue.record("\(rig.healths)"); return }
        #expect(reason.contains(fault == .nack ? "NACK" : "timed out"))
        #expect(rig.driver.statistics.faults == 1 && rig.driver.statistics.recoveries == 1)
        rig.clear()
        rig.loop.advance(by: .seconds(1))
        #expect(rig.samples.count > 700)
    }

    @Test("an unplugged chip is retried with backoff and recovers when it answers")
    func unplugged() throws {
        let rig = try Rig(model: .mpu6050)
        try rig.start()
        rig.loop.advance(by: .seconds(1))
        rig.bus.unplugged.insert(rig.address)
        rig.loop.advance(by: .seconds(1))
        let before = rig.bus.transferCount
        rig.loop.advance(by: .seconds(20))
        let attempts = rig.bus.transferCount - before
        // 2 s maximum backoff: about 10 attempts in 20 s, not one per poll (2000).
        #expect(attempts >= 8 && attempts <= 14)
        guard case .unavailable(let reason)? = rig.healths.last else { Issue.record("\(rig.healths)"); return }
        #expect(reason.contains("ENXIO"))
        rig.bus.unplugged.remove(rig.address)
        rig.loop.advance(by: .seconds(3))
        #expect(rig.healths.last == .running)
    }

    @Test("a short read resynchronises the FIFO and stays running", arguments: fifoChips)
    func shortRead(model: IMUChipModel) throws {
        let rig = try Rig(model: model, profile: .handheld)
        try rig.start()
        rig.loop.advance(by: .seconds(1))
        let before = rig.samples.count
        // The next block reads: FIFO_COUNT/STATUS pass, then a data block comes back short.
        rig.bus.inject(.shortRead, at: rig.address, count: 1)
        rig.loop.advance(by: .seconds(1))
        #expect(rig.driver.statistics.resynchronisations == 1)
        #expect(rig.healths == [.running])
        #expect(rig.samples.count > before + 400)
        #expect(rig.samples.allSatisfy { abs(norm($0.accel) - g0) < 1.0 })
    }
}

@Suite("Simulated bus and driver lifecycle")
struct BusTests {
    @Test("transfers cost their bits at 400 kHz plus the ioctl overhead, serially")
    func transferTimes() throws {
        let rig = try Rig(model: .mpu6050)
        let device = rig.bus.device(at: rig.address)
        let start = rig.bus.now()
        _ = try device.readBlock(register: 0x74, count: 32)
        // S + addr + reg + Sr + addr + 32 data bytes + P = 30 + 9·32 bits = 795 µs, + 20 µs.
        #expect(rig.bus.now() - start == .nanoseconds(815_000))
        _ = try device.readByte(register: 0x75)
        #expect(rig.bus.now() - start == .nanoseconds(815_000 + 95_000 + 20_000))
        #expect(rig.bus.transferCount == 2 && rig.bus.bytesTransferred == 33)
        #expect(throws: HardwareError.self) { try device.readBlock(register: 0x74, count: 33) }
        #expect { try device.transfer([.write([0x75]), .read(count: 1)]) } throws: {
            ($0 as? HardwareError)?.kind == .unsupported
        }
        rig.bus.supportsPlainTransfer = true
        #expect(try device.transfer([.write([0x75]), .read(count: 1)]) == [[0x68]])
    }

    @Test("stop silences the driver; start brings it back")
    func stopStart() throws {
        let rig = try Rig(model: .lsm6dso)
        try rig.start()
        rig.loop.advance(by: .seconds(1))
        rig.driver.stop()
        rig.loop.run()
        rig.clear()
        let transfers = rig.bus.transferCount
        rig.loop.advance(by: .seconds(1))
        #expect(rig.events.isEmpty && rig.bus.transferCount == transfers)
        try rig.start()
        rig.loop.advance(by: .seconds(1))
        #expect(rig.healths == [.running] && rig.samples.count > 700)
    }
}
