import Hardware
import Testing
@testable import Controls

@Suite struct ButtonShutterLagTests {
    @Test func lagIsFromEdgeToFirstRequest() {
        let edge = MonotonicTime(nanoseconds: 7_000_000_000)
        let lag = ShutterLag(edge: edge, firstRequestQueued: edge + .microseconds(1_500))
        #expect(lag.milliseconds == 1.5)
        #expect(lag.duration == .microseconds(1_500))
    }

    @Test func statisticsKeepTheRecentWindow() {
        var stats = ShutterLagStatistics(capacity: 100)
        #expect(stats.percentileMilliseconds(50) == nil)
        let edge = MonotonicTime(nanoseconds: 1_000_000_000)
        // 100 large lags, then 100 of 1...100 ms: only the recent 100 count.
        for _ in 0..<100 { stats.record(ShutterLag(edge: edge, firstRequestQueued: edge + .seconds(9))) }
        for ms in 1...100 { stats.record(ShutterLag(edge: edge, firstRequestQueued: edge + .milliseconds(ms))) }
        #expect(stats.count == 200)
        #expect(stats.last?.milliseconds == 100)
        #expect(stats.percentileMilliseconds(50) == 50)
        #expect(stats.percentileMilliseconds(99) == 99)
        #expect(stats.percentileMilliseconds(100) == 100)
    }
}
