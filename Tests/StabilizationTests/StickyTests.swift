import Camera
import Hardware
import SimulatedHardware
import Testing
@testable import Stabilization

@Suite("Lens stabilization: supported, enabled and the sticky rules")
struct StickyTests {
    @Test("enabled can be set only while supported, with an error naming why")
    func onlyWhileSupported() throws {
        let lens = LensStabilization(imuHealthy: false, formatAllows: true)
        #expect(!lens.supported)
        #expect(throws: StabilizationError.self) { try lens.setEnabled(true) }
        do { try lens.setEnabled(true) } catch { #expect(error.code == .unsupported && error.message.contains("IMU")) }
        try lens.setEnabled(false)  // off is always accepted
        #expect(!lens.enabled)
    }

    @Test("on the simulated board: sticky across captures; the IMU failing forces it off; it stays off when the IMU returns")
    func imuFailsAndReturns() throws {
        let rig = try Rig(format: "1920x1080")
        #expect(rig.stabilization.lens.supported)
        #expect(rig.events == [.lensSupported(true)])
        rig.clearEvents()
        try rig.stabilization.apply(key: "stabilization.lens", value: "on")
        #expect(rig.events == [.lensEnabled(true, forced: false)])
        // Sticky: every capture's gate is requested until the user turns it off.
        #expect(rig.stabilization.makeGate(kind: .bracket).requested)
        #expect(rig.stabilization.makeGate(kind: .bracket).requested)
        rig.clearEvents()

        rig.imu.bus.unplugged.insert(rig.imu.address)
        rig.loop.advance(by: .seconds(1))
        #expect(!rig.stabilization.lens.supported && !rig.stabilization.lens.enabled)
        #expect(rig.events == [.lensSupported(false), .lensEnabled(false, forced: true)])
        #expect(rig.stabilization.settings["stabilization.lens"] == "off")
        #expect(throws: StabilizationError.self) { try rig.stabilization.apply(key: "stabilization.lens", value: "on") }
        #expect(!rig.stabilization.makeGate(kind: .bracket).requested)
        rig.clearEvents()

        rig.imu.bus.unplugged.remove(rig.imu.address)
        rig.loop.advance(by: .seconds(3))
        #expect(rig.stabilization.imuHealth == .running)
        #expect(rig.stabilization.lens.supported)
        #expect(!rig.stabilization.lens.enabled, "stays off after support returns")
        #expect(rig.events == [.lensSupported(true)])
        #expect(!rig.stabilization.makeGate(kind: .bracket).requested)
        try rig.stabilization.apply(key: "stabilization.lens", value: "on")
        #expect(rig.stabilization.lens.enabled)
    }

    @Test("a format whose optics are unknown does not allow it, and forces it off")
    func formatWithoutOptics() throws {
        let lens = LensStabilization(imuHealthy: true, formatAllows: true)
        var changes: [LensStabilization.Change] = []
        lens.onChange = { changes.append($0) }
        try lens.setEnabled(true)
        lens.formatChanged(allows: false, reason: "no focal length")
        lens.formatChanged(allows: true)
        #expect(changes == [.enabled(true, forced: false), .supported(false), .enabled(false, forced: true), .supported(true)])
        #expect(!lens.enabled)
    }

    @Test("the three settings: values, events once per change, errors for unknown values and keys")
    func settings() throws {
        let rig = try Rig(format: "1920x1080")
        rig.clearEvents()
        #expect(rig.stabilization.settings == ["stabilization.lens": "off", "stabilization.still": "on", "stabilization.video": "off"])
        try rig.stabilization.apply(key: "stabilization.still", value: "off")
        try rig.stabilization.apply(key: "stabilization.still", value: "off")
        try rig.stabilization.apply(key: "stabilization.video", value: "cinematic")
        #expect(rig.events == [.stillAutomatic(false), .videoPreferred(.cinematic), .videoActive(.cinematic)])
        #expect(throws: StabilizationError.self) { try rig.stabilization.apply(key: "stabilization.video", value: "wobbly") }
        #expect(throws: StabilizationError.self) { try rig.stabilization.apply(key: "stabilization.still", value: "maybe") }
        #expect(throws: StabilizationError.self) { try rig.stabilization.apply(key: "stabilization.gimbal", value: "on") }
    }
}
