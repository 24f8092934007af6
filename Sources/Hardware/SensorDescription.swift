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
    /// Lens position libcamera starts at, dioptres (the tuning file's default); nil for fixed focus.
    public var lensPositionDefaultDioptres: Double?
    /// Where a value is unverified or estimated, a note says so (free text, one fact per line).
    public var notes: [String]?
    /// True for `SensorDescription.unknown(...)`: assumed from what libcamera reports, with no
    /// database entry behind it (who made the camera is not known). Absent in database files.
    public var assumed: Bool? = nil
    /// The smallest lens move the focus driver resolves, dioptres (one VCM unit); nil when not known.
    /// A focus bracket refuses steps finer than this.
    public var lensPositionResolutionDioptres: Double? = nil

    public struct Lens: Hashable, Sendable, Codable {
        public var focalLengthMillimetres: Double
        public var fNumber: Double
        public var interchangeable: Bool?
    }

    public struct Mode: Hashable, Sendable, Codable {
        public var width: Int
        public var height: Int
        public var bitDepth: Int
        /// "full", "binned" (2×2) or "cropped"; "unknown" for the one mode assumed for a sensor
        /// without a database entry (its pipeline scales to any size).
        public var readout: String
        /// The area of the pixel array this mode reads, before binning.
        public var crop: PixelRect
        public var maximumFps: Double
        /// True when this is the sensor's HDR mode.
        public var hdr: Bool?
        /// Time to read the whole frame out, ms (rolling shutter skew).
        public var readoutMilliseconds: Double?
        /// Pixels summed per output pixel along each axis (2 for 2×2 binning); nil or 1 when not binned.
        public var binningFactor: Int?

        public var size: PixelSize { PixelSize(width: width, height: height) }

        /// A mode; `crop` is in pixel-array coordinates before binning.
        public init(width: Int, height: Int, bitDepth: Int, readout: String, crop: PixelRect, maximumFps: Double,
                    hdr: Bool? = nil, readoutMilliseconds: Double? = nil, binningFactor: Int? = nil) {
            self.width = width; self.height = height; self.bitDepth = bitDepth; self.readout = readout
            self.crop = crop; self.maximumFps = maximumFps; self.hdr = hdr
            self.readoutMilliseconds = readoutMilliseconds; self.binningFactor = binningFactor
        }
    }

    /// Red and blue gains that make a grey at `temperatureKelvin` neutral.
    public struct ColourPoint: Hashable, Sendable, Codable {
        public var temperatureKelvin: Double
        public var redGain: Double
        public var blueGain: Double

        /// A white point: the gains that neutralise grey under light of `temperatureKelvin`.
        public init(temperatureKelvin: Double, redGain: Double, blueGain: Double) {
            self.temperatureKelvin = temperatureKelvin; self.redGain = redGain; self.blueGain = blueGain
        }
    }
}

extension SensorDescription {
    /// A sensor without a database entry: only what libcamera reports (model, pixel array, the
    /// ExposureTime and AnalogueGain limits, LensPosition if present); everything else is nil or
    /// "unknown". Delays default to 2 frames and ISO to 100 × gain, and a note says so.
    public static func unknown(info: CameraInfo, controlInfo: [String: ControlInfo]) -> SensorDescription {
        let gain = controlInfo[ControlName.analogueGain]
        let exposure = controlInfo[ControlName.exposureTime]
        let lens = controlInfo[ControlName.lensPosition]
        // The fastest rate the camera allows: 1 / FrameDurationLimits minimum (µs); 30 fps if unknown.
        let shortestFrame = controlInfo[ControlName.frameDurationLimits]?.minimum?.doubleValue ?? 0
        let full = Mode(width: info.pixelArraySize.width, height: info.pixelArraySize.height, bitDepth: 0,
                        readout: "unknown",
                        crop: PixelRect(x: 0, y: 0, width: info.pixelArraySize.width, height: info.pixelArraySize.height),
                        maximumFps: shortestFrame > 0 ? 1e6 / shortestFrame : 30, hdr: nil, readoutMilliseconds: nil,
                        binningFactor: nil)
        return SensorDescription(
            model: info.model, product: "unknown", pixelArray: info.pixelArraySize,
            pixelSizeMicrometres: info.unitCellSizeNanometres.map { Double($0.width) / 1000 },
            bayerOrder: nil, bitDepth: 0, blackLevel16: nil,
            analogueGainMinimum: gain?.minimum?.doubleValue ?? 1,
            analogueGainMaximum: gain?.maximum?.doubleValue ?? 1,
            isoPerGain: 100,
            exposureMinimumMicroseconds: Int(exposure?.minimum?.doubleValue ?? 0),
            exposureMaximumMicroseconds: Int(exposure?.maximum?.doubleValue ?? 0),
            exposureDelayFrames: 2, gainDelayFrames: 2, vblankDelayFrames: nil, lens: nil,
            afSystem: lens == nil ? "none" : "unknown",
            lensPositionMaximumDioptres: lens?.maximum?.doubleValue, hdr: false, modes: [full],
            colourCalibration: nil, lensPositionDefaultDioptres: lens?.defaultValue?.doubleValue,
            notes: ["unknown sensor '\(info.model)': no database entry; gain, exposure and lens limits are "
                    + "libcamera's, control delays (2 frames) and ISO = 100 x gain are assumed, one full-array "
                    + "mode at 1/FrameDurationLimits-min fps is assumed, bit depth, lens and colour calibration are unknown"],
            assumed: true)
    }
}
