import Hardware
import SimulatedHardware
import Testing
@testable import Controls

private let W = Duration.milliseconds(10), L = Duration.milliseconds(800), D = Duration.milliseconds(300)

@Suite struct ButtonGestureTests {
    static let origin = MonotonicTime(nanoseconds: 10_000_000_000)

    struct Mapping: CustomStringConvertible, Sendable {
        var long: Bool, double: Bool
        var description: String { "long \(long) double \(double)" }
        var configuration: ButtonConfiguration {
            var c = ButtonConfiguration()
            c.debounceWindowMilliseconds = 10; c.longPressThresholdMilliseconds = 800; c.doublePressWindowMilliseconds = 300
            c.press = .capture
            c.longPress = long ? .bracket(preset: "hdr5") : nil
            c.doublePress = double ? .toggleRecording : nil
            return c
        }
    }

    /// The gestures a sequence of clean presses must give, by the rules in GestureRecognizer.
    static func expected(_ presses: [(down: MonotonicTime, up: MonotonicTime)], _ m: Mapping) -> [SeenGesture] {
        var out: [SeenGesture] = []
        var i = 0
        while i < presses.count {
            let p = presses[i]
            defer { i += 1 }
            if !m.long && !m.double { out.append(.init(gesture: .press, edge: p.down, decidedAt: p.down)); continue }
            if m.long && p.up - p.down >= L { out.append(.init(gesture: .longPress, edge: p.down, decidedAt: p.down + L)); continue }
            if !m.double { out.append(.init(gesture: .press, edge: p.down, decidedAt: p.up)); continue }
            if i + 1 < presses.count, presses[i + 1].down - p.up < D {
                out.append(.init(gesture: .doublePress, edge: presses[i + 1].down, decidedAt: presses[i + 1].down))
                i += 1  // the second press is consumed by the double press
                continue
            }
            out.append(.init(gesture: .press, edge: p.down, decidedAt: p.up + D))
        }
        return out
    }

    static let mappings = [Mapping(long: false, double: false), Mapping(long: true, double: false),
                           Mapping(long: false, double: true), Mapping(long: true, double: true)]

    /// Every mapping × bounce count × bounce gap × first hold × (no second press, or a second press
    /// after gaps around the double-press window with two holds): exact gestures, exact times.
    @Test(arguments: mappings)
    func gesturesAroundThresholdsWithBounce(mapping: Mapping) {
        let holds: [Duration] = [.milliseconds(200), L - .microseconds(1), L, L + .microseconds(1)]
        let seconds: [(gap: Duration, hold: Duration)?] = [nil] + [D - .microseconds(1), D, D + .microseconds(1)]
            .flatMap { gap in [(gap, Duration.milliseconds(200)), (gap, L)] }
        var cases = 0
        for pairs in [0, 1, 3] {
            for gap in [Duration.microseconds(1), W - .nanoseconds(1)] {
                for hold in holds {
                    for second in seconds {
                        var presses = [(down: Self.origin, up: Self.origin + hold)]
                        if let second {
                            let down = presses[0].up + second.gap
                            presses.append((down, down + second.hold))
                        }
                        let rig = ButtonRig(mapping.configuration)
                        for p in presses { rig.press(down: p.down, up: p.up, bouncePairs: pairs, gap: gap) }
                        rig.loop.base.runUntilIdle(limit: .seconds(15))
                        let want = Self.expected(presses, mapping)
                        #expect(rig.gestures == want, "pairs \(pairs) gap \(gap) hold \(hold) second \(String(describing: second))")
                        // Bounded work: never more than one live timer.
                        #expect(rig.loop.maxLiveTimers <= 1)
                        cases += 1
                    }
                }
            }
        }
        #expect(cases == 3 * 2 * 4 * 7)
    }

    /// Chatter bursts of 1...8 flips with gaps inside the window: one press at most per burst; in
    /// settled mode, only a burst that ends pressed is a press.
    @Test(arguments: [DebounceMode.leadingEdge, .settled])
    func chatterBurstsGiveAtMostOnePress(mode: DebounceMode) {
        for flips in 1...8 {
            for gap in [Duration.microseconds(1), W / 2, W - .nanoseconds(1)] {
                var c = ButtonConfiguration()
                c.debounceMode = mode
                let rig = ButtonRig(c)
                var t = Self.origin
                for i in 0..<flips {
                    rig.drive(rig.shutter, i % 2 == 0, at: t)
                    t = t + gap
                }
                rig.loop.base.runUntilIdle(limit: .seconds(12))
                let expectedPresses = mode == .leadingEdge || flips % 2 == 1 ? 1 : 0
                #expect(rig.gestures.count == expectedPresses, "flips \(flips) gap \(gap)")
                if let g = rig.gestures.first {
                    #expect(g.edge == Self.origin)
                    #expect(g.decidedAt == (mode == .leadingEdge ? Self.origin : t - gap + W))
                }
                #expect(rig.loop.maxLiveTimers <= 1)
            }
        }
    }

    @Test func lateTimerDoesNotTurnAShortPressIntoALongOne() {
        var r = GestureRecognizer(longPressThreshold: L, doublePressWindow: D,
                                  recognisesLongPress: true, recognisesDoublePress: false)
        let t0 = Self.origin
        #expect(r.shutterChanged(isActive: true, at: t0, now: t0).isEmpty)
        #expect(r.nextDeadline == t0 + L)
        // The release is dated before the threshold but reaches the recogniser late.
        let late = t0 + L + .milliseconds(50)
        let g = r.shutterChanged(isActive: false, at: t0 + L - .microseconds(1), now: late)
        #expect(g == [RecognizedGesture(.press, edge: t0, decidedAt: late)])
        #expect(!r.isBusy)
    }

    @Test func unmappedGesturesAreNotWaitedFor() {
        var r = GestureRecognizer(configuration: ButtonConfiguration())
        let t0 = Self.origin
        #expect(r.shutterChanged(isActive: true, at: t0, now: t0) == [RecognizedGesture(.press, edge: t0, decidedAt: t0)])
        #expect(r.nextDeadline == nil)
    }
}
