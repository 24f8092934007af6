import Hardware
import ManualLoop
import SimulatedHardware
import Testing

@Suite struct SimulatedGPIOTests {
    /// Records every edge of the button's lines as "line:kind@ms since start".
    final class Recorder: Sendable {
        let edges = LockedValue<[String]>([])
        func attach(_ line: SimulatedInputLine, as name: String, start: MonotonicTime) {
            line.setEdgeHandler { [edges] edge in
                let ms = Double((edge.timestamp - start).nanoseconds) / 1e6
                edges.withLock { $0.append("\(name):\(edge.kind == .rising ? "r" : "f")@\(ms)") }
            }
        }
    }

    @Test func pressOnATwoStageButtonClosesHalfFirstAndOpensItLast() throws {
        let loop = ManualEventLoop()
        let button = SimulatedButton(loop: loop)
        let start = loop.now()
        let recorder = Recorder()
        recorder.attach(button.shutter, as: "S", start: start)
        recorder.attach(try #require(button.halfPress), as: "H", start: start)
        let edge = button.press(hold: .milliseconds(80))
        #expect(edge == start + .milliseconds(5))
        loop.advance(by: .seconds(1))
        #expect(recorder.edges.current == ["H:r@0.0", "S:r@5.0", "S:f@85.0", "H:f@90.0"])
    }

    @Test func bounceAddsEvenFlipsAndEndsOnTheIntendedLevel() {
        let loop = ManualEventLoop()
        let button = SimulatedButton(loop: loop, twoStage: false)
        let start = loop.now()
        let recorder = Recorder()
        recorder.attach(button.shutter, as: "S", start: start)
        button.press(hold: .milliseconds(10), bounce: SimulatedBounce(count: 3, gap: .milliseconds(1)))
        loop.advance(by: .seconds(1))
        #expect(recorder.edges.current == ["S:r@0.0", "S:f@1.0", "S:r@2.0", "S:f@3.0", "S:r@4.0",
                                           "S:f@10.0", "S:r@11.0", "S:f@12.0", "S:r@13.0", "S:f@14.0"])
        #expect(button.shutter.isActive == false)
    }

    @Test func scriptedActionsQueueOneAfterAnother() {
        let loop = ManualEventLoop()
        let button = SimulatedButton(loop: loop, twoStage: false, pauseBetweenActions: .milliseconds(50))
        let first = button.hold(milliseconds: 1000)
        let second = button.press()
        #expect(second == first + .milliseconds(1050))
        let chatter = button.chatter(flips: 5, gap: .microseconds(100))
        #expect(chatter == second + .milliseconds(80) + .milliseconds(50))
        loop.advance(by: .seconds(3))
        #expect(button.shutter.edgesDelivered == 2 + 2 + 5)
        #expect(button.shutter.isActive)  // an odd number of flips leaves it pressed
    }

    @Test func halfToggleHoldsThenReleases() throws {
        let loop = ManualEventLoop()
        let button = SimulatedButton(loop: loop)
        try button.toggleHalfPress()
        loop.run()
        #expect(button.halfPress?.isActive == true)
        button.press()  // a full press while half is held keeps half held
        loop.advance(by: .seconds(1))
        #expect(button.halfPress?.isActive == true)
        try button.toggleHalfPress()
        loop.advance(by: .seconds(1))
        #expect(button.halfPress?.isActive == false)
    }

    @Test func closedLineDeliversNothingAndRefusesReads() {
        let line = SimulatedInputLine(address: GPIOLineAddress(name: "SHUTTER"))
        let count = LockedValue(0)
        line.setEdgeHandler { _ in count.withLock { $0 += 1 } }
        line.drive(true, at: .zero)
        line.drive(true, at: .zero)  // same level: no edge
        line.close()
        line.drive(false, at: .zero)
        #expect(count.current == 1)
        #expect(throws: HardwareError.self) { try line.read() }
    }

    @Test func ledRecordsChangesAndInjectedFaults() throws {
        let loop = ManualEventLoop()
        let led = SimulatedLED(clock: loop)
        try led.write(false)
        try led.write(false)
        loop.advance(by: .milliseconds(5))
        try led.write(true)
        #expect(led.history == [LEDLevelChange(time: loop.now() - .milliseconds(5), isOn: false),
                                LEDLevelChange(time: loop.now(), isOn: true)])
        led.injectWriteFault(HardwareError(.io, "LED: EIO"))
        #expect(throws: HardwareError.self) { try led.write(false) }
        #expect(led.isOn)
    }

    @Test func ledHistoryStaysBoundedOverALongBlink() throws {
        let loop = ManualEventLoop()
        let led = SimulatedLED(clock: loop)
        for i in 0..<(3 * SimulatedLED.historyLimit) {
            try led.write(i % 2 == 0)
            loop.advance(by: .milliseconds(100))
        }
        let history = led.history
        #expect(history.count <= SimulatedLED.historyLimit)
        #expect(history.count >= SimulatedLED.historyLimit / 2)
        #expect(history.last == LEDLevelChange(time: loop.now() - .milliseconds(100), isOn: false), "the newest kept")
    }
}
