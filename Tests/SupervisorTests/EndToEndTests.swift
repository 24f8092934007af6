import Foundation
import Hardware
import TestSupport
import Testing
@testable import Supervisor
@testable import Transports

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
        #expect(board.send("button press").contains("ok button=press"))
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

@Suite(.serialized) struct GyroLogTests {
    @Test func eachBracketGetsAGyroflowLogBesideItsSidecar() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.seconds(1))
        #expect(board.reply("sim motion handheld 3") == "ok motion=handheld amplitude=3")
        board.advance(.seconds(1))
        let started = board.send("bracket manual 1/60@400 1/30@400 1/15@400")
        #expect(started.contains { $0.hasPrefix("ok bracket=started") })
        var done: String?
        // 4 s of simulated time, then the loop alone until the writer queue (its own thread, slow
        // on a busy machine) has written the frames: a real-time deadline is only a safety net.
        var steps = 0
        _ = waitUntil(seconds: 120, every: .milliseconds(5)) {
            if steps < 40 { board.advance(.milliseconds(100)); steps += 1 } else { board.loop.run() }
            done = board.output.lines.first { $0.hasPrefix("event bracket.done") }
            return done != nil
        }
        guard let done, let sidecar = SimulatedBoardHarness.field("sidecar", in: done) else {
            Issue.record("bracket did not finish: \(board.output.lines)")
            return
        }
        let captures = board.directory.appendingPathComponent("captures")
        let gcsv = captures.appendingPathComponent(String(sidecar.dropLast(5)) + ".gcsv")
        _ = waitUntil(every: .milliseconds(10)) {
            if FileManager.default.fileExists(atPath: gcsv.path) { return true }
            board.loop.run()
            return false
        }
        let text = try String(contentsOf: gcsv, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "GYROFLOW IMU LOG")
        #expect(lines.contains("orientation,XYZ"))
        #expect(lines.contains { $0.hasPrefix("frame_readout_time,") })
        let header = lines.firstIndex(of: "t,gx,gy,gz,ax,ay,az") ?? lines.count
        let rows = lines[(header + 1)...].map { $0.split(separator: ",").compactMap { Int64($0) } }
        #expect(rows.allSatisfy { $0.count == 7 })
        // 500 Hz from 0.5 s before the first frame to the end of the bracket: over 300 samples, from before t = 0.
        #expect(rows.count > 300)
        #expect((rows.first?[0] ?? 0) < 0 && (rows.last?[0] ?? 0) > 0)
        // Handheld shake shows up on the gyro columns.
        #expect(rows.contains { abs($0[1]) + abs($0[2]) + abs($0[3]) > 1000 })
    }
}

@Suite(.serialized) struct VideoStabilizationWiringTests {
    @Test func standardModeMovesTheScalerCropWithTheShake() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("sim motion handheld 5") == "ok motion=handheld amplitude=5")
        board.advance(.seconds(1))
        #expect(board.reply("set stabilization.video standard") == "ok stabilization.video=standard")
        var crops = Set<PixelRect>()
        for _ in 0..<30 {
            board.advance(.milliseconds(50))
            if case .rectangle(let r)? = board.supervisor.camera?.latestRequest?.metadata[ControlName.scalerCrop] { crops.insert(r) }
        }
        let full = try #require(board.supervisor.camera?.activeFormat.format.sensorCrop)
        #expect(crops.count > 5, "the crop follows the motion")
        #expect(crops.allSatisfy { $0.width < full.width && $0.height < full.height }, "a margin is kept")
        #expect(board.reply("set stabilization.video off") == "ok stabilization.video=off")
        #expect(board.supervisor.camera?.streamingControls[ControlName.scalerCrop] == nil)
    }
}

@Suite(.serialized) struct FixedFocusBoardTests {
    @Test func aFixedFocusSensorStartsAndRefusesFocusCommandsClearly() throws {
        let boardFile = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-ov5647-\(UUID().uuidString).json")
        try """
        {"name":"sim-v1","summary":"simulated board with a Camera Module v1 (OV5647, fixed focus)",
         "camera":{"backend":"sim","sensor":"ov5647"},"imu":{"backend":"none"},
         "gpio":{"backend":"none"},"display":{"backend":"none"}}
        """.write(to: boardFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: boardFile) }
        let board = try SimulatedBoardHarness(board: boardFile.path)
        #expect(SimulatedBoardHarness.field("camera", in: board.reply("status"))?.hasPrefix("ov5647") == true)
        let refused = board.reply("set focus.mode auto")
        #expect(refused.hasPrefix("err unsupported ") && refused.contains("fixed focus"), "\(refused)")
        #expect(board.reply("set exposure.duration 1/60") == "ok exposure.duration=1/60 exposure.mode=custom")
        #expect(board.reply("imu") == "err unsupported this board has no IMU")
    }
}

@Suite(.serialized) struct ZoomWiringTests {
    @Test func zoomIsASettingThatCropsFramesAndTheCapturesRecordTheirCrop() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.milliseconds(300))
        #expect(board.reply("set zoom 2x") == "ok zoom=2")
        #expect(board.reply("get zoom") == "ok zoom=2")
        #expect(board.reply("set zoom 0.5").hasPrefix("err out-of-range "))
        let beyond = board.reply("set zoom 60")
        #expect(beyond.hasPrefix("err out-of-range ") && beyond.contains("outside 1..."), "\(beyond)")
        #expect(board.reply("get zoom") == "ok zoom=2", "a refused value is not stored")
        board.advance(.milliseconds(300))
        let field = try #require(board.supervisor.camera?.activeFormat.format.sensorCrop)
        guard case .rectangle(let crop)? = board.supervisor.camera?.latestRequest?.metadata[ControlName.scalerCrop] else {
            Issue.record("no ScalerCrop in the frame metadata"); return
        }
        #expect(abs(crop.width * 2 - field.width) <= 2, "\(crop) of \(field)")
        // With video stabilization on, the zoom crops within the stabilized field.
        #expect(board.reply("set stabilization.video standard") == "ok stabilization.video=standard")
        board.advance(.milliseconds(300))
        guard case .rectangle(let stabilized)? = board.supervisor.camera?.streamingControls[ControlName.scalerCrop] else {
            Issue.record("no stabilization crop"); return
        }
        #expect(stabilized.width * 2 < field.width, "zoomed inside the stabilization margin: \(stabilized)")
    }
}

extension ZoomWiringTests {
    /// `reset` from a zoom the default format cannot take: the zoom goes back first, then the format.
    @Test func resetFromADeepZoomOnAnotherFormatWorks() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("set format 3").hasPrefix("ok format=3"))
        let top = try #require(board.supervisor.camera?.maximumZoomFactor)
        let first = try #require(board.supervisor.camera?.formats.first?.maximumZoom)
        try #require(top > first + 1, "format 3 zooms further than format 0")
        #expect(board.reply("set zoom \(Int(first) + 1)").hasPrefix("ok zoom="))
        #expect(board.reply("set format 0").hasPrefix("err out-of-range "), "refused while the zoom is beyond it")
        #expect(board.reply("reset").hasPrefix("ok "))
        #expect(board.reply("get zoom") == "ok zoom=1")
        #expect(board.reply("get format") == "ok format=0")
    }
}

