import Foundation
import Hardware
import SimulatedHardware
import Testing
import Boards
@testable import Startup
@testable import Supervisor

/// Defects from the issue-19 review, each with the test that would have caught it.
@Suite struct RobustnessTests {
    /// A sensor file that does not decode was dropped without a word.
    @Test func aMalformedSensorFileIsReportedNotDropped() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-sensors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sensors"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "{\"model\": 42".write(to: dir.appendingPathComponent("sensors/imx999.json"), atomically: true, encoding: .utf8)
        let loaded = BoardFactory.loadSensorsReporting(catalog: BoardCatalog(directories: [dir.path]))
        #expect(loaded.sensors["imx999"] == nil)
        #expect(loaded.sensors["imx708"] != nil, "the embedded sensors still load")
        #expect(loaded.notes.count == 1)
        #expect(loaded.notes.first?.contains("imx999.json") == true && loaded.notes.first?.contains("not valid") == true,
                "\(loaded.notes)")
    }

    /// The logger trapped in `FileHandle.write` when stderr was gone (EPIPE, EIO, EBADF).
    @Test func theLoggerSurvivesAClosedOrBrokenStandardError() throws {
        signal(SIGPIPE, SIG_IGN)  // as `tripod run` does at start
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])  // nobody reads: EPIPE
        let broken = Logger.descriptor(fds[1], withPriorityPrefix: false)
        broken.warning("into a pipe nobody reads")
        #expect(!Logger.writeIgnoringErrors(fds[1], "x\n"))
        close(fds[1])
        let closed = Logger.descriptor(-1, withPriorityPrefix: true)  // EBADF
        closed.error("into a closed descriptor")
        #expect(!Logger.writeIgnoringErrors(-1, "x\n"))
    }

    /// The gpiod reader's failure handler was never installed: the button died while `status`
    /// still listed it.
    @Test func aShutterLineWhoseReaderFailsIsReportedAndStatusSaysSo() throws {
        let board = try SimulatedBoardHarness()
        let line = try #require(board.supervisor.devices.shutter as? SimulatedInputLine)
        #expect(SimulatedBoardHarness.field("shutter", in: board.reply("status")) == "line \"SHUTTER\"")
        line.simulateFailure(HardwareError(.disconnected, "gpiochip0: gpiod_line_event_wait: No such device"))
        board.advance(.milliseconds(10))
        #expect(board.output.lines.contains { $0.hasPrefix("event button.failed") && $0.contains("No such device") },
                "\(board.output.lines)")
        #expect(board.logLines.contains { $0.contains("shutter button") && $0.contains("No such device") })
        let shutter = SimulatedBoardHarness.field("shutter", in: board.reply("status"))
        #expect(shutter?.contains("stopped: gpiochip0") == true, "\(shutter ?? "nil")")
        #expect(board.reply("capture").hasPrefix("ok"), "the console still captures")
    }

    /// `help` padded its lines to 166 columns and the banner ran to 109: both wrapped on an
    /// 80-column serial terminal. Every information line now fits.
    @Test func informationLinesFitAnEightyColumnTerminal() throws {
        let board = try SimulatedBoardHarness()
        var lines = TripodMain.banner(board.supervisor)
        lines += board.send("help")
        for command in board.supervisor.commands.commands { lines += board.send("help \(command.name)") }
        lines += board.send("formats")
        let info = lines.filter { $0.hasPrefix("#") }
        #expect(info.count > 60)
        for line in info { #expect(line.count <= 80, "\(line.count) columns: \(line)") }
        // The narrow format table still shows every format and every column.
        let table = board.send("formats").filter { $0.hasPrefix("# ") }
        for header in ["size", "fps", "exposure(us)", "stabilization", "still"] {
            #expect(table.contains { $0.contains(header) }, "\(header)")
        }
        #expect(table.filter { $0.hasPrefix("# 5 ") }.count >= 2, "format 5 in each part")
    }
}
