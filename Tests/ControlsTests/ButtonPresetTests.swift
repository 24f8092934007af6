import Console
import Foundation
import Hardware
import Lifecycle
import TestSupport
import Testing
@testable import Supervisor
@testable import Capture
@testable import Controls
@testable import Settings

/// Button settings (`button.*`) and bracket presets, on the simulated board.
@Suite(.serialized) struct ButtonSettingsTests {
    @Test func buttonSettingsRoundTripAndReachTheRunningButton() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("get button.long") == "ok button.long=800ms")
        #expect(board.reply("set button.long 1500") == "ok button.long=1500ms")
        #expect(board.reply("set button.debounce 20ms") == "ok button.debounce=20ms")
        #expect(board.reply("set button.double 250") == "ok button.double=250ms")
        #expect(board.reply("set button.long-press bracket:hdr5") == "ok button.long-press=bracket:hdr5")
        #expect(board.reply("set button.double-press AF") == "ok button.double-press=af")
        #expect(board.reply("set button.press none") == "ok button.press=none")
        #expect(board.reply("set button.busy reject") == "ok button.busy=reject")
        #expect(board.reply("set button.required on") == "ok button.required=on")
        #expect(board.reply("get button.long-press") == "ok button.long-press=bracket:hdr5")
        let live = try #require(liveButton(board.supervisor)?.configuration)
        #expect(live.longPressThresholdMilliseconds == 1500)
        #expect(live.debounceWindowMilliseconds == 20)
        #expect(live.doublePressWindowMilliseconds == 250)
        #expect(live.longPress == .bracket(preset: "hdr5"))
        #expect(live.doublePress == .triggerAutofocus)
        #expect(live.press == nil)
        #expect(live.whileBusy == .reject)
        #expect(live.required)
        #expect(board.reply("reset").hasPrefix("ok reset="))
        let back = try #require(liveButton(board.supervisor)?.configuration)
        #expect(back == ButtonConfiguration(), "reset returns the running button to the defaults")
    }

    @Test func savedButtonSettingsReachTheButtonAfterARestart() throws {
        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-button-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: shared) }
        do {
            let board = try SimulatedBoardHarness { $0.state = shared.path }
            #expect(board.reply("set button.long 1200") == "ok button.long=1200ms")
            #expect(board.reply("set button.double-press record") == "ok button.double-press=record")
            #expect(board.reply("save") == "ok saved=2")
        }
        let restarted = try SimulatedBoardHarness { $0.state = shared.path }
        #expect(restarted.reply("get button.long") == "ok button.long=1200ms")
        let live = try #require(liveButton(restarted.supervisor)?.configuration)
        #expect(live.longPressThresholdMilliseconds == 1200)
        #expect(live.doublePress == .toggleRecording)
    }

    @Test func badButtonValuesNameWhatIsAllowed() throws {
        let board = try SimulatedBoardHarness()
        let range = board.reply("set button.long 50")
        #expect(range.hasPrefix("err out-of-range") && range.contains("200") && range.contains("10000"), "\(range)")
        #expect(board.reply("set button.debounce soon").hasPrefix("err bad-value"))
        let action = board.reply("set button.press shoot")
        #expect(action.hasPrefix("err bad-value") && action.contains("capture|bracket:<preset>|record|af|none"), "\(action)")
        let name = board.reply("set button.long-press bracket:HDR 5")
        #expect(name.hasPrefix("err"), "\(name)")
        #expect(board.reply("set button.long-press bracket:Big").contains("a-z 0-9 - _"))
        let busy = board.reply("set button.busy drop")
        #expect(busy.hasPrefix("err bad-value") && busy.contains("queue-one") && busy.contains("reject"), "\(busy)")
        #expect(board.reply("set button.required maybe").hasPrefix("err bad-value"))
        #expect(board.reply("get button.long") == "ok button.long=800ms", "refused values are not stored")
        #expect(liveButton(board.supervisor)?.configuration == ButtonConfiguration())
    }

    @Test func configFileSetsTheButton() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-button-\(UUID().uuidString).conf")
        try "button.long = 1000\nbutton.press = capture\nbutton.long-press = bracket:hdr3\nbutton.busy = reject\n"
            .write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let board = try SimulatedBoardHarness { $0.config = file.path }
        let live = try #require(liveButton(board.supervisor)?.configuration)
        #expect(live.longPressThresholdMilliseconds == 1000)
        #expect(live.longPress == .bracket(preset: "hdr3"))
        #expect(live.whileBusy == .reject)
        #expect(board.reply("get button.busy") == "ok button.busy=reject")
    }

    @Test func badButtonValueInTheConfigFileStopsTheStart() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-button-\(UUID().uuidString).conf")
        try "button.debounce = 10\nbutton.double-press = explode\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: StartupError.self) { _ = try SimulatedBoardHarness { $0.config = file.path } }
        do { _ = try SimulatedBoardHarness { $0.config = file.path } } catch let error as StartupError {
            #expect(error.message.contains("\(file.path):2") && error.message.contains("capture|bracket:<preset>"), "\(error.message)")
        }
    }

    @Test func requiredButtonOnABoardWithoutGPIOFailsTheStart() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-nogpio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let boardFile = dir.appendingPathComponent("nogpio.json")
        try """
        { "name": "nogpio", "summary": "simulated camera, no GPIO",
          "camera": { "backend": "sim", "sensor": "imx708", "connector": "CAM0", "seed": 1 },
          "imu": { "backend": "sim", "address": 104, "orientation": "XYZ", "rateHertz": 500, "motion": "still" },
          "gpio": { "backend": "none" }, "display": { "backend": "none" } }
        """.write(to: boardFile, atomically: true, encoding: .utf8)
        // Without the requirement the board starts (the console still works).
        let relaxed = try SimulatedBoardHarness(board: boardFile.path)
        #expect(relaxed.supervisor.state == .ready)
        #expect(relaxed.supervisor.captureService.button is NoShutterButton, "the null button")
        let config = dir.appendingPathComponent("tripod.conf")
        try "button.required = on\n".write(to: config, atomically: true, encoding: .utf8)
        var message: String?
        do { _ = try SimulatedBoardHarness(board: boardFile.path) { $0.config = config.path } }
        catch let error as StartupError { message = error.message }
        #expect(message == "button.required is on but board nogpio has no shutter button (GPIO backend \"none\" has no shutter line)")
    }
}

@Suite(.serialized) struct BracketPresetTests {
    /// Advances in 5 ms steps, letting the frame writer's queue finish between steps (its results
    /// hop back to the loop), and returns the events seen.
    private func settle(_ board: SimulatedBoardHarness, _ duration: Duration) -> [String] {
        var lines: [String] = []
        let end = board.loop.now() + duration
        while board.loop.now() < end {
            board.advance(.milliseconds(5))
            board.supervisor.captureService.drainWrites()
            _ = board.loop.run()
            lines += board.output.take()
        }
        return lines
    }

    @Test func saveListDeleteAndPersistAcrossARestart() throws {
        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-presets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: shared) }
        do {
            let board = try SimulatedBoardHarness { $0.state = shared.path }
            let saved = SimulatedBoardHarness.fields(board.reply("preset save hdr5 ev 5 1"))
            #expect(saved["preset"] == "hdr5" && saved["bracket"] == "ev 5 1" && saved["stored"] == "state", "\(saved)")
            #expect(saved["plan"] == (try BracketCommandParser.parse(["ev", "5", "1"])).summary)
            #expect(board.reply("preset save dark_2 manual 1/60@400 1/15@800").hasPrefix("ok preset=dark_2"))
            #expect(board.reply("preset save tmp ev 0 -1").hasPrefix("ok preset=tmp"))
            #expect(board.send("preset list") == ["# dark_2: manual 1/60@400 1/15@800", "# hdr5: ev 5 1", "# tmp: ev 0 -1", "ok presets=3"])
            #expect(board.reply("preset delete tmp") == "ok deleted=tmp")
            #expect(board.reply("preset delete tmp").hasPrefix("err bad-value"))
            let file = shared.appendingPathComponent(StateStore.File.presets)
            let stored = try JSONDecoder().decode([String: [String]].self, from: Data(contentsOf: file))
            #expect(stored == ["hdr5": ["ev", "5", "1"], "dark_2": ["manual", "1/60@400", "1/15@800"]])
        }
        let restarted = try SimulatedBoardHarness { $0.state = shared.path }
        let listed = restarted.send("preset list")
        #expect(listed.last == "ok presets=2")
        #expect(listed.contains("# hdr5: ev 5 1") && listed.contains("# dark_2: manual 1/60@400 1/15@800"), "\(listed)")
        #expect(restarted.supervisor.captureService.presets["hdr5"] == ["ev", "5", "1"])
    }

    @Test func badPresetsAreRefusedAndNothingIsStored() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("preset save Big ev 3 1").contains("a-z 0-9 - _"))
        #expect(board.reply("preset save \(String(repeating: "a", count: 33)) ev 3 1").hasPrefix("err bad-value"))
        #expect(board.reply("preset save x ev 0 7 99").hasPrefix("err"), "the bracket arguments are checked")
        #expect(board.reply("preset save x wobble").hasPrefix("err usage"))
        #expect(board.reply("preset save x preset y").hasPrefix("err bad-value"))
        #expect(board.reply("preset save x").hasPrefix("err usage"))
        #expect(board.reply("preset frob").hasPrefix("err usage"))
        #expect(board.reply("bracket preset nothing").contains("no bracket preset \"nothing\""))
        #expect(board.send("preset list") == ["ok presets=0"])
        #expect(!FileManager.default.fileExists(atPath: board.directory.appendingPathComponent("state/presets.json").path))
    }

    @Test func aCorruptPresetsFileIsLoggedAndIgnored() throws {
        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-presets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: shared) }
        try #"{"ok": ["ev", "3", "1"], "BAD": ["ev", "3", "1"], "broken": ["wobble"]}"#
            .write(to: shared.appendingPathComponent("presets.json"), atomically: true, encoding: .utf8)
        let board = try SimulatedBoardHarness { $0.state = shared.path }
        #expect(board.send("preset list") == ["# ok: ev 3 1", "ok presets=1"])
        #expect(board.logLines.contains { $0.contains("bracket preset BAD ignored") })
        #expect(board.logLines.contains { $0.contains("bracket preset broken ignored") })
    }

    @Test func bracketPresetRunsTheNamedBracket() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.seconds(1))
        #expect(board.reply("preset save hdr3 ev 3 1").hasPrefix("ok preset=hdr3"))
        let started = board.send("bracket preset hdr3")
        #expect(started.last?.hasPrefix("ok bracket=started") == true, "\(started)")
        #expect(started.last?.contains("frames=3") == true, "\(started)")
        let events = settle(board, .seconds(3))
        #expect(events.contains { $0.hasPrefix("event bracket.done") && $0.contains("frames=3") }, "\(events)")
    }

    @Test func longPressMappedToAPresetRunsIt() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.seconds(1))
        #expect(board.reply("preset save hdr3 ev 3 1").hasPrefix("ok preset=hdr3"))
        #expect(board.reply("set button.long-press bracket:hdr3") == "ok button.long-press=bracket:hdr3")
        #expect(board.send("button hold 1200").contains("ok button=hold"))
        let events = settle(board, .seconds(4))
        #expect(events.contains { $0.hasPrefix("event bracket.started") && $0.contains("frames=3") && $0.contains("trigger=button") }, "\(events)")
        #expect(events.contains { $0.hasPrefix("event bracket.done") && $0.contains("frames=3") }, "\(events)")
        #expect(!events.contains { $0.contains("plan=capture") }, "a long press is not also a press: \(events)")
    }

    @Test func aButtonMappedToAMissingPresetReportsItAndCarriesOn() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.seconds(1))
        #expect(board.reply("set button.long-press bracket:gone") == "ok button.long-press=bracket:gone")
        #expect(board.send("button hold 1200").contains("ok button=hold"))
        let events = settle(board, .seconds(2))
        #expect(events.contains { $0.hasPrefix("event bracket.failed") && $0.contains("no bracket preset") && $0.contains("gone")
                && $0.contains("trigger=button") }, "\(events)")
        #expect(board.supervisor.state == .ready)
        // The button works again afterwards.
        #expect(board.reply("preset save gone ev 3 1").hasPrefix("ok preset=gone"))
        #expect(board.send("button hold 1200").contains("ok button=hold"))
        #expect(settle(board, .seconds(4)).contains { $0.hasPrefix("event bracket.done") && $0.contains("frames=3") })
    }
}

/// The simulated board's shutter button, as the capture service made it (nil: the null button).
private func liveButton(_ supervisor: Supervisor) -> ButtonController? {
    supervisor.captureService.button as? ButtonController
}
