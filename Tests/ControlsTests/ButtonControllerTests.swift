import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
@testable import Controls

@Suite struct ButtonControllerTests {
    static let origin = MonotonicTime(nanoseconds: 5_000_000_000)

    @Test func pressIsDispatchedAtItsOwnEdgeWithTheKernelTimestamp() {
        let rig = ButtonRig(ButtonConfiguration())
        rig.press(down: Self.origin, up: Self.origin + .milliseconds(80), bouncePairs: 3, gap: .microseconds(200))
        rig.loop.base.advance(to: Self.origin)
        #expect(rig.said == [Said(output: .perform(ButtonCommand(action: .capture, gesture: .press,
                                                                   edgeTimestamp: Self.origin, wasQueued: false)), at: Self.origin)])
        rig.loop.base.advance(to: Self.origin + .seconds(1))
        #expect(rig.said.count == 1)
        #expect(rig.controller.statistics.edgesReceived == 2 + 2 * 6)
    }

    @Test(arguments: [BusyPolicy.queueOne, .reject])
    func pressesDuringACaptureQueueAtMostOneOrAreRejected(policy: BusyPolicy) {
        var c = ButtonConfiguration()
        c.whileBusy = policy
        let rig = ButtonRig(c)
        for i in 0..<4 {
            let down = Self.origin + .milliseconds(200 * i)
            rig.press(down: down, up: down + .milliseconds(50))
        }
        rig.loop.base.advance(to: Self.origin + .seconds(2))
        let kinds = rig.said.map { s -> String in
            switch s.output {
            case .perform: return "perform"
            case .queued: return "queued"
            case .rejected: return "rejected"
            default: return "other"
            }
        }
        #expect(kinds == (policy == .queueOne ? ["perform", "queued", "rejected", "rejected"]
                                              : ["perform", "rejected", "rejected", "rejected"]))
        #expect(rig.controller.statistics.rejected == (policy == .queueOne ? 2 : 3))
        rig.onLoop { $0.captureDidFinish() }
        if policy == .queueOne {
            #expect(rig.performed().last == ButtonCommand(action: .capture, gesture: .press,
                                                         edgeTimestamp: Self.origin + .milliseconds(200), wasQueued: true))
            #expect(rig.controller.isCaptureBusy)
            rig.onLoop { $0.captureDidFinish() }
        }
        #expect(rig.performed().count == (policy == .queueOne ? 2 : 1))
        #expect(!rig.controller.isCaptureBusy)
    }

    @Test func consoleCaptureMakesButtonPressesWait() {
        let rig = ButtonRig(ButtonConfiguration())
        rig.onLoop { $0.captureDidStart() }
        rig.press(down: Self.origin, up: Self.origin + .milliseconds(50))
        rig.loop.base.advance(to: Self.origin + .seconds(1))
        #expect(rig.performed().isEmpty)
        rig.onLoop { $0.captureDidFinish() }
        #expect(rig.performed().map(\.wasQueued) == [true])
    }

    @Test func nonCaptureActionsAreNotGated() {
        var c = ButtonConfiguration()
        c.press = .triggerAutofocus
        let rig = ButtonRig(c)
        rig.onLoop { $0.captureDidStart() }
        rig.press(down: Self.origin, up: Self.origin + .milliseconds(50))
        rig.press(down: Self.origin + .milliseconds(100), up: Self.origin + .milliseconds(150))
        rig.loop.base.advance(to: Self.origin + .seconds(1))
        #expect(rig.performed().map(\.action) == [.triggerAutofocus, .triggerAutofocus])
    }

    @Test func floodFromTheReaderThreadCostsOneLoopHopAndBoundedMemory() {
        let rig = ButtonRig(ButtonConfiguration())
        let hopsBefore = rig.loop.executes
        // 10 000 edges 1 µs apart arrive before the loop gets to run (as from a reader thread).
        var t = Self.origin
        for i in 0..<10_000 {
            rig.shutter.drive(i % 2 == 0, at: t)
            t = t + .microseconds(1)
        }
        #expect(rig.loop.executes - hopsBefore == 1)
        rig.loop.base.advance(to: Self.origin + .seconds(1))
        let stats = rig.controller.statistics
        #expect(stats.edgesReceived == 10_000)
        #expect(stats.edgesDropped == 10_000 - 64)
        #expect(rig.gestures.map(\.gesture) == [.press])
        #expect(rig.loop.maxLiveTimers <= 1)
        // The level is right after the flood (ends released): a new press is seen.
        rig.press(down: Self.origin + .seconds(2), up: Self.origin + .seconds(2) + .milliseconds(50))
        rig.loop.base.advance(to: Self.origin + .seconds(3))
        #expect(rig.gestures.map(\.gesture) == [.press, .press])
    }

    @Test func edgesThatReachABusyLoopLateAreJudgedByTheirTimestamps() {
        let rig = ButtonRig(ButtonConfiguration())
        let t = Self.origin
        // A 5 ms tap, then a second press 20 ms after the first: all delivered before the loop runs.
        rig.shutter.drive(true, at: t)
        rig.shutter.drive(false, at: t + .milliseconds(5))
        rig.shutter.drive(true, at: t + .milliseconds(20))
        rig.shutter.drive(false, at: t + .milliseconds(100))
        rig.loop.base.advance(to: t + .seconds(1))
        #expect(rig.gestures.map(\.edge) == [t, t + .milliseconds(20)])
    }

    @Test func halfPressLocksAndUnlocksAroundAFullPress() {
        let rig = ButtonRig(ButtonConfiguration(), twoStage: true)
        let t = Self.origin
        rig.drive(rig.half, true, at: t)
        rig.press(down: t + .milliseconds(300), up: t + .milliseconds(400))
        rig.drive(rig.half, false, at: t + .milliseconds(600))
        rig.loop.base.advance(to: t + .seconds(1))
        #expect(rig.said.map(\.output) == [
            .lockFocusAndExposure(edgeTimestamp: t),
            .perform(ButtonCommand(action: .capture, gesture: .press, edgeTimestamp: t + .milliseconds(300), wasQueued: false)),
            .unlockFocusAndExposure(edgeTimestamp: t + .milliseconds(600)),
        ])
    }

    @Test func buttonHeldAtStartIsNotAPress() {
        var c = ButtonConfiguration()
        c.longPress = .bracket(preset: "hdr5")
        let rig = ButtonRig(c, shutterHeldAtStart: true)
        rig.drive(rig.shutter, false, at: Self.origin)
        rig.loop.base.advance(to: Self.origin + .seconds(3))
        #expect(rig.said.isEmpty)
        rig.press(down: Self.origin + .seconds(4), up: Self.origin + .seconds(4) + .milliseconds(900))
        rig.loop.base.advance(to: Self.origin + .seconds(6))
        #expect(rig.performed().map(\.action) == [.bracket(preset: "hdr5")])
    }

    @Test func stopClosesTheLinesAndLaterEdgesAreIgnored() {
        let rig = ButtonRig(ButtonConfiguration())
        rig.onLoop { $0.stop() }
        rig.press(down: Self.origin, up: Self.origin + .milliseconds(50))
        rig.loop.base.advance(to: Self.origin + .seconds(1))
        #expect(rig.said.isEmpty)
        #expect(throws: HardwareError.self) { try rig.shutter.read() }
    }

    @Test func simulatedButtonScriptsDriveTheController() throws {
        let loop = ManualEventLoop()
        let button = SimulatedButton(loop: loop, twoStage: true)
        var said: [ButtonOutput] = []
        var c = ButtonConfiguration()
        c.longPress = .toggleRecording
        var sink: ((ButtonOutput) -> Void)?
        let controller = ButtonController(configuration: c, loop: loop, shutter: button.shutter,
                                          halfPress: button.halfPress) { sink?($0) }
        sink = { said.append($0) }
        let bound = LoopBound(controller, loop: loop)
        loop.execute { bound.value.start() }
        loop.run()
        let first = button.press(bounce: .typical)       // `button press`
        let second = button.hold(milliseconds: 1200)      // `button hold 1200`
        try button.toggleHalfPress()                      // `button half`
        loop.advance(by: .seconds(5))
        #expect(second > first + .milliseconds(80))
        let performed: [ButtonGesture] = said.compactMap { if case .perform(let c) = $0 { return c.gesture } else { return nil } }
        #expect(performed == [.press, .longPress])
        #expect(said.filter { if case .lockFocusAndExposure = $0 { return true } else { return false } }.count == 3)
        #expect(button.halfPress?.isActive == true)
        #expect(button.shutter.isActive == false)
        // A one-stage button has no half contact.
        #expect(throws: HardwareError.self) { try SimulatedButton(loop: loop, twoStage: false).toggleHalfPress() }
    }

    @Test func configurationParsesAndRoundTrips() throws {
        #expect(ButtonAction(parsing: "bracket:hdr5") == .bracket(preset: "hdr5"))
        #expect(ButtonAction(parsing: "bracket:") == nil)
        #expect(ButtonAction(parsing: "shoot") == nil)
        var c = ButtonConfiguration()
        c.doublePress = .toggleRecording
        c.longPress = .bracket(preset: "focus-stack")
        let data = try JSONEncoder().encode(c)
        #expect(String(decoding: data, as: UTF8.self).contains("\"bracket:focus-stack\""))
        #expect(try JSONDecoder().decode(ButtonConfiguration.self, from: data) == c)
        let bad = Data(#"{"press":"shoot"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ButtonConfiguration.self, from: bad) }
    }
}
