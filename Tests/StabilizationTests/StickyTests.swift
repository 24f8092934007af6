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
        try rig.stabilization.setLensEnabled(true)
        #expect(rig.events == [.lensEnabled(true, forced: false)])
        // Sticky: every capture's gate is requested until the user turns it off.
        #expect(rig.stabilization.makeGate(kind: .bracket).requested)
        #expect(rig.stabilization.makeGate(kind: .bracket).requested)
        rig.clearEvents()

        rig.imu.bus.unplugged.insert(rig.imu.address)
        rig.loop.advance(by: .seconds(1))
        #expect(!rig.stabilization.lens.supported && !rig.stabilization.lens.enabled)
        #expect(rig.events == [.lensSupported(false), .lensEnabled(false, forced: true)])
        #expect(!rig.stabilization.lens.enabled, "the forced off is what the setting now reads")
        #expect(throws: StabilizationError.self) { try rig.stabilization.setLensEnabled(true) }
        #expect(!rig.stabilization.makeGate(kind: .bracket).requested)
        rig.clearEvents()

        rig.imu.bus.unplugged.remove(rig.imu.address)
        rig.loop.advance(by: .seconds(3))
        #expect(rig.stabilization.imuHealth == .running)
        #expect(rig.stabilization.lens.supported)
        #expect(!rig.stabilization.lens.enabled, "stays off after support returns")
        #expect(rig.events == [.lensSupported(true)])
        #expect(!rig.stabilization.makeGate(kind: .bracket).requested)
        try rig.stabilization.setLensEnabled(true)
        #expect(rig.stabilization.lens.enabled)
    }

    @Test("a format whose optics are unknown does not allow it, and forces it off")
    func formatWithoutOptics() throws {
        var changes: [LensStabilization.Change] = []
        let lens = LensStabilization(imuHealthy: true, formatAllows: true) { changes.append($0) }
        try lens.setEnabled(true)
        lens.formatChanged(allows: false, reason: "no focal length")
        lens.formatChanged(allows: true)
        #expect(changes == [.enabled(true, forced: false), .supported(false), .enabled(false, forced: true), .supported(true)])
        #expect(!lens.enabled)
    }

    @Test("the typed setters: defaults, one event per change, and lens on refused while unsupported")
    func typedSetters() throws {
        let rig = try Rig(format: "1920x1080")
        rig.clearEvents()
        #expect(!rig.stabilization.lens.enabled && rig.stabilization.stillAutomatic && rig.stabilization.video.preferred == .off)
        rig.stabilization.setStillAutomatic(false)
        rig.stabilization.setStillAutomatic(false)
        rig.stabilization.setVideoPreferred(.cinematic)
        rig.stabilization.setVideoPreferred(.cinematic)
        try rig.stabilization.setLensEnabled(true)
        try rig.stabilization.setLensEnabled(true)
        try rig.stabilization.setLensEnabled(false)
        #expect(rig.events == [.stillAutomatic(false), .videoPreferred(.cinematic), .videoActive(.cinematic),
                               .lensEnabled(true, forced: false), .lensEnabled(false, forced: false)])
        #expect(!rig.stabilization.stillAutomatic && rig.stabilization.video.preferred == .cinematic)

        rig.imu.bus.unplugged.insert(rig.imu.address)
        rig.loop.advance(by: .seconds(1))
        rig.clearEvents()
        do {
            try rig.stabilization.setLensEnabled(true)
            Issue.record("lens on while the IMU is down must be refused")
        } catch {
            #expect(error.code == .unsupported && error.message.contains("IMU"))
        }
        try rig.stabilization.setLensEnabled(false)  // off is always accepted
        #expect(rig.events.isEmpty && !rig.stabilization.lens.enabled)
    }
}
