/// One entry of the sensor database, `board/sensors/<model>.json`: what the sensor and its stock
/// lens can do. Values libcamera does not report live come from here; a sensor without an entry
/// gets `SensorDescription.unknown(...)` with the unknown fields nil.
public struct SensorDescription: Hashable, Sendable, Codable {
    /// libcamera model name, lower case ("imx708").
    public var model: String
    /// Product name ("Camera Module 3").
    public var product: String
    public var pixelArray: PixelSize
    /// Pixel pitch in micrometres.
    public var pixelSizeMicrometres: Double?
    /// CFA order of the native readout ("RGGB", "BGGR", …); nil for monochrome.
    public var bayerOrder: String?
    /// Native ADC bit depth.
    public var bitDepth: Int
    /// Black level on a 16-bit scale (libcamera convention), white level likewise.
    public var blackLevel16: Int?
    public var analogueGainMinimum: Double
    public var analogueGainMaximum: Double
    /// ISO per unit analogue gain (Raspberry Pi convention: 100).
    public var isoPerGain: Double
    public var exposureMinimumMicroseconds: Int
    public var exposureMaximumMicroseconds: Int
    /// Frames between a request's exposure/gain and the frame it takes effect on.
    public var exposureDelayFrames: Int
    public var gainDelayFrames: Int
    public var vblankDelayFrames: Int?
    public var lens: Lens?
    /// "none", "contrast" or "phase".
    public var afSystem: String
    /// Nearest focus in dioptres the lens driver reaches (LensPosition max); nil for fixed focus.
    public var lensPositionMaximumDioptres: Double?
    /// True when the sensor has an on-chip HDR mode.
    public var hdr: Bool
    public var modes: [Mode]
    /// Colour calibration: white-point gains by colour temperature, from the tuning file.
    public var colourCalibration: [ColourPoint]?

    public struct Lens: Hashable, Sendable, Codable {
        public var focalLengthMillimetres: Double
        public var fNumber: Double
        public var interchangeable: Bool?
    }

    public struct Mode: Hashable, Sendable, Codable {
        public var width: Int
        public var height: Int
        public var bitDepth: Int
        /// "full", "binned" (2×2) or "cropped".
        public var readout: String
        /// The area of the pixel array this mode reads, before binning.
        public var crop: PixelRect
        public var maximumFps: Double
        /// True when this is the sensor's HDR mode.
        public var hdr: Bool?
        /// Time to read the whole frame out, ms (rolling shutter skew).
        public var readoutMilliseconds: Double?

        public var size: PixelSize { PixelSize(width: width, height: height) }
    }

    /// Red and blue gains that make a grey at `temperatureKelvin` neutral.
    public struct ColourPoint: Hashable, Sendable, Codable {
        public var temperatureKelvin: Double
        public var redGain: Double
        public var blueGain: Double
    }
}
