import Camera
import Console
import Hardware

/// Live device state the supervisor keeps for `status` and for the capture path.
struct DeviceRuntime {
    var camera: (any CameraDevice)?
    var imuHealth: IMUHealth?
    var imuSamples: Int = 0
    var shutterEdges: Int = 0
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
        let device: any CameraDevice
        do {
            device = try devices.cameraProvider.open(id: first.id)
        } catch {
            throw StartupError("cannot open camera \(first.model) (\(first.id)): \(error)")
        }
        runtime.camera = device
        try startCamera(device)
        startIMU()
        startButton()
        setLED(true)
    }

    func stopDevices() {
        camera?.stopStreaming()
        devices.imu?.stop()
        devices.shutter?.close()
        devices.halfPress?.close()
        setLED(false)
        devices.led?.close()
    }

    /// Wraps the device in a controller, applies the settings (config file included) and streams.
    private func startCamera(_ device: any CameraDevice) throws(StartupError) {
        let sensor = devices.sensors[device.info.model.lowercased()]
            ?? SensorDatabase(Array(devices.sensors.values)).describe(device)
        let controller: CameraController
        do {
            controller = try CameraController(device: device, sensor: sensor, loop: loop)
        } catch {
            throw StartupError("camera \(device.info.model): \(error)")
        }
        camera = controller
        let bound = self.bound
        controller.onDisconnect = { bound.value.cameraDisconnected() }
        do throws(ConsoleError) {
            try applyToCamera(changedKeys: Set(settings.keys), settings: settings)
        } catch {
            throw StartupError("settings: \(error.message)")
        }
        do {
            try controller.startStreaming()
        } catch {
            throw StartupError("camera \(device.info.model): cannot start streaming: \(error)")
        }
    }

    func cameraDisconnected() {
        log.error("camera disconnected")
        broadcast(ConsoleEvent("camera.state", [("state", "disconnected")]))
    }

    private func startIMU() {
        guard let imu = devices.imu else { return }
        let bound = self.bound
        do {
            try imu.start { event in
                bound.loop.execute { bound.value.handle(imuEvent: event) }
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
        case .health(let health):
            guard health != runtime.imuHealth else { return }
            runtime.imuHealth = health
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

    private func startButton() {
        guard let shutter = devices.shutter else { return }
        let bound = self.bound
        shutter.setEdgeHandler { edge in
            bound.loop.execute { bound.value.handle(shutterEdge: edge) }
        }
    }

    func handle(shutterEdge: GPIOEdge) {
        runtime.shutterEdges += 1
    }

    func setLED(_ on: Bool) {
        guard let led = devices.led else { return }
        do { try led.write(on) } catch { log.warning("LED \(led.address): \(error)") }
    }

    /// Name/state pairs for the banner and `status`.
    func deviceSummary() -> [(String, String)] {
        var out: [(String, String)] = []
        if let camera = runtime.camera {
            let streaming = self.camera?.isStreaming == true ? "streaming \(self.camera?.activeFormat.format.label ?? "")" : "idle"
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
        out.append(("shutter", devices.shutter.map { "\($0.address)" } ?? "none"))
        out.append(("led", devices.led.map { "\($0.address)" } ?? "none"))
        out.append(("display", devices.display.name))
        return out
    }
}
