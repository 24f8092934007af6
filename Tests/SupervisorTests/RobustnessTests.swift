import Foundation
import Hardware
import Lifecycle
import Logging
import ManualLoop
import SimulatedHardware
import Testing
import Boards
@testable import Startup
@testable import Supervisor
@testable import Controls
import TestSupport

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

    /// Start-up (BoardFactory) removes the temp files a killed writer left in the dated folders,
    /// says how many, and keeps every other file.
    @Test func startUpRemovesLeftoverTempFilesInDatedFoldersAndSaysSo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-stale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("2026-12-01"), withIntermediateDirectories: true)
        let files = ["2026-12-01/.x.dng.tmp-1-1", "2026-12-01/.TRP_000001.json.tmp-812-3", ".sequence.txt.tmp-812-1",
                     "2026-12-01/x.dng", "2026-12-01/TRP_000001.json", "2026-12-01/.hidden", "sequence.txt"]
        for file in files {
            #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent(file).path, contents: Data(file.utf8)))
        }
        let catalog = BoardCatalog.standard(executablePath: #filePath)
        let board = try catalog.board("sim")
        let loop = ManualEventLoop()
        let devices = try loop.perform { () throws(StartupError) -> BoardDevices in
            try BoardFactory.build(board: board, catalog: catalog, loop: loop, capturesDirectory: dir.path, log: .discard)
        }
        #expect(devices.notes.contains("captures: removed 3 unfinished temporary files"), "\(devices.notes)")
        let left = try FileManager.default.subpathsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["2026-12-01", "2026-12-01/.hidden", "2026-12-01/TRP_000001.json", "2026-12-01/x.dng", "sequence.txt"])
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

    /// `preset list` printed each preset on one `# ` line: a preset of 63 EV biases (the most
    /// `preset save` takes) ran to about 300 columns. Every reply's information lines now wrap at 80.
    @Test func longPresetsAndTypicalRepliesFitAnEightyColumnTerminal() throws {
        let board = try SimulatedBoardHarness()
        let pairs = (0..<63).map { "\($0 % 2 == 0 ? "" : "-")\($0 / 8).\($0 % 8)" }
        let saved = board.reply("preset save long ev " + pairs.joined(separator: " "))
        #expect(saved.hasPrefix("ok preset=long"), "\(saved)")
        #expect(board.reply("preset save hdr5 ev 5 1").hasPrefix("ok preset=hdr5"))
        let list = board.send("preset list")
        #expect(list.last == "ok presets=2", "\(list)")
        let listed = list.dropLast()
        #expect(listed.first == "# hdr5: ev 5 1")
        #expect(listed.count >= 4 && listed.dropFirst(2).allSatisfy { $0.hasPrefix("#   ") }, "\(listed)")
        let words = listed.dropFirst().flatMap { $0.dropFirst(2).split(separator: " ").map(String.init) }
        #expect(words == ["long:", "ev"] + pairs, "every argument is listed, in order")

        var lines = TripodMain.banner(board.supervisor) + list
        for command in ["help", "formats", "status", "get", "imu", "preset list", "help set", "help bracket"] {
            lines += board.send(command)
        }
        for command in board.supervisor.commands.commands { lines += board.send("help \(command.name)") }
        let info = lines.filter { $0.hasPrefix("#") }
        #expect(info.count > 100)
        for line in info {
            #expect(line.count <= 80, "\(line.count) columns: \(line)")
            #expect(line.hasPrefix("# "), "\(line)")
        }
    }

    /// The edge handler started gpiod's reader before the failure handler was set: a line that
    /// failed at once (ENODEV) in that window was never reported, and the button died silently.
    /// `strict` is a line that drops a failure nobody listens for (as gpiod's line did); the
    /// simulated lines keep it for the handler set later, as gpiod's now does.
    @Test(arguments: [true, false])
    func aButtonLineThatFailsTheMomentItsReaderStartsIsReported(strict: Bool) throws {
        let loop = ManualEventLoop()
        let enodev = HardwareError(.disconnected, "gpiochip0: gpiod_line_event_wait: No such device")
        let shutter: any GPIOInputLine, half: any GPIOInputLine
        if strict {
            shutter = FailingAtStartLine(GPIOLineAddress(name: "SHUTTER"), enodev)
            half = FailingAtStartLine(GPIOLineAddress(name: "HALF_PRESS"), enodev)
        } else {
            let s = SimulatedInputLine(address: GPIOLineAddress(name: "SHUTTER"))
            let h = SimulatedInputLine(address: GPIOLineAddress(name: "HALF_PRESS"))
            s.failWhenStarted(enodev)
            h.failWhenStarted(enodev)
            shutter = s; half = h
        }
        let said = LockedValue<[String]>([])
        let controller = ButtonController(configuration: ButtonConfiguration(), loop: loop, shutter: shutter, halfPress: half) { output in
            if case .lineFailed(let line, let reason) = output { said.withLock { $0.append("\(line): \(reason)") } }
        }
        let bound = LoopBound(controller, loop: loop)
        loop.execute { bound.value.start() }
        loop.run()
        #expect(said.current.sorted() == ["\(half.address): \(enodev.message)", "\(shutter.address): \(enodev.message)"], "\(said.current)")
        #expect(loop.perform { controller.failure } == enodev.message, "status names why the button stopped")
        // A failure with no handler is kept, not lost, by the simulated line (and gpiod's).
        let late = SimulatedInputLine(address: GPIOLineAddress(name: "LATE"))
        late.simulateFailure(enodev)
        let heard = LockedValue<HardwareError?>(nil)
        late.setFailureHandler { error in heard.withLock { $0 = error } }
        #expect(heard.current == enodev)
    }
}

/// A line whose reader fails as soon as the edge handler starts it and, like gpiod's line before
/// the fix, drops the failure when no failure handler is set yet.
private final class FailingAtStartLine: GPIOInputLine, Sendable {
    let address: GPIOLineAddress
    private let error: HardwareError
    private let failureHandler = LockedValue<(@Sendable (HardwareError) -> Void)?>(nil)
    init(_ address: GPIOLineAddress, _ error: HardwareError) { self.address = address; self.error = error }
    func read() throws -> Bool { false }
    func setEdgeHandler(_ handler: @escaping @Sendable (GPIOEdge) -> Void) { failureHandler.current?(error) }
    func setFailureHandler(_ handler: @escaping @Sendable (HardwareError) -> Void) { failureHandler.withLock { $0 = handler } }
    func close() {}
}
