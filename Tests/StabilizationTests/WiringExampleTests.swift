import Camera
import Hardware
import Motion
import SimulatedHardware
import Testing
@testable import Stabilization

/// How the supervisor wires the service (the lead's side, in miniature): settings in, console events
/// and forced setting changes out, and a gate per capture for the bracket engine.
@Suite("Wiring example")
struct WiringExampleTests {
    @Test("typed settings in; events → console lines and stored settings; a gate per capture")
    func wiring() throws {
        let rig = try Rig(format: "1920x1080")  // full frame-rate range, up to 56 fps: auto → standard
        var storedLens = false       // the supervisor's typed setting
        rig.clearEvents()            // the events from here on, as the supervisor's `onEvent` hears them
        try rig.stabilization.setLensEnabled(true)
        storedLens = true
        rig.stabilization.setVideoPreferred(.auto)
        rig.imu.bus.unplugged.insert(rig.imu.address)
        rig.loop.advance(by: .seconds(1))
        let console = rig.events.map(consoleLine)
        for case .lensEnabled(let on, forced: true) in rig.events { storedLens = on }  // a forced off is stored
        #expect(console == ["stabilization.lens enabled=on", "stabilization.video preferred=auto",
                            "stabilization.video active=standard", "stabilization.lens supported=false",
                            "stabilization.lens enabled=off forced=yes", "stabilization.video active=off"])
        #expect(!storedLens && storedLens == rig.stabilization.lens.enabled)
        // The bracket engine's gate: an ordinary BracketFrameGate.
        let gate: any BracketFrameGate = rig.stabilization.makeGate(kind: .bracket)
        #expect(gate.judge(index: 0, attempt: 1, exposureStart: rig.loop.now(), exposure: .milliseconds(33)).status == .off)
    }

    @Test("the wait before a frame is bounded: walking motion never calms, the gate says go after 500 ms")
    func boundedWait() throws {
        let rig = try Rig(format: "1920x1080")
        try rig.move("walking")
        rig.loop.advance(by: .seconds(1))
        try rig.stabilization.setLensEnabled(true)
        let gate = rig.stabilization.makeGate(kind: .bracket)
        let start = rig.loop.now()
        var answers = 0
        while case .wait(let d) = gate.readiness(index: 0, exposure: .milliseconds(66), now: rig.loop.now()) {
            rig.loop.advance(by: d)
            answers += 1
            if answers > 1000 { break }
        }
        let waited = rig.loop.now() - start
        #expect(waited >= .milliseconds(500) && waited <= .milliseconds(510))
        #expect(gate.framesThatWaited == 1)
    }
}

/// The supervisor's wording of an event, in miniature (its own is StabilizationWords, checked by
/// SupervisorTests' StabilizationWordsTests).
private func consoleLine(_ event: Stabilization.Event) -> String {
    switch event {
    case .lensSupported(let s): "stabilization.lens supported=\(s)"
    case .lensEnabled(let e, let forced): "stabilization.lens enabled=\(e ? "on" : "off")" + (forced ? " forced=yes" : "")
    case .stillAutomatic(let on): "stabilization.still automatic=\(on ? "on" : "off")"
    case .videoPreferred(let m): "stabilization.video preferred=\(m.rawValue)"
    case .videoActive(let m): "stabilization.video active=\(m.rawValue)"
    }
}
