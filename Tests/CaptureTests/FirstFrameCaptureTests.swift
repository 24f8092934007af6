import Foundation
import Hardware
import SimulatedHardware
import TestSupport
import Testing
@testable import Supervisor

/// A capture asked for right after start, before the camera's first frame, waits for that frame
/// instead of failing (a press at boot is not lost); without frames it fails after a limit.
@Suite struct FirstFrameCaptureTests {
    private func settle(_ board: SimulatedBoardHarness, _ duration: Duration) {
        board.loop.advance(by: duration, inStepsOf: .milliseconds(10), draining: board.supervisor)
    }

    @Test func aCaptureBeforeTheFirstFrameStartsWithIt() throws {
        let board = try SimulatedBoardHarness(kind: .serial)
        #expect(board.supervisor.camera?.latest == nil, "no frame yet")
        #expect(board.reply("capture") == "ok bracket=waiting for=\"first frame\"")
        #expect(board.reply("capture").hasPrefix("err busy "), "one waiting capture at a time")
        settle(board, .seconds(1))
        let lines = board.output.take()
        let started = try #require(lines.first { $0.hasPrefix("event bracket.started ") }, "\(lines)")
        #expect(!started.contains("lag.ms=0.000"), "the lag counts from the command, waiting included: \(started)")
        #expect(lines.contains { $0.hasPrefix("event bracket.done ") }, "\(lines)")
    }

    @Test func withoutFramesTheWaitingCaptureFailsAfterTheLimitAndSaysWhy() throws {
        let board = try SimulatedBoardHarness(kind: .serial)
        let camera = try #require(board.supervisor.camera?.device as? SimulatedCamera)
        board.loop.perform { camera.stall() }
        #expect(board.reply("capture").hasPrefix("ok bracket=waiting"))
        settle(board, .milliseconds(2500))
        let lines = board.output.take()
        let failed = try #require(lines.first { $0.hasPrefix("event bracket.failed ") }, "\(lines)")
        #expect(failed.contains("no frame from the camera within 2"), "\(failed)")
        board.loop.perform { camera.resume() }
        settle(board, .milliseconds(500))
        #expect(!board.output.take().contains { $0.hasPrefix("event bracket.started") }, "the failed capture does not start late")
        #expect(board.reply("status").contains("brackets=\"0 saved, 1 failed\""))
    }
}

/// `printf 'button press\n' | tripod run`: the input ends (a stop) before the simulated gesture has
/// been decided; the stop waits for it and the press still captures.
@Test func aSimulatedPressJustBeforeAStopStillCaptures() throws {
    let board = try SimulatedBoardHarness(kind: .serial)
    #expect(board.send("button press").contains("ok button=press"))
    board.loop.perform { board.supervisor.requestStop(reason: "end of console input") }
    board.loop.advance(by: .seconds(3), inStepsOf: .milliseconds(10), draining: board.supervisor)
    #expect(board.stoppedWith == 0)
    let lines = board.output.take()
    #expect(lines.contains { $0.hasPrefix("event bracket.done ") }, "\(lines)")
    let captures = board.directory.appendingPathComponent("captures")
    let sidecars = FileManager.default.enumerator(atPath: captures.path)?.compactMap { $0 as? String }
        .filter { $0.hasSuffix(".json") && $0.contains("TRP_") } ?? []
    #expect(sidecars.count == 1, "\(sidecars)")
}
