import Hardware
import Testing
@testable import SimulatedHardware

/// The simulated camera's log of queued requests: every request counted, the newest 256 controls
/// lists kept in order once older ones are overwritten.
@Suite struct QueuedRequestLogTests {
    @Test func theNewestListsAreKeptOldestFirstPastTheLimit() {
        var log = QueuedRequestLog()
        func list(_ n: Int) -> ControlList { ["n": .int32(Int32(n))] }
        for n in 0..<10 { log.note(list(n)) }
        #expect(log.count == 10 && log.recentControls == (0..<10).map(list))
        let total = QueuedRequestLog.limit * 2 + 37
        for n in 10..<total { log.note(list(n)) }
        #expect(log.count == total)
        #expect(log.recentControls == (total - QueuedRequestLog.limit..<total).map(list))
    }
}
