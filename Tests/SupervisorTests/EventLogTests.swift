import Foundation
import Hardware
import TestSupport
import Testing
@testable import Supervisor

/// Events also go to the log (the journal, on an appliance), except when a stdio console already
/// shows them on the same terminal.
@Suite struct EventLogTests {
    private func captureAndWait(_ board: SimulatedBoardHarness) -> [String] {
        board.advance(.milliseconds(300))  // a metered frame first
        let reply = board.send("capture")
        #expect(reply.last?.hasPrefix("ok ") == true, "\(reply)")
        for _ in 0..<50 where !board.output.lines.joined().contains("bracket.done") {
            board.loop.advance(by: .milliseconds(100), inStepsOf: .milliseconds(10), draining: board.supervisor)
        }
        return board.logLines
    }

    @Test func withoutAStdioConsoleBracketEventsAreLogged() throws {
        let board = try SimulatedBoardHarness(kind: .serial)
        let log = captureAndWait(board)
        #expect(log.contains { $0.contains("event bracket.started") && $0.contains("trigger=console") }, "\(log)")
        #expect(log.contains { $0.contains("event bracket.done") }, "\(log)")
    }

    @Test func aStdioConsoleShowsEventsSoTheLogDoesNotRepeatThem() throws {
        let board = try SimulatedBoardHarness(kind: .stdio)
        let log = captureAndWait(board)
        #expect(board.output.lines.joined().contains("bracket.done"))
        #expect(!log.contains { $0.contains("event ") }, "\(log)")
    }
}
