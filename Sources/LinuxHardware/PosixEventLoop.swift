import Foundation
import Hardware
import Synchronization

/// The real event loop: runs on the thread that calls `run()` (the main thread in `tripod run`),
/// with timers on CLOCK_MONOTONIC. Other threads hand work over with `execute`, which never blocks
/// for longer than a queue append.
///
/// `onTick` runs on the loop once per iteration (at least every `tickInterval`), which is where the
/// systemd watchdog is fed: a stuck loop stops ticking, and systemd restarts the service.
public final class PosixEventLoop: EventLoop, @unchecked Sendable {
    // `condition` guards `pending`, `timers`, `stopRequested`; the rest is loop-confined.
    private let condition = NSCondition()
    private var pending: [@Sendable () -> Void] = []
    private var timers: [Timer] = []
    private var nextOrder: UInt64 = 0
    private var stopRequested = false
    private let loopThread = Mutex<pthread_t?>(nil)

    private struct Timer {
        var deadline: MonotonicTime
        var order: UInt64
        var handle: ScheduledWork
        var work: @Sendable () -> Void
    }

    /// Runs on the loop each iteration; set before `run()`.
    public var onTick: (() -> Void)?
    /// The longest the loop sleeps without ticking.
    public var tickInterval: Duration = .milliseconds(500)

    public init() {}

    public func now() -> MonotonicTime { Self.monotonicNow() }

    /// CLOCK_MONOTONIC via `clock_gettime`.
    public static func monotonicNow() -> MonotonicTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    public var inEventLoop: Bool {
        loopThread.withLock { t in t.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    public func execute(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append(work)
        condition.signal()
        condition.unlock()
    }

    @discardableResult
    public func schedule(at deadline: MonotonicTime, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let handle = ScheduledWork()
        condition.lock()
        timers.append(Timer(deadline: deadline, order: nextOrder, handle: handle, work: work))
        nextOrder += 1
        condition.signal()
        condition.unlock()
        return handle
    }

    /// Asks `run()` to return after the work already queued (later work is dropped).
    public func stop() {
        condition.lock()
        stopRequested = true
        condition.signal()
        condition.unlock()
    }

    /// Runs work and timers on the calling thread until `stop()`.
    public func run() {
        loopThread.withLock { $0 = pthread_self() }
        defer { loopThread.withLock { $0 = nil } }
        while true {
            onTick?()
            condition.lock()
            while pending.isEmpty && !stopRequested && !timerDue() {
                let wake = min(earliestDeadline() ?? .max, now() + tickInterval)
                let seconds = max(0, (wake - now()).secondsValue)
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
                if wake <= now() { break }
            }
            let stopping = stopRequested
            var batch = pending
            pending.removeAll(keepingCapacity: true)
            let current = now()
            let due = timers.filter { $0.deadline <= current }.sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
            timers.removeAll { $0.deadline <= current }
            condition.unlock()
            for timer in due where !timer.handle.isCancelled { batch.append(timer.work) }
            for work in batch { work() }
            // Stop after the work that was queued when stop() was asked for: devices that keep
            // posting (an IMU, camera completions) must not keep a stopped loop alive.
            if stopping { return }
        }
    }

    private func timerDue() -> Bool {
        let current = now()
        return timers.contains { $0.deadline <= current }
    }

    private func earliestDeadline() -> MonotonicTime? { timers.map(\.deadline).min() }
}

extension MonotonicTime {
    static let max = MonotonicTime(nanoseconds: .max / 2)
}
