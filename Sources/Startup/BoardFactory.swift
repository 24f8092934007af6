import Camera
import Foundation
import Boards
import FrameSyncNetwork
import Hardware
import Lifecycle
import LinuxHardware
import Logging
import SimulatedHardware
import Supervisor

/// Builds a board's device graph from its description: the simulated devices for "sim" backends,
/// the real ones (libcamera, libgpiod, i2c-dev/IIO, DRM) otherwise. Built once, in `main`.
///
/// Only the camera is required; every optional device that is absent or fails becomes nil (or the
/// null display) with a note that `start` logs and `status` shows.
public enum BoardFactory {
    public static func build(board: BoardDescription, catalog: BoardCatalog, loop: any EventLoop,
                             capturesDirectory: String, log: Logger) throws(StartupError) -> BoardDevices {
        let loaded = loadSensorsReporting(catalog: catalog)
        let sensors = loaded.sensors
        var notes = loaded.notes
        let storage: any Storage
        do {
            let posix = try PosixStorage(root: capturesDirectory)
            let stale = try posix.removeStaleTemporaryFilesInFolders()
            if stale > 0 { notes.append("captures: removed \(stale) unfinished temporary files") }
            storage = posix
        } catch {
            throw StartupError("captures directory \(capturesDirectory): \(error)")
        }

        // IMU first: on the simulated board its ground truth also blurs the simulated frames.
        var imu: (any IMUDevice)?
        var motion: any MotionTruth = StillMotion()
        switch board.imu.backend {
        case "none":
            break
        case "sim":
            do {
                let sim = try SimulatedIMU(section: board.imu, loop: loop, seed: board.camera.seed ?? 1)
                imu = sim
                motion = sim.truth
            } catch {
                notes.append("IMU: simulated IMU failed: \(error)")
            }
        default:
            do {
                imu = try makeLinuxIMU(section: board.imu, loop: backgroundLoop(named: "tripod-imu"))
            } catch {
                notes.append("IMU (\(board.imu.backend)): \(error); continuing without motion data")
            }
        }

        let cameraProvider = try makeCameraProvider(board: board, sensors: sensors, loop: loop, motion: motion)
        var simulatedButton: SimulatedButton?
        var shutter: (any GPIOInputLine)?
        var halfPress: (any GPIOInputLine)?
        var led: (any GPIOOutputLine)?
        switch board.gpio.backend {
        case "none":
            break
        case "sim":
            let button = SimulatedButton(loop: loop, twoStage: board.gpio.halfPress != nil)
            shutter = button.shutter
            halfPress = button.halfPress
            if board.gpio.led != nil { led = SimulatedLED(address: board.gpio.led ?? GPIOLineAddress(name: "LED"), clock: loop) }
            simulatedButton = button
        case "gpiod":
            do {
                let lines = try GPIODButtonLines.open(board.gpio)
                shutter = lines.shutter
                halfPress = lines.halfPress
                led = lines.led
                if let e = lines.ledError { notes.append("LED: \(e.message)") }
            } catch {
                notes.append("shutter button: \(error); the console still works")
            }
        default:
            throw StartupError("board \(board.name): unknown GPIO backend \"\(board.gpio.backend)\" (use sim, gpiod or none)")
        }

        let pir = makePIRLine(board.gpio, notes: &notes)
        let simulation = SimulationHooks.of(imu: imu as? SimulatedIMU, cameras: cameraProvider as? SimulatedCameraProvider,
                                            button: simulatedButton, pir: pir as? SimulatedInputLine, loop: loop)

        let (display, reason) = DisplayFactory.make(board.display)
        if let reason, board.display.backend != "none" { notes.append("display: \(reason)") }

        var devices = BoardDevices(board: board, cameraProvider: cameraProvider, sensors: sensors, imu: imu,
                                   shutter: shutter, halfPress: halfPress, led: led, display: display, storage: storage,
                                   notes: notes, simulation: simulation)
        // Where a frame-sync client hears its server, to measure its alignment (board `camera.sync`).
        let syncDefault: FrameSyncAddress = board.camera.backend == "sim" ? .simulatedDefault : .raspberryPi
        devices.frameSyncListener = MulticastFrameSyncChannels(address: board.camera.sync ?? syncDefault)
        devices.pir = pir
        return devices
    }

    /// The camera manager for the board's camera backend (started, for libcamera).
    static func makeCameraProvider(board: BoardDescription, sensors: [String: SensorDescription], loop: any EventLoop,
                                   motion: any MotionTruth) throws(StartupError) -> any CameraProvider {
        switch board.camera.backend {
        case "sim":
            do {
                return try SimulatedCameraProvider(loop: loop, board: board, sensors: Array(sensors.values), motion: motion)
            } catch {
                throw StartupError("simulated camera: \(error)")
            }
        case "libcamera":
            let provider = LibcameraProvider()
            do { try provider.start() } catch { throw StartupError("libcamera: \(error)") }
            return provider
        default:
            throw StartupError("board \(board.name): unknown camera backend \"\(board.camera.backend)\" (use sim or libcamera)")
        }
    }

    /// Every sensor description the catalog can find, by lower-case model.
    static func loadSensors(catalog: BoardCatalog) -> [String: SensorDescription] {
        loadSensorsReporting(catalog: catalog).sensors
    }

    /// Every sensor description the catalog can find, and a note for each file that does not
    /// decode (its sensor is then described from the camera's own controls, as an unknown one).
    static func loadSensorsReporting(catalog: BoardCatalog) -> (sensors: [String: SensorDescription], notes: [String]) {
        var sensors: [String: SensorDescription] = [:]
        var notes: [String] = []
        for model in catalog.sensorModels() {
            do throws(StartupError) {
                if let s = try catalog.sensor(model) { sensors[model] = s }
            } catch {
                notes.append("\(error.message); that sensor is treated as unknown")
            }
        }
        return (sensors, notes)
    }

    /// A real-clock loop on its own thread, for devices whose transfers block (an I2C IMU drain).
    static func backgroundLoop(named name: String) -> PosixEventLoop {
        let loop = PosixEventLoop()
        let thread = Thread { loop.run() }
        thread.name = name
        thread.start()
        return loop
    }
}
