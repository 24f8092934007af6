import Foundation
import Testing
@testable import Supervisor

@Suite(.serialized) struct EndToEndTests {
    @Test func helpStatusAndQuitOnTheSimulatedBoard() throws {
        let board = try SimulatedBoardHarness()
        let help = board.send("help")
        #expect(help.last?.hasPrefix("ok commands=") == true)
        for command in ["status", "quit", "get", "set", "formats", "json"] {
            #expect(help.contains { $0.hasPrefix("# \(command)") }, "help lists \(command)")
        }
        board.advance(.seconds(1))
        let status = board.reply("status")
        #expect(status.hasPrefix("ok state=ready board=sim"))
        #expect(SimulatedBoardHarness.field("camera", in: status)?.contains("imx708") == true)
        #expect(Int(SimulatedBoardHarness.field("imu.samples", in: status) ?? "") ?? 0 > 300, "a second of IMU samples at 500 Hz")
        #expect(Int(SimulatedBoardHarness.field("frame", in: status) ?? "") ?? 0 > 20, "a second of frames")
        #expect(board.reply("quit") == "ok state=stopped")
        #expect(board.stoppedWith == 0)
        #expect(board.supervisor.state == .stopped)
    }

    @Test func manualExposureIsConfirmedByFrameMetadata() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.milliseconds(500))
        #expect(board.reply("set exposure.duration 1/60") == "ok exposure.duration=1/60 exposure.mode=custom")
        #expect(board.reply("set exposure.iso ISO 400") == "ok exposure.iso=400")
        // Before the pipeline delay has passed, frames still report the old values.
        let immediately = board.reply("status")
        #expect(SimulatedBoardHarness.field("exposure", in: immediately) != "1/60")
        board.advance(.milliseconds(400))
        let later = board.reply("status")
        #expect(SimulatedBoardHarness.field("exposure", in: later) == "1/60")
        #expect(SimulatedBoardHarness.field("iso", in: later) == "400")
        #expect(board.reply("get exposure.duration") == "ok exposure.duration=1/60")
        #expect(board.reply("set exposure.iso 99999").hasPrefix("err out-of-range "))
        #expect(board.reply("get exposure.iso") == "ok exposure.iso=400", "a refused value is not stored")
    }

    @Test func autoModesReportTheActiveValue() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.seconds(1))
        let reply = board.reply("get exposure.duration")
        #expect(reply.hasPrefix("ok exposure.duration=1/60 active="), "auto exposure chose its own duration: \(reply)")
    }

    @Test func focusAndWhiteBalanceSettings() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("set focus.lens 0.5m") == "ok focus.lens=2 focus.mode=locked")
        #expect(board.reply("set wb.temperature 5600K") == "ok wb.temperature=5600K wb.mode=temperature")
        #expect(board.reply("set focus.lens 99").hasPrefix("err out-of-range"))
        board.advance(.milliseconds(500))
        #expect(SimulatedBoardHarness.field("lens", in: board.reply("status")) == "2D")
        #expect(board.reply("set wb.mode auto") == "ok wb.mode=auto")
        board.advance(.milliseconds(500))
        #expect(board.reply("grayworld").hasPrefix("ok wb.mode=gains wb.gains="))
    }

    @Test func formatTableAndSelection() throws {
        let board = try SimulatedBoardHarness()
        let formats = board.send("formats")
        #expect(formats.contains { $0.contains("1536x864") && $0.contains("120") })
        #expect(board.reply("format 1536x864@120") == "ok format=1536x864@120")
        #expect(board.reply("format 640x480@500").hasPrefix("err unsupported"))
        #expect(SimulatedBoardHarness.field("camera", in: board.reply("status"))?.contains("1536x864@120") == true)
    }

    @Test func badInputGetsClearErrorsAndTheConsoleCarriesOn() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("frobnicate").hasPrefix("err unknown-command"))
        #expect(board.reply("set exposure.duration").hasPrefix("err usage"))
        #expect(board.reply("set nothing.here 1").hasPrefix("err unknown-key"))
        #expect(board.reply("set exposure.duration soon").hasPrefix("err bad-value"))
        #expect(board.reply(String(repeating: "x", count: 600)).hasPrefix("err line-too-long"))
        #expect(board.reply("stat\u{0}us").hasPrefix("err bad-input"))
        #expect(board.reply("status").hasPrefix("ok state=ready"))
    }

    @Test func jsonModeIsPerClient() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("json on") == "{\"type\":\"reply\",\"ok\":true,\"values\":{\"json\":\"on\"}}")
        #expect(board.reply("get exposure.bias") == "{\"type\":\"reply\",\"ok\":true,\"values\":{\"exposure.bias\":\"0\"}}")
        let other = RecordingConsoleOutput()
        board.loop.perform {
            let second = board.supervisor.attach(name: "other", kind: .control, output: other)
            board.supervisor.run(line: "get exposure.bias", from: second)
        }
        #expect(other.lines == ["ok exposure.bias=0"])
    }

    @Test func quitOnAControlClientClosesOnlyThatClient() throws {
        let board = try SimulatedBoardHarness(kind: .control)
        #expect(board.reply("quit").hasPrefix("ok closed="))
        #expect(board.supervisor.state == .ready)
        #expect(board.output.closed)
    }

    @Test func simulatedMotionAndButtonCommands() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("sim motion handheld 4") == "ok motion=handheld amplitude=4")
        #expect(board.reply("sim motion sideways").hasPrefix("err bad-value"))
        board.advance(.seconds(1))
        let rate = Double(SimulatedBoardHarness.field("imu.rate", in: board.reply("status"))?.replacingOccurrences(of: "°/s", with: "") ?? "") ?? 0
        #expect(rate > 0.1, "the IMU sees the handheld shake")
        #expect(board.reply("button press") == "ok button=press")
        #expect(board.reply("button hold x").hasPrefix("err usage"))
    }

    @Test func saveAndResetPersistSettings() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("set exposure.bias +1") == "ok exposure.bias=+1")
        #expect(board.reply("save") == "ok saved=1")
        let stateFile = board.directory.appendingPathComponent("state/settings.json")
        let saved = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: stateFile))
        #expect(saved == ["exposure.bias": "+1"])
        #expect(board.reply("reset") == "ok reset=1")
        #expect(board.reply("get exposure.bias") == "ok exposure.bias=0")
        #expect(!FileManager.default.fileExists(atPath: stateFile.path))
    }
}

@Suite(.serialized) struct StabilizationSettingsTests {
    @Test func lensStabilizationNeedsAHealthyIMUAndVideoModesReportTheirActiveValue() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.milliseconds(200))
        #expect(board.reply("set stabilization.lens on") == "ok stabilization.lens=on")
        #expect(board.reply("get stabilization.lens") == "ok stabilization.lens=on")
        // 1280x720@120 has crop headroom for Standard but not Cinematic: preferred cinematic stays inactive.
        #expect(board.reply("set stabilization.video cinematic") == "ok stabilization.video=cinematic")
        #expect(board.reply("get stabilization.video") == "ok stabilization.video=cinematic active=off")
        #expect(board.reply("set stabilization.video standard") == "ok stabilization.video=standard")
        #expect(board.reply("get stabilization.video") == "ok stabilization.video=standard")
        #expect(board.reply("set stabilization.still off") == "ok stabilization.still=off")
    }

    @Test func withoutAnIMULensStabilizationIsRefused() throws {
        let boardFile = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-noimu-\(UUID().uuidString).json")
        try """
        {"name":"sim-noimu","summary":"simulated board without an IMU",
         "camera":{"backend":"sim","sensor":"imx708"},"imu":{"backend":"none"},
         "gpio":{"backend":"none"},"display":{"backend":"none"}}
        """.write(to: boardFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: boardFile) }
        let board = try SimulatedBoardHarness(board: boardFile.path)
        #expect(board.reply("set stabilization.lens on").hasPrefix("err unsupported "))
        #expect(board.reply("get stabilization.lens") == "ok stabilization.lens=off")
        #expect(SimulatedBoardHarness.field("imu", in: board.reply("status")) == "none")
    }
}
