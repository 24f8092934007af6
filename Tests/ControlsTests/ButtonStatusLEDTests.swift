import Hardware
import ManualLoop
import SimulatedHardware
import Testing
@testable import Controls

@Suite struct ButtonStatusLEDTests {
    /// A player and its LED on a manual loop.
    final class Rig {
        let loop = ManualEventLoop()
        let led: SimulatedLED
        let player: StatusLEDPlayer
        var errors: [HardwareError] = []
        init() {
            led = SimulatedLED(clock: loop)
            var sink: ((HardwareError) -> Void)?
            player = StatusLEDPlayer(line: led, loop: loop) { sink?($0) }
            sink = { [unowned self] in errors.append($0) }
        }
        func onLoop(_ body: @escaping (StatusLEDPlayer) -> Void) {
            let bound = LoopBound((player, body), loop: loop)
            loop.execute { let (p, b) = bound.value; b(p) }
            loop.run()
        }
        /// The history as (ms since `start`, on) pairs.
        func timeline(since start: MonotonicTime) -> [String] {
            led.history.filter { $0.time >= start }.map { "\(($0.time - start).nanoseconds / 1_000_000):\($0.isOn ? 1 : 0)" }
        }
    }

    @Test func busyBlinksEveryHundredMilliseconds() {
        let rig = Rig()
        let start = rig.loop.now()
        rig.onLoop { $0.show(.busy) }
        rig.loop.advance(by: .milliseconds(450))
        #expect(rig.timeline(since: start) == ["0:1", "100:0", "200:1", "300:0", "400:1"])
    }

    @Test func errorFlashesTwiceThenPauses() {
        let rig = Rig()
        let start = rig.loop.now()
        rig.onLoop { $0.show(.error) }
        rig.loop.advance(by: .milliseconds(1050))
        #expect(rig.timeline(since: start) == ["0:1", "100:0", "200:1", "300:0", "1000:1"])
    }

    @Test func readyIsSteadyAndSchedulesNothing() {
        let rig = Rig()
        let start = rig.loop.now()
        rig.onLoop { $0.show(.ready) }
        #expect(rig.loop.nextDeadline == nil)
        rig.loop.advance(by: .seconds(10))
        #expect(rig.timeline(since: start) == ["0:1"])
    }

    @Test func recordingHeartbeat() {
        let rig = Rig()
        let start = rig.loop.now()
        rig.onLoop { $0.show(.recording) }
        rig.loop.advance(by: .milliseconds(2050))
        #expect(rig.timeline(since: start) == ["0:1", "900:0", "1000:1", "1900:0", "2000:1"])
    }

    @Test func switchingPatternsLeavesNoStrayTimers() {
        let rig = Rig()
        let start = rig.loop.now()
        rig.onLoop { $0.show(.busy) }
        rig.loop.advance(by: .milliseconds(150))
        rig.onLoop { $0.show(.ready) }
        rig.onLoop { $0.show(.ready) }  // again: no restart, no extra write
        rig.loop.advance(by: .seconds(2))
        #expect(rig.timeline(since: start) == ["0:1", "100:0", "150:1"])
        #expect(rig.player.pattern == .ready)
        rig.onLoop { $0.stop() }
        #expect(rig.led.isOn == false)
    }

    @Test func writeFaultIsReportedOnceAndStopsThePlayer() {
        let rig = Rig()
        rig.onLoop { $0.show(.busy) }
        rig.led.injectWriteFault(HardwareError(.disconnected, "LED line gone"))
        rig.loop.advance(by: .seconds(2))
        #expect(rig.errors.map(\.message) == ["LED line gone"])
        #expect(rig.loop.nextDeadline == nil)
        rig.onLoop { $0.show(.error) }
        #expect(rig.errors.count == 1)
    }
}
