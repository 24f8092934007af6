import Camera
import Console
import Hardware
import Lifecycle
import Logging
import Motion
import Stabilization
import Capture
import Settings

/// Live device state the supervisor keeps for `status` and for the capture path.
struct DeviceRuntime {
    var imuHealth: IMUHealth?
    var imuSamples: Int = 0
    /// The gyro bias last written to the state directory, to skip rewrites that change nothing.
    var savedGyroBias: Vector3?
    /// Every device's saved calibration (imu-calibration.json), read at start and kept up to date.
    var savedCalibrations: [String: GyroCalibration] = [:]
}

extension Supervisor {
    /// Opens the camera (required) and starts the optional devices, logging what is missing.
    func startDevices() throws(StartupError) {
        let cameras = devices.cameraProvider.cameras()
        guard let first = cameras.first else {
            throw StartupError("no camera found on board \(devices.board.name)" +
                               (devices.board.camera.connector.map { " (connector \($0))" } ?? "") +
                               "; check the ribbon cable and the camera overlay in config.txt")
        }
        try checkRequiredButton()
        startIMU()
        let device: any CameraDevice
        do {
            device = try devices.cameraProvider.open(id: first.id)
        } catch {
            throw StartupError("cannot open camera \(first.model) (\(first.id)): \(error)")
        }
        try startCamera(device)
        startViewfinder()
        startButton()
        setLED(true)
    }

    func stopDevices() {
        stopViewfinder()
        stopCaptureButton()
        camera?.stopStreaming()
        devices.imu?.stop()
        devices.shutter?.close()
        devices.halfPress?.close()
        devices.pir?.close()
        setLED(false)
        devices.led?.close()
    }

    /// Wraps the device in a controller, applies the settings (config file included) and streams.
    func startCamera(_ device: any CameraDevice) throws(StartupError) {
        let sensor = devices.sensors[device.info.model.lowercased()]
            ?? SensorDatabase(Array(devices.sensors.values)).describe(device)
        let controller: CameraController
        let sensorHDR = devices.cameraProvider as? SensorHDRSwitch
        let bound = self.bound
        do {
            controller = try CameraController(device: device, sensor: sensor, loop: loop,
                                              sensorHDRSwitchable: sensorHDR?.hasSensorHDR(cameraID: device.info.id) ?? false,
                                              sensorHDROn: sensorHDR?.isSensorHDROn(cameraID: device.info.id) ?? false,
                                              frameSyncListener: devices.frameSyncListener,
                                              pipeline: makeFramePipeline(),
                                              output: { event in bound.value?.cameraEvent(event) })
        } catch {
            throw StartupError("camera \(device.info.model): \(error)")
        }
        attachCamera(controller)  // a disconnected camera's controller lets go of its device for good
        startStabilization(sensor: controller.sensor, format: controller.activeFormat)
        // Defaults the camera cannot do (focus on a fixed-focus sensor) are left alone. Saved settings
        // the camera refuses (saved with another camera) give way to the config file and defaults,
        // so the console stays reachable to fix them; a config-file value it refuses stops the start.
        do throws(ConsoleError) {
            try settings.reapply(keys: startupKeys(controller))
        } catch {
            guard settings.hasRestored else { throw StartupError("settings: \(error.message)") }
            let reverted: [String]
            do throws(ConsoleError) {
                reverted = try settings.revertRestored()
                try settings.reapply(keys: startupKeys(controller))
            } catch {
                // Not the saved settings' fault: the config file (or a default) is refused.
                throw StartupError("settings: \(error.message)")
            }
            let note = "saved settings not applied (\(error.message)); using the config file and defaults for \(reverted.joined(separator: ", ")) (set them again and save, or reset)"
            log.warning(note)
            startupWarning = note
        }
        // Stabilization settings depend on the IMU being healthy now: a refusal is logged, never fatal.
        for setting in SettingsTable.stabilization where setting.differs(typed, .defaults) {
            do throws(ConsoleError) {
                try settings.reapply(keys: [setting.key])
            } catch {
                log.warning("\(setting.key)=\(setting.text(in: typed)): \(error.message); left at \(setting.defaultText)")
                _ = try? settings.update(origin: .startupFallback) { setting.copy(from: .defaults, to: &$0) }
            }
        }
        videoHDR.cameraStarted()
        do {
            // The capture service decides what the streams are for (stills from the start with a button).
            try controller.startStreaming(captureService.streamingConfiguration)
        } catch {
            throw StartupError("camera \(device.info.model): cannot start streaming: \(error)")
        }
        // Video settings (a pre-record buffer starts now); a refusal is logged, never fatal.
        do throws(ConsoleError) { try settings.reapply(keys: Set(SettingsTable.recording.map(\.key))) } catch {
            log.warning("video settings: \(error.message)")
        }
        // The live stream is fed once the camera streams; a refusal is logged, never fatal.
        do throws(ConsoleError) { try settings.reapply(keys: Set(SettingsTable.stream.map(\.key))) } catch {
            log.warning("stream: \(error.message)")
        }
    }

    /// The settings applied when the camera opens: all but stabilization's (after, once the IMU's
    /// health is known) and the recorder's (once streaming), and without focus on a fixed-focus
    /// camera while focus is at its defaults.
    private func startupKeys(_ controller: CameraController) -> Set<String> {
        var keys = Set(SettingsTable.all.map(\.key))
            .subtracting((SettingsTable.stabilization + SettingsTable.recording).map(\.key))
        let focus = [SettingsTable.focusMode.any, SettingsTable.focusLens.any]
        if controller.afSystem == "none", !focus.contains(where: { $0.differs(typed, .defaults) }) {
            keys.subtract(focus.map(\.key))
        }
        return keys
    }

    /// The camera controller's events besides frames.
    func cameraEvent(_ event: CameraControllerEvent) {
        switch event {
        case .disconnected:
            cameraDisconnected()
        case .streamingStopped:
            viewfinder?.presenter.mailbox.clear()
        case .streamingFailed(let error):
            log.error("camera stopped streaming: \(error)")
            broadcast(ConsoleEvent("camera.state", [("state", "stopped"), ("reason", "\(error)")]))
        }
    }

    func cameraDisconnected() {
        log.error("camera disconnected")
        broadcast(ConsoleEvent("camera.state", [("state", "disconnected")]))
        // Requests in flight may never complete: a running bracket ends now, not at its timeout.
        captureService.cameraDisconnected()
        // A recording ends with the frames it has, rather than run on with none.
        recorder.cameraDisconnected()
        watchForCameraReturn()
    }

    private func startIMU() {
        guard let imu = devices.imu else {
            runtime.imuHealth = nil
            return
        }
        let bound = self.bound
        do {
            try imu.start { event in
                bound.loop.execute { bound.value?.handle(imuEvent: event) }
            }
            runtime.imuHealth = .running
        } catch {
            runtime.imuHealth = .unavailable(reason: "\(error)")
            log.warning("IMU \(imu.name) unavailable: \(error)")
        }
    }

    func handle(imuEvent: IMUEvent) {
        switch imuEvent {
        case .samples(let batch):
            runtime.imuSamples += batch.count
            recorder.motionArrived(motion.ingest(batch))
        case .health(let health):
            guard health != runtime.imuHealth else { return }
            runtime.imuHealth = health
            stabilization?.imuHealthChanged(health)
            switch health {
            case .running:
                log.notice("IMU running")
                broadcast(ConsoleEvent("imu.state", [("state", "running")]))
            case .unavailable(let reason):
                log.warning("IMU unavailable: \(reason)")
                broadcast(ConsoleEvent("imu.state", [("state", "unavailable"), ("reason", reason)]))
            }
        }
    }

    /// The key of the IMU's saved calibration: where it is wired, which is known before the driver
    /// has identified the chip and stays the same across restarts.
    var imuCalibrationKey: String { Self.imuCalibrationKey(devices.board) }

    static func imuCalibrationKey(_ board: BoardDescription) -> String {
        let imu = board.imu
        return "\(imu.backend):\(imu.bus ?? "sim")@\(imu.address.map { String($0, radix: 16) } ?? "auto")"
    }

    /// The supervisor's motion tracker (made in its `init`): the IMU's, with the gyro bias saved per
    /// device in the state directory (`saved`, every device's); without an IMU, one named "none"
    /// that nothing feeds, so every capture reports Unavailable. `onCalibration` saves a new bias.
    static func makeMotionTracker(devices: BoardDevices, state: StateStore?, log: Logger,
                                  onCalibration: @escaping (GyroCalibration) -> Void) -> (MotionTracker, saved: [String: GyroCalibration]) {
        guard devices.imu != nil else { return (MotionTracker(deviceName: "none"), [:]) }
        let deviceName = imuCalibrationKey(devices.board)
        let saved: [String: GyroCalibration]
        do { saved = try state?.load([String: GyroCalibration].self, from: StateStore.File.imuCalibration) ?? [:] }
        catch { log.warning("IMU calibration ignored: \(error)"); saved = [:] }
        // 30 s of history: blur predictions need 4 s, gyro logs need the whole bracket.
        let tracker = MotionTracker(deviceName: deviceName, calibration: saved[deviceName], historyDuration: .seconds(30),
                                    onCalibration: onCalibration)
        return (tracker, saved)
    }

    /// Saves a new gyro bias when it moved by more than 0.03 °/s from the saved one; the tracker
    /// recalibrates every time the rig is still, and most of those change nothing worth a write.
    /// The file is written off the loop (two fsyncs), after the writes asked for before it.
    func saveCalibration(_ calibration: GyroCalibration) {
        guard case .stateDirectory(let writer) = stateKeeping else { return }
        if let saved = runtime.savedGyroBias, ((calibration.bias - saved) * (calibration.bias - saved)).sum().squareRoot() < 0.0005 { return }
        runtime.savedGyroBias = calibration.bias
        runtime.savedCalibrations[calibration.deviceName] = calibration
        let log = self.log, device = calibration.deviceName
        writer.save(runtime.savedCalibrations, as: StateStore.File.imuCalibration) { error in
            if let error { log.warning("IMU calibration not saved: \(error)") }
            else { log.info("IMU gyro bias calibrated for \(device)") }
        }
    }

    private func startButton() {
        startCaptureButton()
        startPIR()
    }

    func setLED(_ on: Bool) {
        guard let led = devices.led else { return }
        do { try led.write(on) } catch { log.warning("LED \(led.address): \(error)") }
    }

    /// Name/state pairs for the banner and `status`.
    func deviceSummary() -> [(String, String)] {
        var out: [(String, String)] = []
        if let camera = self.camera?.device {
            let streaming: String
            if let controller = self.camera, controller.isStreaming {
                streaming = "streaming \(controller.activeFormat.format.label)"
            } else if let error = self.camera?.lastError {
                streaming = "stopped: \(error)"
            } else {
                streaming = "idle"
            }
            out.append(("camera", "\(camera.info.model) (\(devices.board.camera.backend), \(streaming))"))
        } else {
            out.append(("camera", "none"))
        }
        if let imu = devices.imu {
            switch runtime.imuHealth {
            case .running?: out.append(("imu", "\(imu.name)"))
            case .unavailable(let reason)?: out.append(("imu", "\(imu.name) unavailable: \(reason)"))
            case nil: out.append(("imu", "\(imu.name) (not started)"))
            }
        } else {
            out.append(("imu", "none"))
        }
        let shutterState = devices.shutter.map { line in
            captureService.button.failure.map { "\(line.address) stopped: \($0)" } ?? "\(line.address)"
        }
        out.append(("shutter", shutterState ?? "none"))
        out.append(("led", devices.led.map { "\($0.address)" } ?? "none"))
        out.append(("display", displayName))
        return out
    }
}
