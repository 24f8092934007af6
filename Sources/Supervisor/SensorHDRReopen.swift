import Console
import Hardware
import Settings

/// The sensor's own HDR (`wide_dynamic_range`) switched by reopening the camera: stop and let go of
/// the camera everywhere, switch, open it again and stream with the same settings. The console
/// hears `camera.state state=restarting`, then `streaming`. When the switch cannot be made the
/// camera opens again as it was, and video HDR leaves the sensor's mode aside for this camera.
extension Supervisor {
    /// Tries of the switch while the old camera is not yet let go (`busy`), `sensorHDRRetryInterval` apart.
    static let sensorHDRSwitchAttempts = 20
    static let sensorHDRRetryInterval: Duration = .milliseconds(100)

    func reopenCamera(sensorHDR on: Bool) {
        guard let info = camera?.device.info, devices.cameraProvider is SensorHDRSwitch else { return }
        broadcast(ConsoleEvent("camera.state", [("state", "restarting"), ("reason", Self.sensorHDRReason(on))]))
        // Closed and let go of everywhere: libcamera switches the sensor's HDR only with no camera open.
        releaseCamera(reason: Self.sensorHDRReason(on))
        // On a later turn: the cancelled requests' completions, still queued on the loop, hold the
        // old camera and its frames until they run.
        let bound = self.bound
        loop.execute { bound.value?.switchSensorHDR(on, camera: info, attemptsLeft: Self.sensorHDRSwitchAttempts) }
    }

    private static func sensorHDRReason(_ on: Bool) -> String { "sensor HDR \(on ? "on" : "off")" }

    private func switchSensorHDR(_ on: Bool, camera info: CameraInfo, attemptsLeft: Int) {
        guard state == .ready, let switcher = devices.cameraProvider as? SensorHDRSwitch else { return }
        let reason = Self.sensorHDRReason(on)
        var failure: (any Error)?
        do {
            try switcher.setSensorHDR(on, cameraID: info.id)
        } catch let error as HardwareError where error.kind == .busy && attemptsLeft > 1 {
            let bound = self.bound
            loop.schedule(after: Self.sensorHDRRetryInterval) {
                bound.value?.switchSensorHDR(on, camera: info, attemptsLeft: attemptsLeft - 1)
            }
            return
        } catch {
            failure = error
        }
        if let failure {
            log.error("camera \(info.model): \(reason) failed: \(failure); the camera opens again as it was")
            videoHDR.sensorHDRFailed()
            broadcast(ConsoleEvent(SettingsTable.videoHDR.key, [("unused", "sensor"), ("reason", "switching the sensor's HDR failed: \(failure)")]))
        }
        do {
            try startCamera(try devices.cameraProvider.open(id: info.id))
        } catch {
            log.error("camera \(info.model): reopening after \(reason) failed: \(error)")
            broadcast(ConsoleEvent("camera.state", [("state", "stopped"), ("reason", "reopening after \(reason) failed: \(error)")]))
            watchForCameraReturn()
            return
        }
        let format = camera?.activeFormat.format.label ?? ""
        guard failure == nil else {
            broadcast(ConsoleEvent("camera.state", [("state", "streaming"), ("format", format)]))
            return
        }
        log.notice("camera \(info.model) reopened for \(reason)")
        broadcast(ConsoleEvent("camera.state", [("state", "streaming"), ("format", format), ("hdr", reason)]))
        broadcast(ConsoleEvent(SettingsTable.videoHDR.key, [("active", on ? "on" : "off"), ("kind", on ? "sensor" : "none")]))
    }
}
