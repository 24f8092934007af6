import Hardware

/// The device graph of one board, built once in `main` from its description and passed down.
///
/// Optional devices that are absent or failed are nil (or the null display), with a note saying why.
public struct BoardDevices {
    public var board: BoardDescription
    public var cameraProvider: any CameraProvider
    /// Sensor database entries by model, for the camera's format table and the IMU's blur model.
    public var sensors: [String: SensorDescription]
    public var imu: (any IMUDevice)?
    public var shutter: (any GPIOInputLine)?
    public var halfPress: (any GPIOInputLine)?
    public var led: (any GPIOOutputLine)?
    public var display: any DisplayDevice
    public var storage: any Storage
    /// Why an optional device is missing or fell back ("IMU: no device at i2c-1@0x68").
    public var notes: [String]
    /// Hooks for `sim ...` and `button ...` console commands; nil on real boards.
    public var simulation: SimulationHooks?
    /// Whether a recording's start measures libx264's speed to choose its preset
    /// (`EncoderPresetChoice`): set by `main`, which runs the real loop; off on the manual clock,
    /// where wall time says nothing about the recording's rate.
    public var measuresEncoderSpeed = false
    /// Where a frame-sync client listens to its server's datagrams to measure its alignment
    /// (`CameraController.frameSyncStatus`); nil: not measured.
    public var frameSyncListener: (any FrameSyncChannelFactory)?
    /// The camera's serial number in the EXIF (BodySerialNumber, DNG CameraSerialNumber): the
    /// board's serial and the camera's index; nil: none written.
    public var serialNumber: String?
    /// The PIR sensor's line (board `gpio.pir`), a trigger source; nil without one.
    public var pir: (any GPIOInputLine)?

    public init(board: BoardDescription, cameraProvider: any CameraProvider, sensors: [String: SensorDescription],
                imu: (any IMUDevice)?, shutter: (any GPIOInputLine)?, halfPress: (any GPIOInputLine)?,
                led: (any GPIOOutputLine)?, display: any DisplayDevice, storage: any Storage,
                notes: [String] = [], simulation: SimulationHooks? = nil) {
        self.board = board; self.cameraProvider = cameraProvider; self.sensors = sensors; self.imu = imu
        self.shutter = shutter; self.halfPress = halfPress; self.led = led; self.display = display
        self.storage = storage; self.notes = notes; self.simulation = simulation
    }
}

/// What the simulated board lets a console do that real hardware cannot: made once, by the board
/// factory, from the simulated parts the board has (nil: that part is not simulated).
public struct SimulationHooks {
    /// `sim motion still|handheld|walking|pan [amplitude °/s]`.
    public let setMotion: ((String, Double?) throws -> String)?
    /// `button press`, `button hold <ms>`, `button half`.
    public let button: ((String, Duration?) throws -> Void)?
    /// `sim scene even|backlit|depth|object [spin DEG_PER_S]`: what the simulated camera sees (the
    /// words after `sim scene`, space-separated); returns the scene's name.
    public let setScene: ((String) throws -> String)?
    /// `sim light sunset|sunrise DURATION | steady`: how the simulated light changes with time;
    /// returns the level, EV from day, the light goes to.
    public let changeLight: ((String, Duration?) throws -> Double)?
    /// `sim object cross SPEED SIZE`: an object walks across the picture; returns the frame it enters.
    public let crossObject: ((Double, Double) throws -> UInt64)?
    /// `sim pir`: the simulated PIR line goes active, then inactive.
    public let pir: (() throws -> Void)?
    /// `sim pose X,Y,Z lookat X,Y,Z`: where the rig stands in `sim scene object`; returns the pose's
    /// canonical text.
    public let setPose: ((String) throws -> String)?
    public init(setMotion: ((String, Double?) throws -> String)? = nil, button: ((String, Duration?) throws -> Void)? = nil,
                setScene: ((String) throws -> String)? = nil, changeLight: ((String, Duration?) throws -> Double)? = nil,
                crossObject: ((Double, Double) throws -> UInt64)? = nil, pir: (() throws -> Void)? = nil,
                setPose: ((String) throws -> String)? = nil) {
        self.setMotion = setMotion; self.button = button; self.setScene = setScene; self.changeLight = changeLight
        self.crossObject = crossObject; self.pir = pir; self.setPose = setPose
    }
}
