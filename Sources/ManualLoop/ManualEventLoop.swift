import Hardware

/// An event loop whose clock moves only when told: the embedded loop for tests and simulations.
///
/// Work runs on the thread that calls `run()` or `advance(...)`, in deadline order (ties in
/// submission order), so a test that advances an hour gets the same result every time.
/// Work submitted from other threads is queued and runs at the next `run()`.
public final class ManualEventLoop: EventLoop, @unchecked Sendable {
    // Guarded by `lock`; the loop's "thread" is whoever is running it.
    private struct Entry {
        var deadline: MonotonicTime
        var order: UInt64
        var handle: ScheduledWork?
        var work: @Sendable () -> Void
    }

    private let lock = LockedValue(State())
    private struct State: Sendable {
        var now: MonotonicTime = MonotonicTime(nanoseconds: 1_000_000_000)
        var nextOrder: UInt64 = 0
        var runner: ObjectIdentifierBox? = nil
        var entries: [EntryBox] = []
    }
    // Boxes that let Entry (holding a closure) live inside a Sendable state.
    private final class EntryBox: @unchecked Sendable {
        let entry: Entry
        init(_ entry: Entry) { self.entry = entry }
    }
    private struct ObjectIdentifierBox: Sendable, Equatable { let thread: UInt }

    /// Starts at 1 s on its clock (a non-zero origin catches code that treats 0 as "unset").
    public init(start: MonotonicTime = MonotonicTime(nanoseconds: 1_000_000_000)) {
        lock.withLock { $0.now = start }
    }

    public func now() -> MonotonicTime { lock.withLock { $0.now } }

    public var inEventLoop: Bool {
        let me = Self.currentThreadID()
        return lock.withLock { $0.runner == ObjectIdentifierBox(thread: me) }
    }

    public var inEventLoopOrNotRunning: Bool {
        let me = Self.currentThreadID()
        return lock.withLock { $0.runner == nil || $0.runner == ObjectIdentifierBox(thread: me) }
    }

    public func execute(_ work: @escaping @Sendable () -> Void) {
        enqueue(at: nil, handle: nil, work)
    }

    @discardableResult
    public func schedule(at deadline: MonotonicTime, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let handle = ScheduledWork()
        enqueue(at: deadline, handle: handle, work)
        return handle
    }

    private func enqueue(at deadline: MonotonicTime?, handle: ScheduledWork?, _ work: @escaping @Sendable () -> Void) {
        lock.withLock { s in
            // Cancelled timers go now, not at their deadline: with the clock standing still (a fuzz
            // run, a test that never advances) they would otherwise pile up with what they hold.
            s.entries.removeAll { $0.entry.handle?.isCancelled == true }
            let entry = Entry(deadline: deadline ?? s.now, order: s.nextOrder, handle: handle, work: work)
            s.nextOrder += 1
            s.entries.append(EntryBox(entry))
        }
    }

    /// Runs `body` on the loop (on the calling thread, which counts as the loop's while it runs),
    /// then everything it made due. For tests and simulations that drive the loop by hand.
    public func perform<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let me = ObjectIdentifierBox(thread: Self.currentThreadID())
        let outer = lock.withLock { s -> ObjectIdentifierBox? in
            let previous = s.runner
            s.runner = me
            return previous
        }
        let result: T
        do {
            defer { lock.withLock { $0.runner = outer } }
            result = try body()
        }
        run()
        return result
    }

    /// Runs everything that is due now, including work that due work submits. Returns the count run.
    @discardableResult
    public func run() -> Int { advance(to: now()) }

    /// Moves the clock forward by `duration`, running due work in deadline order on the way.
    @discardableResult
    public func advance(by duration: Duration) -> Int { advance(to: now() + duration) }

    /// Moves the clock to `target`, running due work in deadline order; the clock stops at each
    /// deadline while its work runs, so `now()` inside work equals its deadline.
    @discardableResult
    public func advance(to target: MonotonicTime) -> Int {
        let me = ObjectIdentifierBox(thread: Self.currentThreadID())
        let outer = lock.withLock { s -> ObjectIdentifierBox? in
            let previous = s.runner
            s.runner = me
            return previous
        }
        defer { lock.withLock { $0.runner = outer } }
        var count = 0
        while let next = popNext(upTo: target) {
            if next.handle?.isCancelled == true { continue }
            next.work()
            count += 1
        }
        lock.withLock { s in
            if s.now < target { s.now = target }
            s.entries.removeAll { $0.entry.handle?.isCancelled == true }  // and what they hold, with no next enqueue
        }
        return count
    }

    /// Moves the clock on by `duration` without running anything, as work that holds the loop that
    /// long would: what falls due meanwhile runs late, at the next turn (`run()` or `advance`), with
    /// `now()` past its deadline. Called from work on the loop, that work took `duration`.
    public func hold(for duration: Duration) {
        lock.withLock { $0.now = $0.now + duration }
    }

    /// Runs until nothing is due within `limit` of now, advancing through timers; for draining.
    public func runUntilIdle(limit: Duration = .seconds(3600)) {
        advance(to: now() + limit)
    }

    /// Work waiting to run (timers and handed-over work), cancelled timers not counted.
    public var pendingWorkCount: Int {
        lock.withLock { s in s.entries.filter { $0.entry.handle?.isCancelled != true }.count }
    }

    /// The deadline of the earliest pending work, if any.
    public var nextDeadline: MonotonicTime? {
        lock.withLock { s in s.entries.map(\.entry.deadline).min() }
    }

    private func popNext(upTo target: MonotonicTime) -> Entry? {
        lock.withLock { s in
            var bestIndex: Int? = nil
            for (i, box) in s.entries.enumerated() where box.entry.deadline <= target {
                if let b = bestIndex {
                    let e = box.entry, best = s.entries[b].entry
                    if (e.deadline, e.order) < (best.deadline, best.order) { bestIndex = i }
                } else {
                    bestIndex = i
                }
            }
            guard let i = bestIndex else { return nil }
            let entry = s.entries.remove(at: i).entry
            if s.now < entry.deadline { s.now = entry.deadline }
            return entry
        }
    }

    private static func currentThreadID() -> UInt {
        UInt(bitPattern: Int(bitPattern: pthread_self()))
    }
}

#if canImport(Glibc)
import Glibc
#endif
