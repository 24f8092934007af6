/// A serial executor with a monotonic clock and timers: the one place where supervisor state changes.
///
/// Two implementations exist: a thread-backed loop on the real clock (LinuxHardware) and
/// `ManualEventLoop` (ManualLoop), whose clock only moves when a test advances it, so that
/// an hour of streaming runs in milliseconds and deterministically (the swift-nio EmbeddedEventLoop
/// pattern). Hardware callbacks arriving on other threads hand their work over with `execute`,
/// which never blocks.
public protocol EventLoop: AnyObject, Sendable {
    /// Monotonic now, on this loop's clock.
    func now() -> MonotonicTime

    /// Runs `work` on the loop as soon as possible, after work already submitted.
    func execute(_ work: @escaping @Sendable () -> Void)

    /// Runs `work` on the loop at `deadline` (or as soon after as the loop gets to it).
    @discardableResult
    func schedule(at deadline: MonotonicTime, _ work: @escaping @Sendable () -> Void) -> ScheduledWork

    /// True when the caller is running on this loop.
    var inEventLoop: Bool { get }

    /// True on the loop, and on any thread while no thread runs it (start-up before `run`, a test
    /// between turns of a manual loop): where a loop-confined object may be touched.
    var inEventLoopOrNotRunning: Bool { get }
}

extension EventLoop {
    /// Runs `work` after `delay`.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        schedule(at: now() + delay, work)
    }

    /// Stops the process when called off the loop: a programming error, never an environmental one.
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "called off the event loop", file: file, line: line)
    }
}

/// A handle on scheduled work; `cancel()` stops it running if it has not run yet.
public final class ScheduledWork: Sendable {
    private let state = LockedValue(false)
    public init() {}
    public func cancel() { state.withLock { $0 = true } }
    public var isCancelled: Bool { state.withLock { $0 } }
}

/// A value confined to one event loop that may be carried across concurrency domains.
///
/// Reading or writing it off its loop is a programming error and traps. This is the one
/// `@unchecked Sendable` that lets loop-confined objects (the supervisor, simulated devices) be
/// captured by the `@Sendable` closures that hardware callbacks post to the loop.
public struct LoopBound<Value>: @unchecked Sendable {
    public let loop: any EventLoop
    private let stored: Value

    public init(_ value: Value, loop: any EventLoop) {
        self.loop = loop
        self.stored = value
    }

    public var value: Value {
        loop.preconditionInEventLoop()
        return stored
    }
}

/// A loop-confined object held weakly, for callbacks that the object's own parts keep: a strong
/// `LoopBound` there is a retain cycle (owner → part → callback → owner) that keeps the owner and
/// everything it holds alive after its last user lets go. `value` is nil once it has gone.
public struct WeakLoopBound<Value: AnyObject>: @unchecked Sendable {
    public let loop: any EventLoop
    private weak var stored: Value?

    public init(_ value: Value, loop: any EventLoop) {
        self.loop = loop
        self.stored = value
    }

    public var value: Value? {
        loop.preconditionInEventLoop()
        return stored
    }
}

/// A weak handle on a loop-confined object, made before the object exists: its parts are built in
/// its `init` with callbacks that need it, and it is attached once, at the end of that `init`.
/// Weak for the same reason as `WeakLoopBound`; `value` is nil before `attach` and once it has gone.
public final class LateBound<Value: AnyObject>: @unchecked Sendable {
    public let loop: any EventLoop
    private weak var stored: Value?

    public init(loop: any EventLoop) { self.loop = loop }

    /// Called once, by the object's `init`, when it is whole.
    public func attach(_ value: Value) { stored = value }

    public var value: Value? {
        loop.preconditionInEventLoop()
        return stored
    }

    /// The object, for a caller confined with it that may run before the loop does: the settings
    /// store's followers, which a config file's lines reach at start-up, before `run`. Traps on
    /// another thread while the loop runs.
    public var valueWhereConfined: Value? {
        precondition(loop.inEventLoopOrNotRunning, "called off the event loop while it runs")
        return stored
    }
}
