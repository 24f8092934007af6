import Foundation
import Hardware

/// Who took the picture: EXIF/DNG Make, Model, UniqueCameraModel, and the lens.
public struct CameraIdentity: Hashable, Sendable, Codable {
    /// EXIF Make, e.g. "Raspberry Pi".
    public var make: String
    /// EXIF Model, e.g. "Camera Module 3 (imx708)".
    public var model: String
    /// DNG UniqueCameraModel: stable per sensor + lens, e.g. "Raspberry Pi imx708".
    public var uniqueCameraModel: String
    /// EXIF FocalLength in millimetres, when known.
    public var focalLengthMillimetres: Double?
    /// EXIF FNumber, when known.
    public var fNumber: Double?
    /// EXIF BodySerialNumber (DNG CameraSerialNumber): the board's or sensor's serial and the
    /// camera's index, unique to the rig and the same across restarts; nil when unknown.
    public var serialNumber: String?
    /// The pixel array's size in the focal plane, millimetres (pixel pitch × pixels), when the
    /// sensor database gives the pitch: EXIF FocalPlaneX/YResolution and FocalLengthIn35mmFormat.
    public var sensorWidthMillimetres: Double?
    public var sensorHeightMillimetres: Double?
    /// The sensor's pixel pitch, micrometres, when the sensor database gives it: a picture's focal
    /// plane from the area of the array it shows (`CaptureExif.imagedArea`).
    public var pixelPitchMicrometres: Double?

    /// An identity from its parts; lens values nil when unknown.
    public init(make: String, model: String, uniqueCameraModel: String,
                focalLengthMillimetres: Double? = nil, fNumber: Double? = nil) {
        self.make = make; self.model = model; self.uniqueCameraModel = uniqueCameraModel
        self.focalLengthMillimetres = focalLengthMillimetres; self.fNumber = fNumber
    }

    /// From a sensor database entry: model "Product (sensor)", lens from its stock lens. A camera
    /// without an entry (`sensor.assumed`) is not labelled with a maker it may not have: make
    /// "unknown", model "<libcamera model> (no sensor database entry)".
    public init(sensor: SensorDescription, make: String = "Raspberry Pi") {
        if sensor.assumed == true {
            self.init(make: "unknown", model: "\(sensor.model) (no sensor database entry)", uniqueCameraModel: "unknown \(sensor.model)")
            return
        }
        self.init(make: make, model: "\(sensor.product) (\(sensor.model))",
                  uniqueCameraModel: "\(make) \(sensor.model)",
                  focalLengthMillimetres: sensor.lens?.focalLengthMillimetres, fNumber: sensor.lens?.fNumber)
        if let pitch = sensor.pixelSizeMicrometres, pitch > 0 {
            sensorWidthMillimetres = Double(sensor.pixelArray.width) * pitch / 1000
            sensorHeightMillimetres = Double(sensor.pixelArray.height) * pitch / 1000
            pixelPitchMicrometres = pitch
        }
    }
}

/// Red and blue white-balance gains (libcamera `ColourGains`), green = 1.
public struct ColourGains: Hashable, Sendable, Codable {
    /// Red gain (×).
    public var red: Double
    /// Blue gain (×).
    public var blue: Double
    /// Gains from red and blue (×).
    public init(red: Double, blue: Double) { self.red = red; self.blue = blue }
}

/// The settings of one frame: what a bracket step asked for, or what the sensor actually used.
public struct FrameSettings: Hashable, Sendable, Codable {
    /// Exposure time in microseconds (libcamera `ExposureTime`).
    public var exposureTimeMicroseconds: Int
    /// Analogue gain (×).
    public var analogueGain: Double
    /// ISO = isoPerGain × analogue gain (Raspberry Pi convention: 100 per unit gain).
    public var iso: Int
    /// Exposure-value bias for auto-exposure brackets, EV; nil for manual steps.
    public var evBiasEV: Double?
    /// White-balance gains (libcamera `ColourGains`).
    public var colourGains: ColourGains?
    /// Lens position in dioptres (0 = infinity); nil for fixed-focus lenses.
    public var lensPositionDioptres: Double?

    /// Settings from their parts; `iso` is computed as isoPerGain × analogueGain.
    public init(exposureTimeMicroseconds: Int, analogueGain: Double, isoPerGain: Double = 100,
                evBiasEV: Double? = nil, colourGains: ColourGains? = nil, lensPositionDioptres: Double? = nil) {
        self.exposureTimeMicroseconds = exposureTimeMicroseconds; self.analogueGain = analogueGain
        self.iso = Int((analogueGain * isoPerGain).rounded())
        self.evBiasEV = evBiasEV; self.colourGains = colourGains; self.lensPositionDioptres = lensPositionDioptres
    }

    /// The settings a completed request reports in its metadata (ExposureTime, AnalogueGain,
    /// ExposureValue, ColourGains, LensPosition). Throws when ExposureTime or AnalogueGain is missing.
    /// (`reported(in:)` returns nil instead.)
    public init(metadata: ControlList, isoPerGain: Double = 100) throws {
        guard let exposure = metadata[ControlName.exposureTime]?.int64Value,
              let gain = metadata[ControlName.analogueGain]?.doubleValue else {
            throw MediaError(.invalidFrame, "frame metadata lacks ExposureTime or AnalogueGain")
        }
        let gains = metadata[ControlName.colourGains]?.doubleArray
        self.init(exposureTimeMicroseconds: Int(exposure), analogueGain: gain, isoPerGain: isoPerGain,
                  evBiasEV: metadata[ControlName.exposureValue]?.doubleValue,
                  colourGains: gains.flatMap { $0.count == 2 ? ColourGains(red: $0[0], blue: $0[1]) : nil },
                  lensPositionDioptres: metadata[ControlName.lensPosition]?.doubleValue)
    }

    /// The settings in `metadata`, or nil when it lacks ExposureTime or AnalogueGain (a camera that
    /// reports no exposure, such as vimc).
    public static func reported(in metadata: ControlList, isoPerGain: Double = 100) -> FrameSettings? {
        try? FrameSettings(metadata: metadata, isoPerGain: isoPerGain)
    }

    /// The fields where `actual` differs from these requested settings beyond the tolerances
    /// (relative for exposure and gain, absolute dioptres for the lens). Fields not requested are
    /// skipped: nil gains or lens, and exposure or gain 0, which means "left to auto-exposure".
    public func mismatches(actual: FrameSettings, relativeTolerance: Double = 0.02,
                           lensToleranceDioptres: Double = 0.05) -> [String] {
        var result: [String] = []
        func differs(_ a: Double, _ b: Double) -> Bool { abs(a - b) > relativeTolerance * max(abs(a), abs(b), 1e-9) }
        if exposureTimeMicroseconds > 0, differs(Double(exposureTimeMicroseconds), Double(actual.exposureTimeMicroseconds)) {
            result.append("exposureTimeMicroseconds")
        }
        if analogueGain > 0, differs(analogueGain, actual.analogueGain) { result.append("analogueGain") }
        if let r = colourGains, let a = actual.colourGains, differs(r.red, a.red) || differs(r.blue, a.blue) {
            result.append("colourGains")
        }
        if let r = lensPositionDioptres, let a = actual.lensPositionDioptres, abs(r - a) > lensToleranceDioptres {
            result.append("lensPositionDioptres")
        }
        return result
    }
}

/// A DNG colour calibration: ColorMatrix1 (XYZ → camera, row-major 3×3) under one illuminant.
public struct ColourCalibration: Hashable, Sendable, Codable {
    /// 9 values, row-major, XYZ → camera native.
    public var colorMatrix1: [Double]
    /// EXIF LightSource code of CalibrationIlluminant1 (21 = D65, 17 = standard light A).
    public var calibrationIlluminant1: Int
    /// True for the generic matrix below (no sensor calibration known).
    public var isGeneric: Bool

    /// A calibration from a 9-value matrix and its EXIF illuminant code.
    public init(colorMatrix1: [Double], calibrationIlluminant1: Int, isGeneric: Bool = false) {
        self.colorMatrix1 = colorMatrix1; self.calibrationIlluminant1 = calibrationIlluminant1; self.isGeneric = isGeneric
    }

    /// The generic matrix used when the sensor has no calibration: it treats the camera's
    /// white-balanced RGB as linear sRGB, i.e. ColorMatrix1 = the XYZ(D65) → linear sRGB matrix of
    /// IEC 61966-2-1, illuminant D65. Colours are plausible, not accurate.
    public static let genericSRGB = ColourCalibration(
        colorMatrix1: [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570],
        calibrationIlluminant1: 21, isGeneric: true)
}

/// What EXIF says about one picture, shared by the DNG and JPEG writers.
public struct CaptureExif: Hashable, Sendable {
    /// Make, model, lens.
    public var camera: CameraIdentity
    /// The settings the frame actually used; nil when the camera reports none (no ExposureTime,
    /// ISO or lens tags are written then, and the description says so).
    public var settings: FrameSettings?
    /// Wall-clock time of the exposure (DateTimeOriginal, written in `timeZone`).
    public var captureDate: Date
    /// The zone dates are written in (EXIF dates carry no zone).
    public var timeZone: TimeZone
    /// Image size in pixels.
    public var size: PixelSize
    /// The frame's stabilization status, written into UserComment (DNG and JPEG) and the JPEG's ImageDescription.
    public var stabilization: StabilizationRecord?
    /// The area of the pixel array the picture shows (pixel-array coordinates, before binning): a
    /// processed picture's ScalerCrop, a raw one's sensor mode. nil: the whole array.
    public var imagedArea: PixelRect?

    /// EXIF values from their parts.
    public init(camera: CameraIdentity, settings: FrameSettings?, captureDate: Date, timeZone: TimeZone, size: PixelSize) {
        self.camera = camera; self.settings = settings; self.captureDate = captureDate
        self.timeZone = timeZone; self.size = size
    }

    /// The focal plane the picture spans, millimetres: `imagedArea` times the pixel pitch, or the
    /// whole array; nil when the sensor's size is unknown (EXIF FocalPlaneX/YResolution).
    public var focalPlaneMillimetres: (width: Double, height: Double)? {
        if let area = imagedArea, let pitch = camera.pixelPitchMicrometres, area.width > 0, area.height > 0 {
            return (Double(area.width) * pitch / 1000, Double(area.height) * pitch / 1000)
        }
        guard let width = camera.sensorWidthMillimetres, let height = camera.sensorHeightMillimetres else { return nil }
        return (width, height)
    }

    /// The 35 mm film equivalent focal length of this picture (EXIF FocalLengthIn35mmFormat): the
    /// focal length times 43.27 mm (the 36 × 24 mm frame's diagonal) over the diagonal of the focal
    /// plane it spans, so a cropped mode or a zoom reads longer; nil when either is unknown.
    public var focalLengthIn35mmFormat: Int? {
        guard let focal = camera.focalLengthMillimetres, let plane = focalPlaneMillimetres, plane.width > 0, plane.height > 0 else { return nil }
        return Int((focal * (36.0 * 36.0 + 24.0 * 24.0).squareRoot() / (plane.width * plane.width + plane.height * plane.height).squareRoot()).rounded())
    }

    /// "YYYY:MM:DD HH:MM:SS", EXIF's date format.
    public var exifDateString: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: captureDate)
        return String(format: "%04d:%02d:%02d %02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0,
                      c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// Exposure time as an exact EXIF rational of seconds: µs / 1 000 000, reduced; nil when unknown.
    public var exposureTimeRational: (numerator: UInt32, denominator: UInt32)? {
        settings.map { reducedRational(UInt64(max($0.exposureTimeMicroseconds, 0)), 1_000_000) }
    }

    /// EXIF ISOSpeedRatings; nil when unknown.
    public var isoSpeed: UInt16? { settings.map { UInt16(clamping: $0.iso) } }

    /// EXIF SubjectDistance in metres from the lens position: 1 / dioptres; 0 dioptres is
    /// infinity (EXIF: numerator 0xFFFFFFFF). Nil when no lens position is known.
    public var subjectDistanceRational: (numerator: UInt32, denominator: UInt32)? {
        guard let d = settings?.lensPositionDioptres, d >= 0 else { return nil }
        if d == 0 { return (0xFFFF_FFFF, 1) }
        return reducedRational(UInt64((1000 / d).rounded()), 1000)
    }

    /// Human-readable description carrying the lens position in dioptres and the stabilization
    /// status (ImageDescription, and UserComment): "Tripod capture; LensPosition 2.000 dioptres
    /// (0.500 m); Stabilization Active, blur 0.8 px, attempt 1".
    public var imageDescription: String {
        var text = "Tripod capture"
        if settings == nil { text += "; exposure not reported by the camera" }
        if let d = settings?.lensPositionDioptres {
            let distance = d == 0 ? "infinity" : String(format: "%.3f m", 1 / d)
            text += "; LensPosition " + String(format: "%.3f", d) + " dioptres (\(distance))"
        }
        if let s = stabilization {
            text += "; Stabilization " + s.status.rawValue
            if let blur = s.measuredBlurPixels { text += String(format: ", blur %.1f px", blur) }
            if let attempts = s.attempts { text += ", attempt \(attempts)" }
        }
        return text
    }
}

extension CaptureExif {
    /// EXIF UserComment: the 8-byte "ASCII" character-code prefix, then `imageDescription`.
    public var userComment: [UInt8] {
        Array("ASCII".utf8) + [0, 0, 0] + Array(imageDescription.utf8)
    }
}

/// n/d reduced by their gcd and scaled to fit 32 bits.
func reducedRational(_ n: UInt64, _ d: UInt64) -> (numerator: UInt32, denominator: UInt32) {
    var a = n, b = d
    while b != 0 { (a, b) = (b, a % b) }
    var num = a == 0 ? n : n / a, den = a == 0 ? d : d / a
    while num > UInt64(UInt32.max) || den > UInt64(UInt32.max) { num /= 2; den = max(den / 2, 1) }
    return (UInt32(num), UInt32(den))
}

/// A positive real as an EXIF rational with the given denominator (f-number, focal length).
func rational(_ value: Double, denominator: UInt32 = 100) -> (numerator: UInt32, denominator: UInt32) {
    reducedRational(UInt64(max(value, 0) * Double(denominator) + 0.5), UInt64(denominator))
}
