import Foundation
import Hardware
import Synchronization

/// The real event loop: runs on the thread that calls `run()` (the main thread in `tripod run`),
/// with timers on CLOCK_MONOTONIC and sleeps that wait on it too (`MonotonicCondition`), so an NTP
/// step does not stretch them. Other threads hand work over with `execute`. The queue of handed-over
/// work holds at most `maximumPendingWork` items: a thread that finds it full waits for room (a
/// device flooding a stuck loop is held back instead of growing memory without bound; the loop's
/// own thread never waits). Cancelled timers are dropped at the next turn, not at their deadline.
///
/// The loop wakes at least every `tickInterval`; the systemd watchdog is fed by a timer of its own
/// (`Watchdog.scheduleTicks`): a stuck loop stops feeding it, and systemd restarts the service.
public final class PosixEventLoop: EventLoop, @unchecked Sendable {
    // `condition` guards `pending`, `timers`, `stopRequested`, `running`, `waitsForRoom`; the rest is loop-confined.
    private let condition = MonotonicCondition()
    /// Work items queued by `execute` at most before producers wait.
    public let maximumPendingWork: Int
    private var running = false
    /// The longest a producer waits for room before it queues anyway.
    static let longestWaitForRoom: Duration = .seconds(2)
    private var waitsForRoom = 0
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

    /// The longest the loop sleeps without waking.
    public var tickInterval: Duration = .milliseconds(500)

    public init(maximumPendingWork: Int = 65_536) {
        self.maximumPendingWork = max(1, maximumPendingWork)
    }

    /// Timers not yet run or dropped (cancelled ones go at the next turn).
    public var timerCount: Int {
        condition.lock(); defer { condition.unlock() }
        return timers.count
    }

    /// Work items waiting for the loop, and how many times a producer waited for room.
    /// The clock the loop's sleeps wait on (CLOCK_MONOTONIC).
    public var sleepClock: clockid_t { condition.clock }

    public var pendingCounts: (pending: Int, waitsForRoom: Int) {
        condition.lock(); defer { condition.unlock() }
        return (pending.count, waitsForRoom)
    }

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

    public var inEventLoopOrNotRunning: Bool {
        loopThread.withLock { t in t.map { pthread_equal($0, pthread_self()) != 0 } ?? true }
    }

    public func execute(_ work: @escaping @Sendable () -> Void) {
        let onLoop = inEventLoop
        condition.lock()
        // Full: wait for the loop to take a batch (never on the loop itself, never once stopping).
        // At most `longestWaitForRoom`: a loop blocked on this very producer must not deadlock; a
        // loop stuck that long is the watchdog's to catch.
        let giveUp = now() + Self.longestWaitForRoom
        while !onLoop, running, !stopRequested, pending.count >= maximumPendingWork, now() < giveUp {
            waitsForRoom += 1
            condition.waitForRoom(until: min(giveUp, now() + .milliseconds(100)))
        }
        pending.append(work)
        condition.signalWork()
        condition.unlock()
    }

    @discardableResult
    public func schedule(at deadline: MonotonicTime, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let handle = ScheduledWork()
        condition.lock()
        timers.append(Timer(deadline: deadline, order: nextOrder, handle: handle, work: work))
        nextOrder += 1
        condition.signalWork()
        condition.unlock()
        return handle
    }

    /// Asks `run()` to return after the work already queued (later work is dropped).
    public func stop() {
        condition.lock()
        stopRequested = true
        condition.signalWork()
        condition.broadcastRoom()
        condition.unlock()
    }

    /// Runs work and timers on the calling thread until `stop()`.
    public func run() {
        loopThread.withLock { $0 = pthread_self() }
        condition.lock(); running = true; condition.unlock()
        defer {
            loopThread.withLock { $0 = nil }
            condition.lock(); running = false; condition.broadcastRoom(); condition.unlock()
        }
        while true {
            condition.lock()
            timers.removeAll { $0.handle.isCancelled }
            while pending.isEmpty && !stopRequested && !timerDue() {
                let wake = min(earliestDeadline() ?? .max, now() + tickInterval)
                condition.waitForWork(until: wake)
                if wake <= now() { break }
            }
            let stopping = stopRequested
            var batch = pending
            pending.removeAll(keepingCapacity: true)
            condition.broadcastRoom()
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

    private func earliestDeadline() -> MonotonicTime? { timers.lazy.filter { !$0.handle.isCancelled }.map(\.deadline).min() }
}

extension MonotonicTime {
    static let max = MonotonicTime(nanoseconds: .max / 2)
}
