import Hardware

/// The service watchdog, pinged from the supervisor's main loop itself.
///
/// systemd restarts the service when no `WATCHDOG=1` arrives within `WatchdogSec=`. Pings are sent
/// from `tick(now:)`, which the main loop calls on every iteration (and from a periodic loop timer,
/// `scheduleTicks(on:)`, so an idle loop still ticks). A loop stuck in a handler never ticks, the
/// pings stop, and systemd restarts the process. There is deliberately no separate timer thread.
///
/// Loop-confined: call it only on the supervisor's event loop.
public final class Watchdog {
    /// `WatchdogSec=` as systemd passed it; nil when no watchdog is armed.
    public let timeout: Duration?
    /// Pings go out at least this often: half the timeout, as `sd_watchdog_enabled(3)` advises.
    public var pingInterval: Duration? { timeout.map { $0 / 2 } }
    /// Pings sent so far.
    public private(set) var pingCount = 0
    /// When the last ping went out, on the loop's clock.
    public private(set) var lastPing: MonotonicTime?

    private let notifier: any ServiceNotifier

    /// Arms the watchdog with the notifier's timeout (`notifier.watchdogTimeout`).
    public init(notifier: any ServiceNotifier) {
        self.notifier = notifier
        self.timeout = notifier.watchdogTimeout
    }

    /// Called on each main-loop iteration: sends `WATCHDOG=1` when `pingInterval` has passed since
    /// the last ping (or none was sent yet). Returns true when it pinged. Throws when sending failed.
    @discardableResult
    public func tick(now: MonotonicTime) throws -> Bool {
        guard let interval = pingInterval else { return false }
        if let last = lastPing, now - last < interval { return false }
        try notifier.notify(.watchdog)
        lastPing = now
        pingCount += 1
        return true
    }

    /// Schedules `tick` on `loop` every quarter timeout, so an idle loop still pings every half
    /// timeout. The work runs on the loop: if the loop is stuck, ticks (and pings) stop.
    /// Returns nil when no watchdog is armed; cancel the returned handle on shutdown.
    /// `onError` receives send failures (for the log); ticking continues.
    public func scheduleTicks(on loop: any EventLoop,
                              onError: @escaping @Sendable (any Error) -> Void = { _ in }) -> WatchdogTicks? {
        guard let timeout else { return nil }
        let ticks = WatchdogTicks()
        let period = timeout / 4
        let bound = LoopBound(self, loop: loop)
        @Sendable func step() {
            guard !ticks.isCancelled else { return }
            do { try bound.value.tick(now: loop.now()) } catch { onError(error) }
            ticks.replace(loop.schedule(after: period, step))
        }
        loop.execute(step)
        return ticks
    }
}

/// The periodic watchdog ticks on a loop; `cancel()` stops them (on shutdown, before STOPPING=1).
public final class WatchdogTicks: Sendable {
    private let state = LockedValue<(cancelled: Bool, pending: ScheduledWork?)>((false, nil))

    init() {}

    public func cancel() {
        let pending = state.withLock { s -> ScheduledWork? in
            s.cancelled = true
            return s.pending
        }
        pending?.cancel()
    }

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    func replace(_ work: ScheduledWork) {
        state.withLock { $0.pending = work }
    }
}
