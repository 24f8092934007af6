import Console
import Hardware
import Recording
import Settings

extension Supervisor {
    /// How often a disconnected camera is looked for.
    static let cameraRetryInterval: Duration = .seconds(1)

    /// After a disconnect: asks the camera manager every `cameraRetryInterval` whether the camera
    /// is listed again (`CameraProvider.cameras()`; libcamera's list follows hot-plug), and when it
    /// is, opens it and streams with the current settings, as at start. Stops when the supervisor
    /// stops. Loop-confined.
    func watchForCameraReturn() {
        let bound = self.bound
        loop.schedule(after: Self.cameraRetryInterval) { bound.value?.lookForCamera() }
    }

    private func lookForCamera() {
        guard state == .ready, camera?.isStreaming != true else { return }
        let previous = camera?.device.info.id
        let listed = devices.cameraProvider.cameras()
        guard let info = listed.first(where: { $0.id == previous }) ?? listed.first else {
            watchForCameraReturn()
            return
        }
        do {
            let device = try devices.cameraProvider.open(id: info.id)
            try startCamera(device)
        } catch {
            log.warning("camera \(info.model) is back but cannot be started: \(error); trying again")
            watchForCameraReturn()
            return
        }
        log.notice("camera \(info.model) reconnected")
        broadcast(ConsoleEvent("camera.state", [("state", "streaming"), ("format", camera?.activeFormat.format.label ?? "")]))
    }
}

extension Supervisor {
    /// Video HDR's events: a change in force, a deferral, or the camera reopened for the sensor's
    /// HDR (stop, switch `wide_dynamic_range`, open, start with the same settings; the console
    /// hears `camera.state state=restarting`, then `streaming`).
    func videoHDREvent(_ event: VideoHDRService.Event) {
        switch event {
        case .changed(let kind):
            broadcast(ConsoleEvent(SettingsTable.videoHDR.key, [("active", kind == nil ? "off" : "on"), ("kind", kind?.description ?? "none")]))
        case .deferred(let reason):
            broadcast(ConsoleEvent(SettingsTable.videoHDR.key, [("deferred", reason)]))
        case .notApplied(let mode, let reported):
            let reason = "the camera's frames report HdrMode \(reported), not \(mode) (its tuning has no \(mode))"
            log.warning("video HDR: \(reason); using the next kind")
            broadcast(ConsoleEvent(SettingsTable.videoHDR.key, [("unused", mode.description), ("reason", reason)]))
        case .restartCamera(let on):
            // Not inside the frame handler or the `set` that asked: on the loop's next turn.
            let bound = self.bound
            loop.execute { bound.value?.reopenCamera(sensorHDR: on) }
        }
    }
}
