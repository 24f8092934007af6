import Foundation
import Hardware
import Testing
@testable import Supervisor

/// The short version of `tools/bench soak`: brackets back to back on the simulated board (camera
/// streaming, IMU running, shaking), every one completes, and what the loop holds stays flat.
@Suite(.serialized) struct SoakTests {
    @Test func fortyBracketsInARowAllCompleteAndTheLoopStaysFlat() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.milliseconds(500))
        #expect(board.reply("set capture.format jpeg") == "ok capture.format=jpeg")
        #expect(board.reply("sim motion handheld 2").hasPrefix("ok"))
        #expect(board.reply("set stabilization.lens on") == "ok stabilization.lens=on")
        var completed = 0
        var pending: [Int] = []
        for i in 0..<40 {
            #expect(board.reply("bracket ev 3 1").hasPrefix("ok bracket=started"))
            var end: String?
            for _ in 0..<2000 where end == nil {
                board.advance(.milliseconds(10))
                end = board.output.lines.first { $0.hasPrefix("event bracket.done") || $0.hasPrefix("event bracket.failed") }
            }
            if end?.hasPrefix("event bracket.done") == true { completed += 1 } else { Issue.record("bracket \(i + 1): \(end ?? "no end")") }
            board.advance(.milliseconds(50))
            pending.append(board.loop.pendingWorkCount)
            _ = board.output.take()
        }
        #expect(completed == 40)
        #expect(board.supervisor.captureService?.running == nil)
        // The loop's pending work after each bracket: no timer or handed-over work piles up.
        let early = pending.prefix(5).max() ?? 0, late = pending.suffix(5).max() ?? 0
        #expect(late <= early + 2, "pending work grew: \(pending)")
    }
}
