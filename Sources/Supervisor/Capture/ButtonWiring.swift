import Foundation  // replacingOccurrences
import Camera
import Console
import Lifecycle
import Recording
import Hardware
import Capture
import Controls
import Settings

extension Supervisor {
    /// Starts the capture service's shutter button (debounce, gestures, busy policy) and the status
    /// LED's patterns, and prepares the still stream so a press only queues requests.
    func startCaptureButton() {
        let service = captureService
        guard devices.shutter != nil else { service.led.show(.ready); return }
        service.button.start()
        do throws(CaptureError) { _ = try service.prepare() } catch {
            log.warning("capture: prepare at start failed: \(error.message); the first press will set up the still stream")
        }
        service.led.show(.ready)
    }

    /// With `button.required on`, a board without a shutter line stops start-up (before any device
    /// opens), naming the board and, when there is one, why the line could not be opened.
    func checkRequiredButton() throws(StartupError) {
        guard typed.button.required, devices.shutter == nil else { return }
        let why = devices.notes.first { $0.hasPrefix("shutter button:") }
            .map { $0.replacingOccurrences(of: "; the console still works", with: "") }
            ?? "GPIO backend \"\(devices.board.gpio.backend)\" has no shutter line"
        throw StartupError("\(SettingsTable.buttonRequired.key) is on but board \(devices.board.name) has no shutter button (\(why))")
    }

    /// Stops the button and the LED pattern (before the lines are closed).
    func stopCaptureButton() {
        captureService.button.stop()
        captureService.led.stop()
    }

    /// What the button asks that the capture service does not do itself: recording, the settings a
    /// half press holds (through the one settings transaction), and a failed line.
    func handle(buttonEvent: CaptureService.ButtonEvent) {
        switch buttonEvent {
        case .toggleRecording:
            do throws(ConsoleError) {
                if recorder.isRecording { _ = try worded { () throws(RecorderError) in try recorder.stop() } } else { _ = try startRecording() }
            } catch {
                broadcast(ConsoleEvent("button.error", [("action", "record"), ("reason", error.message)]))
            }
        case .lineFailed(let line, let reason):
            log.error("shutter button \(line) stopped: \(reason); use the console")
            broadcast(ConsoleEvent("button.failed", [("line", line), ("reason", reason)]))
        case .lockFocusAndExposure:
            guard let camera, let changes = halfPressLock.lock(HalfPressLock.CameraState(camera), settings: typed) else { return }
            applyHalfPress(changes, "half-press lock")
            broadcast(ConsoleEvent("button.half", [("locked", "yes")]))
        case .unlockFocusAndExposure:
            applyHalfPress(halfPressLock.unlock(), "half-press release")
            broadcast(ConsoleEvent("button.half", [("locked", "no")]))
        }
    }

    /// Commits what the half-press lock decided as one change; a refusal is logged.
    private func applyHalfPress(_ changes: [HalfPressLock.Change], _ what: String) {
        guard !changes.isEmpty else { return }
        do throws(ConsoleError) {
            try settings.update(origin: .halfPress) { settings in for change in changes { change.apply(to: &settings) } }
        } catch { log.warning("\(what): \(error.message)") }
    }
}

extension Supervisor {
    /// The capture service's recent shutter lags (press edge kernel time → first bracket request
    /// queued), for `tools/bench shutter`; nil before the capture service exists. Loop-confined.
    public var shutterLags: ShutterLagStatistics? { captureService.lags }
}
