import Camera
import Console
import Hardware
import TestSupport
import Testing
@testable import Supervisor
@testable import Controls
@testable import Settings

/// The settings parsed once per change (issue 20): stabilization and the button read typed values.
@Suite struct TypedSettingsTests {
    /// The typed settings after each text is parsed at the edge, as `set` does.
    private func typed(_ changes: [String: String]) throws -> TypedSettings {
        var settings = TypedSettings.defaults
        for (key, value) in changes { try SettingsTable.lookUp(key).set(value, in: &settings) }
        return settings
    }

    @Test func stabilizationDefaultsAndValues() throws {
        let defaults = try typed([:])
        #expect(!defaults.stabilization.lens && defaults.stabilization.stillAutomatic && defaults.stabilization.videoPreferred == .off)
        let set = try typed(["stabilization.lens": "ON", "stabilization.still": "off", "stabilization.video": "Cinematic"])
        #expect(set.stabilization.lens && !set.stabilization.stillAutomatic && set.stabilization.videoPreferred == .cinematic)
        #expect(set != defaults)
        #expect(try typed(["stabilization.video": "auto"]).stabilization.videoPreferred == .auto)
    }

    @Test func buttonDefaultsAreTheConfigurationsDefaults() throws {
        #expect(try typed([:]).button == ButtonConfiguration())
    }

    @Test func buttonValuesParse() throws {
        let t = try typed(["button.debounce": "25", "button.double": "450ms", "button.long": "1500",
                           "button.press": "bracket:hdr5", "button.double-press": "AF", "button.long-press": "record",
                           "button.busy": "reject", "button.required": "on"])
        var expected = ButtonConfiguration()
        expected.debounceWindowMilliseconds = 25
        expected.doublePressWindowMilliseconds = 450
        expected.longPressThresholdMilliseconds = 1500
        expected.press = .bracket(preset: "hdr5")
        expected.doublePress = .triggerAutofocus
        expected.longPress = .toggleRecording
        expected.whileBusy = .reject
        expected.required = true
        #expect(t.button == expected)
        #expect(try typed(["button.press": "none"]).button.press == nil, "none leaves the gesture unused")
    }

    @Test func aValueThatDoesNotParseIsRefusedAtTheEdgeAndChangesNothing() {
        var settings = TypedSettings.defaults
        for (key, text) in [("button.debounce", "soon"), ("button.press", "wave"), ("stabilization.video", "wobbly")] {
            #expect(throws: ConsoleError.self) { try SettingsTable.lookUp(key).set(text, in: &settings) }
        }
        #expect(settings == .defaults)
    }

    @Test func theSupervisorsTypedSettingsFollowSetAndTheForcedLensOff() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("set button.long 1200") == "ok button.long=1200ms")
        #expect(board.supervisor.typed.button.longPressThresholdMilliseconds == 1200)
        #expect(board.reply("set stabilization.video standard") == "ok stabilization.video=standard")
        #expect(board.supervisor.typed.stabilization.videoPreferred == .standard)
        #expect(board.reply("set stabilization.lens on") == "ok stabilization.lens=on")
        #expect(board.supervisor.typed.stabilization.lens)
    }

    @Test func aForcedLensOffIsStoredAndBroadcast() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.milliseconds(200))
        #expect(board.reply("set stabilization.lens on") == "ok stabilization.lens=on")
        _ = board.output.take()
        board.loop.perform { board.supervisor.handle(imuEvent: .health(.unavailable(reason: "unplugged"))) }
        board.loop.run()
        let events = board.output.take()
        #expect(events.contains { $0.contains("stabilization.lens") && $0.contains("enabled=off") && $0.contains("forced=yes") }, "\(events)")
        #expect(!board.supervisor.typed.stabilization.lens)
        #expect(board.reply("get stabilization.lens") == "ok stabilization.lens=off")
    }
}

/// Video stabilization of the streaming frames: the service owns the planner, the frames move the ScalerCrop.
@Suite(.serialized) struct VideoStabilizationServiceTests {
    @Test func thePlannerFollowsTheModeAndItsCropRidesOnTheRequests() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.reply("sim motion handheld 5") == "ok motion=handheld amplitude=5")
        board.advance(.milliseconds(300))
        #expect(board.supervisor.videoStabilizer.planner == nil, "off by default")
        #expect(board.reply("set stabilization.video standard") == "ok stabilization.video=standard")
        #expect(board.supervisor.videoStabilizer.planner != nil)
        board.advance(.milliseconds(300))
        #expect(board.supervisor.camera?.streamingControls[ControlName.scalerCrop] != nil)
        #expect(board.reply("set stabilization.video off") == "ok stabilization.video=off")
        #expect(board.supervisor.videoStabilizer.planner == nil)
        #expect(board.supervisor.camera?.streamingControls[ControlName.scalerCrop] == nil)
        board.advance(.milliseconds(100))
        #expect(board.supervisor.camera?.streamingControls[ControlName.scalerCrop] == nil, "no frame brings it back")
    }
}

/// The half press's decision: what it holds from the camera's latest frame, and what a release puts back.
@Suite struct HalfPressLockTests {
    private func settings(_ changes: [String: String] = [:]) -> TypedSettings {
        var s = TypedSettings.defaults
        for (k, v) in changes { try? SettingsTable.setting(k)?.set(v, in: &s) }
        return s
    }

    /// The settings after `changes` are made, in order.
    private func applying(_ changes: [HalfPressLock.Change], to start: TypedSettings) -> TypedSettings {
        var s = start
        for change in changes { change.apply(to: &s) }
        return s
    }

    @Test func holdsFocusThenExposureAndPutsBackTheSettingsInForce() {
        var lock = HalfPressLock()
        let camera = HalfPressLock.CameraState(exposureMetered: true, lensPositionDioptres: 1.25)
        let current = settings(["focus.mode": "continuous", "focus.lens": "0.5", "exposure.mode": "auto"])
        let changes = lock.lock(camera, settings: current)
        #expect(changes == [.lensPosition(dioptres: 1.25), .focusMode(.locked), .exposureMode(.locked)])
        let held = applying(changes ?? [], to: current)
        #expect(held.lensPositionDioptres == 1.25 && held.focusMode == .locked && held.exposureMode == .locked)
        #expect(lock.lock(camera, settings: current) == nil, "a second half press while held changes nothing")
        let restore = lock.unlock()
        #expect(restore == [.lensPosition(dioptres: 0.5), .focusMode(.continuous), .exposureMode(.auto)])
        #expect(applying(restore, to: held) == current, "the release puts back exactly the settings in force")
        #expect(lock.unlock().isEmpty && lock.saved.isEmpty, "a release puts back once")
    }

    @Test func whatTheCameraCannotHoldIsLeftAlone() {
        var lock = HalfPressLock()
        let fixedFocus = HalfPressLock.CameraState(exposureMetered: true, lensPositionDioptres: nil)
        #expect(lock.lock(fixedFocus, settings: settings(["exposure.mode": "custom"])) == [.exposureMode(.locked)])
        #expect(lock.unlock() == [.exposureMode(.custom)])

        let unmetered = HalfPressLock.CameraState(exposureMetered: false, lensPositionDioptres: 3)
        #expect(lock.lock(unmetered, settings: settings()) == [.lensPosition(dioptres: 3), .focusMode(.locked)])
        #expect(lock.unlock() == [.lensPosition(dioptres: 0), .focusMode(.continuous)])

        let nothing = HalfPressLock.CameraState(exposureMetered: false, lensPositionDioptres: nil)
        #expect(lock.lock(nothing, settings: settings()) == [])
        #expect(lock.unlock().isEmpty)
    }

    @Test func theRestoredLensPositionIsTheValueInForce() throws {
        var lock = HalfPressLock()
        let current = settings(["focus.lens": "0.3m"])  // 3.333… D
        _ = lock.lock(HalfPressLock.CameraState(exposureMetered: false, lensPositionDioptres: 2), settings: current)
        #expect(applying(lock.unlock(), to: settings()).lensPositionDioptres == current.lensPositionDioptres)
    }
}
