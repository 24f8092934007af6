import Foundation
import Glibc
import Hardware
import LinuxHardware
import TestSupport
import Testing

/// The real-clock loop: its sleeps, its timers and its queue of handed-over work.
@Suite struct PosixEventLoopTests {
    /// Starts `loop` on a thread of its own; returns when it runs.
    private func start(_ loop: PosixEventLoop) {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { loop.run() }
        thread.start()
        loop.execute { started.signal() }
        started.wait()
    }

    /// Loop-confined objects may be touched on the loop, and on any thread before it runs (start-up
    /// commits the config file then) or after it has stopped; never on another thread while it runs.
    @Test func confinedCallersAreTheLoopOrAnyThreadWhileItIsNotRunning() {
        let loop = PosixEventLoop()
        #expect(loop.inEventLoopOrNotRunning && !loop.inEventLoop, "before run")
        let stopped = DispatchSemaphore(value: 0)
        let thread = Thread { loop.run(); stopped.signal() }
        let onLoop = LockedValue<(Bool, Bool)?>(nil)
        let ran = DispatchSemaphore(value: 0)
        thread.start()
        loop.execute { onLoop.withLock { $0 = (loop.inEventLoop, loop.inEventLoopOrNotRunning) }; ran.signal() }
        #expect(ran.wait(timeout: .now() + 5) == .success)
        #expect(onLoop.current.map { $0.0 && $0.1 } == true, "on the loop")
        #expect(!loop.inEventLoopOrNotRunning, "another thread while it runs")
        loop.stop()
        #expect(stopped.wait(timeout: .now() + 5) == .success)
        #expect(loop.inEventLoopOrNotRunning, "after it stopped")
    }

    /// It slept on the wall clock (`NSCondition.wait(until: Date)`), so an NTP step stretched timers.
    @Test func sleepsWaitOnTheMonotonicClock() {
        let loop = PosixEventLoop()
        #expect(loop.sleepClock == CLOCK_MONOTONIC)
        start(loop)
        defer { loop.stop() }
        let fired = DispatchSemaphore(value: 0)
        let scheduledAt = PosixEventLoop.monotonicNow()
        let ranAt = LockedValue<MonotonicTime?>(nil)
        loop.schedule(after: .milliseconds(30)) { ranAt.withLock { $0 = PosixEventLoop.monotonicNow() }; fired.signal() }
        #expect(fired.wait(timeout: .now() + 5) == .success)
        let waited = (ranAt.current ?? scheduledAt) - scheduledAt
        #expect(waited >= .milliseconds(30) && waited < .seconds(2), "\(waited)")
    }

    /// Cancelled timers stayed in the list until their deadline (an hour away here).
    @Test func cancelledTimersAreDroppedAtTheNextTurn() {
        let loop = PosixEventLoop()
        start(loop)
        defer { loop.stop() }
        let handles = (0..<1000).map { _ in loop.schedule(after: .seconds(3600)) {} }
        #expect(loop.timerCount == 1000)
        handles.forEach { $0.cancel() }
        let turned = DispatchSemaphore(value: 0)
        loop.execute { turned.signal() }
        #expect(turned.wait(timeout: .now() + 5) == .success)
        let next = DispatchSemaphore(value: 0)
        loop.execute { next.signal() }  // one more turn: the purge runs at the top of each
        #expect(next.wait(timeout: .now() + 5) == .success)
        #expect(loop.timerCount == 0)
    }

    /// The queue of handed-over work had no bound: a producer flooding a stuck loop grew it forever.
    @Test func aFullQueueHoldsProducersBackUntilTheLoopTakesABatch() {
        let loop = PosixEventLoop(maximumPendingWork: 100)
        start(loop)
        let release = DispatchSemaphore(value: 0)
        let stuck = DispatchSemaphore(value: 0)
        loop.execute { stuck.signal(); release.wait() }  // the loop is stuck in this item
        #expect(stuck.wait(timeout: .now() + 30) == .success, "the loop took the item")
        let produced = LockedValue(0)
        let ran = LockedValue(0)
        let producer = Thread {
            for _ in 0..<500 {
                loop.execute { ran.withLock { $0 += 1 } }
                produced.withLock { $0 += 1 }
            }
        }
        producer.start()
        // Until the producer waits for room (however slowly a busy machine runs it; 30 s at most).
        _ = waitUntil(seconds: 30) { loop.pendingCounts.waitsForRoom > 0 }
        usleep(20_000)  // deliberate real time: had it not waited, it would go on producing (an absence, seen only in time)
        #expect(produced.current == 100, "the producer waits at the bound")
        #expect(loop.pendingCounts.pending == 100)
        #expect(loop.pendingCounts.waitsForRoom > 0)
        release.signal()
        _ = waitUntil(seconds: 30) { ran.current == 500 }
        #expect(ran.current == 500, "nothing is lost")
        loop.stop()
    }
}
