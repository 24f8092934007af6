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
