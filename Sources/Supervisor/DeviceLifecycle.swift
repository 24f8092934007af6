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
        do {
            runtime.camera = try devices.cameraProvider.open(id: first.id)
        } catch {
            throw StartupError("cannot open camera \(first.model) (\(first.id)): \(error)")
        }
        startIMU()
        startButton()
        setLED(true)
    }

    func stopDevices() {
        runtime.camera?.stop()
        devices.imu?.stop()
        devices.shutter?.close()
        devices.halfPress?.close()
        setLED(false)
        devices.led?.close()
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
            out.append(("camera", "\(camera.info.model) (\(devices.board.camera.backend))"))
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

    /// Applies a validated setting to the devices. Throws when the device refuses it.
    func apply(key: String, value: String) throws(ConsoleError) {
        // Settings are stored; camera-bound keys are applied by the camera service.
    }
}
