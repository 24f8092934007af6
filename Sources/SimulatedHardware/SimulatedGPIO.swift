import Hardware

/// A simulated GPIO input line. Levels are logical (true = active, pressed). Driving the line to a
/// new level delivers one edge, stamped with the given time, to the handler on the calling thread,
/// as the gpiod reader thread would.
public final class SimulatedInputLine: GPIOInputLine, Sendable {
    public let address: GPIOLineAddress
    private struct State: Sendable {
        var level: Bool
        var handler: (@Sendable (GPIOEdge) -> Void)?
        var failure = LineFailureReport()
        /// The failure the reader meets as soon as it starts (`failWhenStarted`).
        var failureAtStart: HardwareError?
        var failed = false
        var closed = false
        var edgesDelivered = 0
    }
    private let state: LockedValue<State>

    public init(address: GPIOLineAddress, initiallyActive: Bool = false) {
        self.address = address
        state = LockedValue(State(level: initiallyActive))
    }

    public func read() throws -> Bool {
        try state.withLock { s in
            if s.closed { throw HardwareError(.disconnected, "simulated \(address): read after close") }
            return s.level
        }
    }

    /// Installs the edge handler; this "starts the reader", which fails at once when
    /// `failWhenStarted` was called.
    public func setEdgeHandler(_ handler: @escaping @Sendable (GPIOEdge) -> Void) {
        let atStart = state.withLock { s -> HardwareError? in
            s.handler = handler
            defer { s.failureAtStart = nil }
            return s.failureAtStart
        }
        if let atStart { simulateFailure(atStart) }
    }

    /// As gpiod's line: a failure that came before the handler is delivered now, on this thread.
    public func setFailureHandler(_ handler: @escaping @Sendable (HardwareError) -> Void) {
        if let earlier = state.withLock({ $0.failure.setHandler(handler) }) { handler(earlier) }
    }

    /// Fault hook: the reader fails with `error` the moment it starts (the next `setEdgeHandler`),
    /// as gpiod's does when the chip is gone before the first wait (ENODEV).
    public func failWhenStarted(_ error: HardwareError) {
        state.withLock { $0.failureAtStart = error }
    }

    public func close() { state.withLock { $0.closed = true; $0.handler = nil; $0.failure.clear() } }

    /// Fault hook: the line's reader fails as gpiod's would (the chip went away). No edge is
    /// delivered after it; the failure handler runs once, on the calling thread (or when it is set).
    public func simulateFailure(_ error: HardwareError) {
        let handler = state.withLock { s -> (@Sendable (HardwareError) -> Void)? in
            guard !s.failed, !s.closed else { return nil }
            s.failed = true
            return s.failure.fail(error)
        }
        handler?(error)
    }

    /// The current level (for console output and tests).
    public var isActive: Bool { state.withLock { $0.level } }
    /// Edges delivered so far.
    public var edgesDelivered: Int { state.withLock { $0.edgesDelivered } }

    /// Drives the line; delivers an edge dated `timestamp` if the level changes and the line is open.
    public func drive(_ active: Bool, at timestamp: MonotonicTime) {
        let handler = state.withLock { s -> (@Sendable (GPIOEdge) -> Void)? in
            guard s.level != active else { return nil }
            s.level = active
            guard !s.closed, !s.failed else { return nil }
            s.edgesDelivered += 1
            return s.handler
        }
        handler?(GPIOEdge(kind: active ? .rising : .falling, timestamp: timestamp))
    }
}

/// Contact bounce added to a simulated press or release: `count` extra flips after the edge,
/// `gap` apart (an even count ends on the intended level; an odd count is rounded up to even).
public struct SimulatedBounce: Hashable, Sendable {
    public var count: Int
    public var gap: Duration
    public init(count: Int, gap: Duration) { self.count = count; self.gap = gap }
    public static let none = SimulatedBounce(count: 0, gap: .zero)
    /// A typical tactile switch: 4 flips 300 µs apart.
    public static let typical = SimulatedBounce(count: 4, gap: .microseconds(300))
}

/// A simulated shutter button (optionally two-stage) driven by scripts on an event loop's clock:
/// the API behind the console's `button press`, `button hold <ms>` and `button half`.
///
/// Each scripted action starts after the previous one has finished (plus `pauseBetweenActions`),
/// so console commands typed quickly play one after another. Edges are scheduled on `loop`, so with
/// a ManualEventLoop they happen as the test advances the clock.
public final class SimulatedButton: Sendable {
    public let loop: any EventLoop
    public let shutter: SimulatedInputLine
    /// The half-press contact; nil for a one-stage button.
    public let halfPress: SimulatedInputLine?
    /// The delay from the half contact closing to the shutter contact closing on a full press.
    public let halfToFullDelay: Duration
    public let pauseBetweenActions: Duration
    private let cursor = LockedValue<MonotonicTime?>(nil)
    private let halfHeld = LockedValue(false)

    public init(loop: any EventLoop, twoStage: Bool = true,
                shutter: GPIOLineAddress = GPIOLineAddress(name: "SHUTTER"),
                halfPress: GPIOLineAddress = GPIOLineAddress(name: "HALF_PRESS"),
                halfToFullDelay: Duration = .milliseconds(5), pauseBetweenActions: Duration = .milliseconds(50)) {
        self.loop = loop
        self.shutter = SimulatedInputLine(address: shutter)
        self.halfPress = twoStage ? SimulatedInputLine(address: halfPress) : nil
        self.halfToFullDelay = halfToFullDelay
        self.pauseBetweenActions = pauseBetweenActions
    }

    /// `button press`: a full press held `hold` (default 80 ms), with optional bounce on both edges.
    /// On a two-stage button the half contact closes first and opens last (unless held by `half`).
    /// Returns the time of the shutter's press edge.
    @discardableResult
    public func press(hold: Duration = .milliseconds(80), bounce: SimulatedBounce = .none) -> MonotonicTime {
        var t = reserveStart()
        let halfAlreadyHeld = halfHeld.current
        if let halfPress, !halfAlreadyHeld {
            schedule(halfPress, true, at: t)
            t = t + halfToFullDelay
        }
        let pressEdge = t
        t = flip(shutter, to: true, at: t, bounce: bounce)
        t = max(t, pressEdge + hold)
        t = flip(shutter, to: false, at: t, bounce: bounce)
        if let halfPress, !halfAlreadyHeld {
            t = t + halfToFullDelay
            schedule(halfPress, false, at: t)
        }
        finish(at: t)
        return pressEdge
    }

    /// `button hold <ms>`: a full press held for `milliseconds`.
    @discardableResult
    public func hold(milliseconds: Int, bounce: SimulatedBounce = .none) -> MonotonicTime {
        press(hold: .milliseconds(milliseconds), bounce: bounce)
    }

    /// `button half`: closes the half-press contact and keeps it closed (toggles: a second call
    /// opens it). Throws on a one-stage button.
    public func toggleHalfPress() throws {
        guard let halfPress else {
            throw HardwareError(.unsupported, "simulated button is one-stage: no half-press contact")
        }
        let t = reserveStart()
        let nowHeld = halfHeld.withLock { held -> Bool in held.toggle(); return held }
        schedule(halfPress, nowHeld, at: t)
        finish(at: t)
    }

    /// Chatter: `flips` level changes on the shutter line `gap` apart, starting from its level at
    /// that time (a noisy contact or a bad cable). Returns the time of the first flip.
    @discardableResult
    public func chatter(flips: Int, gap: Duration) -> MonotonicTime {
        let start = reserveStart()
        var t = start
        for i in 0..<max(0, flips) {
            let line = shutter
            let at = t
            loop.schedule(at: at) { line.drive(!line.isActive, at: at) }
            if i + 1 < flips { t = t + gap }
        }
        finish(at: t)
        return start
    }

    /// Flips `line` to `level` at `t`, then bounces; returns when the last flip happens.
    private func flip(_ line: SimulatedInputLine, to level: Bool, at t: MonotonicTime, bounce: SimulatedBounce) -> MonotonicTime {
        schedule(line, level, at: t)
        var time = t
        let flips = bounce.count + bounce.count % 2
        for i in 0..<flips {
            time = time + bounce.gap
            schedule(line, i % 2 == 0 ? !level : level, at: time)
        }
        return time
    }

    private func schedule(_ line: SimulatedInputLine, _ level: Bool, at t: MonotonicTime) {
        loop.schedule(at: t) { line.drive(level, at: t) }
    }

    private func reserveStart() -> MonotonicTime {
        let now = loop.now()
        return cursor.withLock { c in c.map { max(now, $0 + pauseBetweenActions) } ?? now }
    }

    private func finish(at t: MonotonicTime) { cursor.withLock { $0 = t } }
}

/// One level change of a simulated LED.
public struct LEDLevelChange: Hashable, Sendable {
    public var time: MonotonicTime
    public var isOn: Bool
    public init(time: MonotonicTime, isOn: Bool) { self.time = time; self.isOn = isOn }
}

/// A simulated output line (the status LED) that records every level change on the loop's clock.
public final class SimulatedLED: GPIOOutputLine, Sendable {
    public let address: GPIOLineAddress
    public let clock: any EventLoop
    private struct State: Sendable {
        var isOn = false
        var history: [LEDLevelChange] = []
        var writeFault: HardwareError?
        var closed = false
    }
    private let state = LockedValue(State())

    public init(address: GPIOLineAddress = GPIOLineAddress(name: "LED"), clock: any EventLoop) {
        self.address = address; self.clock = clock
    }

    public func write(_ active: Bool) throws {
        let now = clock.now()
        try state.withLock { s in
            if let fault = s.writeFault { throw fault }
            if s.closed { throw HardwareError(.disconnected, "simulated \(address): write after close") }
            guard s.isOn != active || s.history.isEmpty else { return }
            s.isOn = active
            if s.history.count >= Self.historyLimit { s.history.removeFirst(s.history.count / 2) }
            s.history.append(LEDLevelChange(time: now, isOn: active))
        }
    }

    /// The most changes `history` keeps (the older half goes when it is full): a blinking LED
    /// changes level ten times a second, and a soak runs for hours.
    public static let historyLimit = 4096

    public func close() { state.withLock { $0.closed = true } }

    public var isOn: Bool { state.withLock { $0.isOn } }
    /// The recent changes of level (the first write is always recorded), oldest first: at most
    /// `historyLimit`.
    public var history: [LEDLevelChange] { state.withLock { $0.history } }
    /// Makes every later write throw `fault` (nil clears it).
    public func injectWriteFault(_ fault: HardwareError?) { state.withLock { $0.writeFault = fault } }
}
