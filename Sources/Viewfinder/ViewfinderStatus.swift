/// Everything the overlay shows besides the image: a plain value the supervisor fills each frame
/// from the completed request's metadata, the bracket, the motion pipeline and the console.
public struct ViewfinderStatus: Sendable, Equatable {
    /// `ExposureTime`, microseconds.
    public var exposureDurationMicroseconds: Int?
    /// ISO equivalent (analogue gain × 100 on most sensors).
    public var iso: Int?
    /// `ExposureValue`, EV stops, e.g. -0.7.
    public var exposureBiasEV: Double?
    /// Auto exposure on (true) or manual (false).
    public var autoExposure: Bool = true
    /// White balance: "AUTO", "DAYLIGHT", or a manual temperature.
    public var whiteBalance: WhiteBalance = .auto
    /// "AF-C", "AF-S", "MF".
    public var focusMode: String = "MF"
    /// `LensPosition`, dioptres (0 = infinity).
    public var lensPositionDioptres: Double?
    /// The stream's format and size, e.g. "RAW12 4608x2592" or "YUV 1920x1080".
    public var format: String = ""
    /// Frames per second being delivered.
    public var framesPerSecond: Double?
    /// Digital zoom factor; shown only above 1 ("2.0x").
    public var zoomFactor: Double?
    /// A bracket in progress: frame `index` (1-based) of `count`, with its EV offset.
    public var bracket: BracketProgress?
    /// Stabilization: nil when off.
    public var stabilization: StabilizationState?
    /// The IMU's state, e.g. "OK 800Hz", "CALIBRATING", "NO IMU".
    public var imuState: String = ""
    /// True while recording (a red marker is shown).
    public var recording: Bool = false
    /// A transient message from the console or supervisor ("SAVED IMG_0042.DNG").
    public var message: String?

    public init() {}

    /// White balance mode as shown.
    public enum WhiteBalance: Sendable, Equatable {
        case auto
        case preset(String)
        case kelvin(Int)
    }

    /// One bracket sequence underway.
    public struct BracketProgress: Sendable, Equatable {
        public var index: Int
        public var count: Int
        public var evOffset: Double
        public init(index: Int, count: Int, evOffset: Double) {
            self.index = index; self.count = count; self.evOffset = evOffset
        }
    }

    /// Electronic stabilization's state.
    public struct StabilizationState: Sendable, Equatable {
        /// "ON", "LOCKED", "LOST".
        public var mode: String
        /// Correction currently applied, degrees (roll), for the horizon marker.
        public var rollDegrees: Double
        /// Fraction of the crop margin in use, 0...1.
        public var marginUsed: Double
        public init(mode: String, rollDegrees: Double, marginUsed: Double) {
            self.mode = mode; self.rollDegrees = rollDegrees; self.marginUsed = marginUsed
        }
    }
}

/// Which overlays are drawn; each can be switched from the console.
public struct OverlayOptions: Sendable, Equatable {
    public var status = true
    public var histogram = true
    /// Diagonal stripes over pixels whose luma is at or above `zebraThreshold`.
    public var zebra = false
    /// Luma (0...255) at which zebra stripes start: 250 marks clipped highlights.
    public var zebraThreshold = 250
    /// Colours pixels whose local luma gradient exceeds `peakingThreshold`.
    public var focusPeaking = false
    /// Sum of absolute horizontal and vertical luma differences (0...510) that counts as an edge.
    public var peakingThreshold = 60
    public init() {}
}
