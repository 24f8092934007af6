import Foundation
import Hardware

/// Video stabilization modes a format can offer (AVFoundation's names).
///
/// Rule (shared with the stabilization issue): `off` always; `standard` and `auto` need at least
/// 10 % crop headroom at the output size (the sensor mode delivers ≥ 1.10 × the output width across
/// the output's aspect, so a 10 % stabilization crop needs no upscaling); `cinematic` needs a
/// 1080p-class output (1920×1080) that can run at 30 or 60 fps and at least 20 % headroom.
public enum StabilizationMode: String, Hashable, Sendable, Codable, CaseIterable {
    case off, standard, cinematic, auto

    /// Minimum crop headroom (fraction of the output width) for `standard`/`auto`.
    public static let standardHeadroom = 0.10
    /// Minimum crop headroom for `cinematic`.
    public static let cinematicHeadroom = 0.20

    /// The modes a format supports, by the rule above. `headroom` = upscale-start zoom − 1.
    public static func supported(output: PixelSize, maximumFps: Double, headroom: Double) -> [StabilizationMode] {
        var modes: [StabilizationMode] = [.off]
        let epsilon = 1e-9
        if headroom + epsilon >= standardHeadroom { modes += [.standard] }
        if headroom + epsilon >= cinematicHeadroom, output.width == 1920, output.height == 1080, maximumFps >= 29.97 {
            modes += [.cinematic]
        }
        if headroom + epsilon >= standardHeadroom { modes += [.auto] }
        return modes
    }
}

/// Video HDR availability of a format: the sensor's own HDR mode, libcamera's `HdrMode` values, both
/// or none (the format table's `hdr` column).
public struct VideoHDRSupport: Hashable, Sendable, Codable {
    /// The sensor's own HDR (`wide_dynamic_range`) covers this format: its sensor mode has the HDR
    /// mode's size, and the camera manager can switch it (`SensorHDRSwitch`). Switching restarts
    /// the camera.
    public var sensor: Bool
    /// The `HdrMode` values the camera lists, Off left out (empty without the control: libcamera 0.0.3).
    public var hdrModes: [HdrModeValue]

    public init(sensor: Bool = false, hdrModes: [HdrModeValue] = []) { self.sensor = sensor; self.hdrModes = hdrModes }

    public static let none = VideoHDRSupport()

    /// The HdrMode value used for video: the first of `HdrModeValue.forVideo` listed.
    public var videoHdrMode: HdrModeValue? { HdrModeValue.forVideo.first { hdrModes.contains($0) } }

    /// True when video HDR can be switched on for this format (HdrMode for video, or the sensor's).
    public var isSupported: Bool { videoHdrMode != nil || sensor }

    /// The way video HDR is done on this format: HdrMode when the camera has a value for video (no
    /// restart), else the sensor's mode.
    public var preferredKind: VideoHDRKind? { preferredKind(excluding: []) }

    /// `preferredKind` without the HdrMode values in `unusable` (values the camera turned out not
    /// to apply): the next value for video, else the sensor's mode unless `sensorUsable` is false
    /// (its switch failed).
    public func preferredKind(excluding unusable: Set<HdrModeValue>, sensorUsable: Bool = true) -> VideoHDRKind? {
        if let mode = HdrModeValue.forVideo.first(where: { hdrModes.contains($0) && !unusable.contains($0) }) { return .hdrMode(mode) }
        return sensor && sensorUsable ? .sensor : nil
    }

    private enum CodingKeys: String, CodingKey { case sensor, hdrModes }

    /// HdrMode values by name in JSON ("MultiExposure").
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sensor, forKey: .sensor)
        try container.encode(hdrModes.map(\.description), forKey: .hdrModes)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sensor = try container.decode(Bool.self, forKey: .sensor)
        let names = try container.decode([String].self, forKey: .hdrModes)
        hdrModes = try names.map { name in
            guard let value = HdrModeValue.allCases.first(where: { $0.description == name }) else {
                throw DecodingError.dataCorruptedError(forKey: .hdrModes, in: container, debugDescription: "unknown HdrMode \(name)")
            }
            return value
        }
    }

    /// The `hdr` column: "no", or the kinds ("sensor", the HdrMode values) joined by commas.
    public var label: String {
        let kinds = (sensor ? ["sensor"] : []) + hdrModes.map(\.description)
        return kinds.isEmpty ? "no" : kinds.joined(separator: ",")
    }
}

/// How video HDR is done while it is on.
public enum VideoHDRKind: Hashable, Sendable, CustomStringConvertible {
    /// The sensor's own HDR mode (`wide_dynamic_range`): the camera was reopened for it.
    case sensor
    /// libcamera's HdrMode on every request.
    case hdrMode(HdrModeValue)

    /// "sensor" or the HdrMode's name.
    public var description: String {
        switch self {
        case .sensor: "sensor"
        case .hdrMode(let mode): mode.description
        }
    }
}

/// One row of the format table: an output size from one sensor mode, with everything a person
/// choosing it needs (the counterpart of AVCaptureDevice.Format). Units in the names.
public struct CameraFormat: Hashable, Sendable, Codable {
    /// Position in the table, for `select 3`.
    public var index: Int
    /// Output (processed) size.
    public var size: PixelSize
    /// Processed pixel format.
    public var pixelFormat: PixelFormat
    /// Raw (Bayer) format of the sensor mode, when the sensor has one: the unpacked format
    /// Tripod asks for ("SRGGB10"), so a Pi 5 never picks its lossy compressed one.
    public var rawPixelFormat: PixelFormat?
    /// Bits per sample of the sensor mode, from `rawPixelFormat`'s name ("SRGGB10" → 10); nil
    /// without raw. The raw stream may deliver more (a Pi 5's 16-bit samples): the DNG is written
    /// at this depth (`BracketOutputs.rawBitDepth`).
    public var rawBitDepth: Int? {
        guard let name = rawPixelFormat?.rawValue, rawPixelFormat?.isBayer == true else { return nil }
        return Int(name.dropFirst(5))
    }
    /// The sensor mode this format reads (its output size before scaling).
    public var sensorModeSize: PixelSize
    /// The pixel-array area seen at this output's aspect ratio, before binning.
    public var sensorCrop: PixelRect
    /// The pixel-array area the sensor mode reads, before binning: what a raw frame shows.
    public var sensorModeCrop: PixelRect
    /// Frame rate range from FrameDurationLimits (min fps = 1 / longest frame).
    public var minimumFps: Double
    public var maximumFps: Double
    public var minimumFrameDurationMicroseconds: Int64
    public var maximumFrameDurationMicroseconds: Int64
    /// Field of view from the crop and the stock lens; nil when the lens is unknown.
    public var horizontalFieldOfViewDegrees: Double?
    public var verticalFieldOfViewDegrees: Double?
    public var isBinned: Bool
    /// Largest zoom the ScalerCrop limits allow; nil when the camera does not report them.
    public var maximumZoom: Double?
    /// Zoom at which the output starts to be upscaled (mode pixels across / output width).
    public var upscaleStartZoom: Double
    /// "none", "contrast", "phase" or "unknown".
    public var afSystem: String
    public var minimumISO: Double
    public var maximumISO: Double
    public var minimumExposureMicroseconds: Int
    public var maximumExposureMicroseconds: Int
    public var videoHDR: VideoHDRSupport
    public var stabilizationModes: [StabilizationMode]
    /// The largest still this format gives without interrupting it (like AVFoundation's
    /// `highResolutionStillImageDimensions`): its raw frame, the sensor mode, where the sensor has
    /// one (a DNG); else the processed stream's size. A binned mode's stills are binned too.
    public var highResolutionStill: PixelSize

    /// "1920x1080@56" style label (max fps rounded down to a whole number).
    public var label: String { "\(size)@\(Int(maximumFps.rounded(.down)))" }
}
