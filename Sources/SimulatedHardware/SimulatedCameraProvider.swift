import Boards
import Hardware
import FrameSyncNetwork

/// The simulated board's camera manager: one simulated camera built from a sensor description.
public final class SimulatedCameraProvider: CameraProvider {
    /// The loop the cameras run on.
    public let loop: any EventLoop
    /// The sensor entry the camera simulates.
    public let sensor: SensorDescription
    /// The rig's true motion (shared with the simulated IMU).
    public let motion: any MotionTruth
    /// Seed of the frame noise.
    public let seed: UInt64
    /// The one camera's id, shaped like a Raspberry Pi libcamera id.
    public let cameraID: String
    /// The scene new cameras start with.
    public var scene: SimulatedScene
    /// Whether cameras it opens have exposure controls (`SimulatedCamera.exposureControl`).
    public var exposureControl = true
    /// Which libcamera's controls cameras it opens offer (`SimulatedCamera.libcamera`).
    public var libcamera = SimulatedLibcamera.raspberryPi0_5
    /// Buffers per stream at most for cameras it opens (`SimulatedPipelineLimits.maximumBufferCount`).
    public var maximumBufferCount: Int?
    /// Requests queued at once before the first frame (`SimulatedPipelineLimits.minimumQueuedToStart`).
    public var minimumQueuedToStart = 1
    /// Largest rendered frame for cameras it opens (`SimulatedCamera.maximumRenderSize`); nil: full size.
    public var maximumRenderSize: PixelSize?
    /// What the raw stream of cameras it opens hands back (`SimulatedCamera.rawOutput`, board `camera.raw`).
    public var rawOutput = SimulatedRawOutput.unpacked
    /// Where frame sync's datagrams go for cameras it opens (`SimulatedCamera.frameSyncChannels`,
    /// board `camera.sync`); the loopback by default.
    public var frameSyncAddress = FrameSyncAddress.simulatedDefault
    /// HdrMode values the tuning of cameras it opens lacks (`SimulatedHDRState.unconfiguredModes`).
    public var unconfiguredHdrModes: Set<HdrModeValue> = []
    /// The camera most recently opened, while it is open (its last holder keeps it), for tests and
    /// fault injection.
    public private(set) weak var openedCamera: SimulatedCamera?
    /// False while the camera is unplugged: the manager lists no camera and `open` fails.
    public private(set) var isPluggedIn = true
    /// The sensor's own HDR for the next open (`SensorHDRSwitch`), as `wide_dynamic_range` stays set
    /// on the sensor between opens.
    public private(set) var sensorHDROn = false
    /// An error the next switches of the sensor's HDR throw (a driver refusing it), for tests.
    public var sensorHDRSwitchFault: HardwareError?
    /// Switches of the sensor's HDR so far, for tests.
    public private(set) var sensorHDRSwitches = 0

    /// CLOCK_REALTIME minus the loop's clock for cameras it opens (`SimulatedCamera`'s FrameWallClock);
    /// nil: read when each camera opens. Cameras given one offset share one wall clock, whatever real
    /// time passed between their opens (rigs of one NTP-disciplined network, on a manual clock).
    public let wallClockOffsetNanoseconds: Int64?

    /// A provider for `sensor` on `loop`; frames are blurred by `motion` and reproducible for `seed`.
    public init(loop: any EventLoop, sensor: SensorDescription, motion: any MotionTruth = StillMotion(),
                scene: SimulatedScene = SimulatedScene(), seed: UInt64 = 1, wallClockOffsetNanoseconds: Int64? = nil) {
        self.loop = loop; self.sensor = sensor; self.motion = motion; self.scene = scene; self.seed = seed
        self.wallClockOffsetNanoseconds = wallClockOffsetNanoseconds
        cameraID = "/base/soc/i2c0mux/i2c@1/\(sensor.model)@1a"
    }

    /// A provider for a board whose camera backend is "sim": the sensor named by the board (default
    /// "imx708") from `sensors` (the database's entries), or else the description embedded in the binary
    /// (`SensorDescription.embedded(model:)`); the board's seed, `exposureControl`, `maximumRenderSize` and `raw`.
    public convenience init(loop: any EventLoop, board: BoardDescription, sensors: [SensorDescription],
                            motion: any MotionTruth = StillMotion()) throws {
        guard board.camera.backend == "sim" else {
            throw HardwareError(.invalidArgument, "board \(board.name): camera backend is '\(board.camera.backend)', not 'sim'")
        }
        let model = (board.camera.sensor ?? "imx708").lowercased()
        let sensor: SensorDescription
        if let entry = sensors.first(where: { $0.model.lowercased() == model }) {
            sensor = entry
        } else if EmbeddedDescriptions.sensors[model] != nil {
            sensor = try SensorDescription.embedded(model: model)
        } else {
            throw HardwareError(.notFound, "board \(board.name): simulated sensor '\(model)' is not in the sensor database")
        }
        self.init(loop: loop, sensor: sensor, motion: motion, seed: board.camera.seed ?? 1)
        exposureControl = board.camera.exposureControl ?? true
        maximumRenderSize = board.camera.maximumRenderSize
        if let sync = board.camera.sync { frameSyncAddress = sync }
        do { rawOutput = try SimulatedRawOutput(board: board.camera.raw) } catch let error as HardwareError {
            throw HardwareError(error.kind, "board \(board.name): \(error.message)")
        }
    }

    public func cameras() -> [CameraInfo] { isPluggedIn ? [info] : [] }

    /// Fault hook: the camera is unplugged (the opened one disconnects, requests in flight complete
    /// as cancelled unless `completingPending` is false) and stays gone until `simulateReplug()`.
    public func simulateUnplug(completingPending: Bool = true) {
        isPluggedIn = false
        openedCamera?.simulateDisconnect(completingPending: completingPending)
    }

    /// Fault hook: the camera is back; the manager lists it and it can be opened again.
    public func simulateReplug() { isPluggedIn = true }

    var info: CameraInfo {
        let cell = sensor.pixelSizeMicrometres.map { Int(($0 * 1000).rounded()) }
        return CameraInfo(id: cameraID, model: sensor.model, location: .back, pixelArraySize: sensor.pixelArray,
                          unitCellSizeNanometres: cell.map { PixelSize(width: $0, height: $0) })
    }

    public func open(id: String) throws -> any CameraDevice {
        guard id == cameraID, isPluggedIn else {
            throw HardwareError(.notFound, "simulated camera manager: open '\(id)': no such camera (have \(cameraID))")
        }
        let camera = SimulatedCamera(info: info, sensor: sensor, loop: loop, motion: motion, scene: scene, seed: seed,
                                     wallClockOffsetNanoseconds: wallClockOffsetNanoseconds)
        camera.exposureControl = exposureControl
        camera.libcamera = libcamera
        camera.pipeline.maximumBufferCount = maximumBufferCount
        camera.pipeline.minimumQueuedToStart = minimumQueuedToStart
        camera.maximumRenderSize = maximumRenderSize
        camera.rawOutput = rawOutput
        camera.frameSyncChannels = MulticastFrameSyncChannels(address: frameSyncAddress)
        camera.hdr.sensorHDR = sensorHDROn
        camera.hdr.unconfiguredModes = unconfiguredHdrModes
        openedCamera = camera
        return camera
    }
}

extension SimulatedCameraProvider {
    /// `sim light sunset|sunrise DURATION` and `sim light steady`: changes the light from now, for
    /// new cameras and the open one alike (`SimulatedLight.change`). Returns the level it goes to, EV.
    @discardableResult
    public func changeLight(_ name: String, duration: Duration?) throws(HardwareError) -> SimulatedLight {
        let light = try SimulatedLight.change(name, duration: duration, from: scene.light, at: loop.now())
        scene.light = light
        openedCamera?.scene.light = light
        return light
    }
}

extension SimulatedCameraProvider: SensorHDRSwitch {
    public func hasSensorHDR(cameraID: String) -> Bool {
        cameraID == self.cameraID && sensor.hdr && sensor.modes.contains { $0.hdr == true }
    }

    public func isSensorHDROn(cameraID: String) -> Bool { cameraID == self.cameraID && sensorHDROn }

    public func setSensorHDR(_ on: Bool, cameraID: String) throws {
        guard hasSensorHDR(cameraID: cameraID) else {
            throw HardwareError(.unsupported, "simulated camera \(cameraID) (\(sensor.model)): the sensor has no HDR mode (wide_dynamic_range)")
        }
        // As libcamera's: the sensor's control changes only with every camera released.
        if openedCamera != nil {
            throw HardwareError(.busy, "simulated camera \(cameraID): sensor HDR changes only with the camera released")
        }
        if let sensorHDRSwitchFault { throw sensorHDRSwitchFault }
        guard on != sensorHDROn else { return }
        sensorHDROn = on
        sensorHDRSwitches += 1
    }
}
