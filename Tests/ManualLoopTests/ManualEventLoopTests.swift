import Foundation
import Hardware
import ManualLoop
import Testing

/// The manual loop's own rules: deadline order, a clock that moves only when told, and cancelled
/// work let go at once (the console fuzzer never advances the clock and once grew to 2 GB of
/// cancelled frame timers, each holding a rendered frame).
@Suite struct ManualEventLoopTests {
    final class Payload: Sendable {}

    @Test func runsDueWorkInDeadlineOrderAndOnlyWhenTheClockGetsThere() {
        let loop = ManualEventLoop()
        let order = LockedValue<[String]>([])
        loop.schedule(after: .milliseconds(20)) { order.withLock { $0.append("late") } }
        loop.schedule(after: .milliseconds(10)) { order.withLock { $0.append("early") } }
        loop.execute { order.withLock { $0.append("now") } }
        loop.run()
        #expect(order.withLock { $0 } == ["now"])
        loop.advance(by: .milliseconds(20))
        #expect(order.withLock { $0 } == ["now", "early", "late"])
    }

    /// Between turns the test's thread is the loop's only driver; while one thread runs the loop,
    /// another is off it.
    @Test func confinedCallersAreTheRunnerOrAnyThreadBetweenTurns() throws {
        let loop = ManualEventLoop()
        #expect(loop.inEventLoopOrNotRunning && !loop.inEventLoop, "between turns")
        let inside = loop.perform { (loop.inEventLoop, loop.inEventLoopOrNotRunning) }
        #expect(inside == (true, true))
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let thread = Thread { loop.perform { entered.signal(); release.wait() }; done.signal() }
        thread.start()
        #expect(entered.wait(timeout: .now() + 5) == .success)
        #expect(!loop.inEventLoopOrNotRunning, "another thread runs the loop")
        release.signal()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(loop.inEventLoopOrNotRunning)
    }

    @Test func cancelledWorkIsReleasedBeforeItsDeadline() {
        let loop = ManualEventLoop()
        weak var weakPayload: Payload?
        do {
            let payload = Payload()
            weakPayload = payload
            let work = loop.schedule(after: .seconds(3600)) { _ = payload }
            work.cancel()
        }
        #expect(weakPayload != nil, "still queued: nothing has looked at the queue since")
        loop.execute {}
        #expect(weakPayload == nil, "the cancelled timer still holds what it captured")
        #expect(loop.pendingWorkCount == 1)
        #expect(loop.run() == 1)
    }
}
