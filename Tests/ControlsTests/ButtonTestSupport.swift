import Hardware
import ManualLoop
import SimulatedHardware
@testable import Controls

/// An EventLoop wrapper around ManualEventLoop that counts hops and live timers.
final class CountingLoop: EventLoop, @unchecked Sendable {
    let base: ManualEventLoop
    private struct Counts: Sendable {
        var executes = 0
        var schedules = 0
        var maxLiveTimers = 0
        var timers: [(handle: ScheduledWork, ran: LockedValue<Bool>)] = []
    }
    private let counts = LockedValue(Counts())

    init(_ base: ManualEventLoop = ManualEventLoop()) { self.base = base }

    func now() -> MonotonicTime { base.now() }
    var inEventLoop: Bool { base.inEventLoop }
    var inEventLoopOrNotRunning: Bool { base.inEventLoopOrNotRunning }

    func execute(_ work: @escaping @Sendable () -> Void) {
        counts.withLock { $0.executes += 1 }
        base.execute(work)
    }

    @discardableResult
    func schedule(at deadline: MonotonicTime, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let ran = LockedValue(false)
        let handle = base.schedule(at: deadline) { ran.withLock { $0 = true }; work() }
        counts.withLock { c in
            c.schedules += 1
            c.timers.append((handle, ran))
            c.timers.removeAll { $0.ran.current || $0.handle.isCancelled }
            c.maxLiveTimers = max(c.maxLiveTimers, c.timers.count)
        }
        return handle
    }

    var executes: Int { counts.withLock { $0.executes } }
    var schedules: Int { counts.withLock { $0.schedules } }
    /// The most timers pending (not run, not cancelled) at once, sampled at each schedule.
    var maxLiveTimers: Int { counts.withLock { $0.maxLiveTimers } }
}

/// What a controller said, with the loop time it said it.
struct Said: Hashable {
    var output: ButtonOutput
    var at: MonotonicTime
}

/// A gesture as seen in the outputs: its kind, edge time and when it was reported.
struct SeenGesture: Hashable, CustomStringConvertible {
    var gesture: ButtonGesture
    var edge: MonotonicTime
    var decidedAt: MonotonicTime
    var description: String { "\(gesture.rawValue)(edge \(edge), at \(decidedAt))" }
}

/// A controller on simulated lines, recording its outputs.
final class ButtonRig {
    let loop: CountingLoop
    let shutter: SimulatedInputLine
    let half: SimulatedInputLine
    let controller: ButtonController
    private(set) var said: [Said] = []

    init(_ configuration: ButtonConfiguration, twoStage: Bool = false, shutterHeldAtStart: Bool = false) {
        let loop = CountingLoop()
        self.loop = loop
        shutter = SimulatedInputLine(address: GPIOLineAddress(name: "SHUTTER"), initiallyActive: shutterHeldAtStart)
        half = SimulatedInputLine(address: GPIOLineAddress(name: "HALF_PRESS"))
        var sink: ((ButtonOutput) -> Void)?
        controller = ButtonController(configuration: configuration, loop: loop, shutter: shutter,
                                      halfPress: twoStage ? half : nil) { sink?($0) }
        sink = { [unowned self] output in said.append(Said(output: output, at: loop.now())) }
        let bound = LoopBound(controller, loop: loop)
        loop.base.execute { bound.value.start() }
        loop.base.run()
    }

    /// Schedules the shutter line to `level` at `time`.
    func drive(_ line: SimulatedInputLine, _ level: Bool, at time: MonotonicTime) {
        loop.base.schedule(at: time) { line.drive(level, at: time) }
    }

    /// Schedules a press from `down` to `up` with `pairs` bounce pairs `gap` apart after each edge.
    func press(down: MonotonicTime, up: MonotonicTime, bouncePairs: Int = 0, gap: Duration = .zero) {
        for (edge, level) in [(down, true), (up, false)] {
            drive(shutter, level, at: edge)
            var t = edge
            for i in 0..<(2 * bouncePairs) {
                t = t + gap
                drive(shutter, i % 2 == 0 ? !level : level, at: t)
            }
        }
    }

    var gestures: [SeenGesture] {
        said.compactMap { s in
            switch s.output {
            case .perform(let c), .queued(let c), .rejected(let c, _):
                return SeenGesture(gesture: c.gesture, edge: c.edgeTimestamp, decidedAt: s.at)
            case .lockFocusAndExposure(let t): return SeenGesture(gesture: .halfPress, edge: t, decidedAt: s.at)
            case .unlockFocusAndExposure(let t): return SeenGesture(gesture: .halfRelease, edge: t, decidedAt: s.at)
            case .lineFailed: return nil
            }
        }
    }

    func performed() -> [ButtonCommand] {
        said.compactMap { if case .perform(let c) = $0.output { return c } else { return nil } }
    }
}

extension ButtonRig {
    /// Runs `body` with the controller on its loop (as the supervisor would).
    func onLoop(_ body: @escaping (ButtonController) -> Void) {
        let bound = LoopBound((controller, body), loop: loop)
        loop.base.execute { let (c, b) = bound.value; b(c) }
        loop.base.run()
    }
}
