/// libcamera's `HdrMode` values (control id HdrMode, Raspberry Pi's libcamera 0.2+), by their names.
/// Which ones a camera really does depends on its tuning: the Pi 4's IMX708 tuning does only
/// MultiExposureUnmerged, the Pi 5 all of them. A frame's metadata says which one it was made with.
public enum HdrModeValue: Int32, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case off = 0
    /// Short and long exposures delivered as separate frames (HdrChannel says which), not merged.
    case multiExposureUnmerged = 1
    /// Short and long exposures merged into one frame.
    case multiExposure = 2
    /// One exposure, tone-mapped with extra digital gain in the shadows.
    case singleExposure = 3
    /// Several frames averaged for low light.
    case night = 4

    /// libcamera's name of the value ("MultiExposure").
    public var description: String {
        switch self {
        case .off: "Off"
        case .multiExposureUnmerged: "MultiExposureUnmerged"
        case .multiExposure: "MultiExposure"
        case .singleExposure: "SingleExposure"
        case .night: "Night"
        }
    }

    /// The values that make a continuous video: merged frames at the stream's rate, best first.
    /// Unmerged frames alternate exposures and Night averages frames, so neither serves video.
    public static let forVideo: [HdrModeValue] = [.multiExposure, .singleExposure]
}

/// libcamera's `HdrChannel` metadata: which exposure of an HDR sequence a frame is.
public enum HdrChannelValue: Int32, Sendable, Codable, CustomStringConvertible {
    case none = 0, short = 1, medium = 2, long = 3

    public var description: String {
        switch self {
        case .none: "None"
        case .short: "Short"
        case .medium: "Medium"
        case .long: "Long"
        }
    }
}

/// A camera manager that can switch a sensor's own HDR: the IMX708's V4L2 control
/// `wide_dynamic_range` (V4L2_CID_WIDE_DYNAMIC_RANGE) on the sensor's subdevice, as rpicam-apps
/// and picamera2 set it. With it on the sensor has one mode, its HDR mode (2304×1296, about 30 fps
/// on the IMX708). It cannot change while the camera is open: release the camera, switch, then open
/// it again (libcamera reads the sensor's modes when it starts).
public protocol SensorHDRSwitch: AnyObject {
    /// True when camera `cameraID`'s sensor has the control.
    func hasSensorHDR(cameraID: String) -> Bool
    /// The control's value for the next open of `cameraID`.
    func isSensorHDROn(cameraID: String) -> Bool
    /// Sets the control; the camera must be released. Throws `.unsupported` when the sensor lacks it.
    func setSensorHDR(_ on: Bool, cameraID: String) throws
}

extension HdrModeValue {
    /// The HdrMode a control list carries (a frame's metadata, a request's controls); nil when none (or
    /// a value unknown here).
    public init?(metadata: ControlList) {
        guard let raw = metadata[ControlName.hdrMode]?.int64Value else { return nil }
        self.init(rawValue: Int32(clamping: raw))
    }
}

extension HdrChannelValue {
    /// The HdrChannel a frame's metadata reports; nil when it reports none.
    public init?(metadata: ControlList) {
        guard let raw = metadata[ControlName.hdrChannel]?.int64Value else { return nil }
        self.init(rawValue: Int32(clamping: raw))
    }
}

/// A frame's video HDR as status and sidecars name it: "sensor" (the sensor's own HDR mode made
/// it), the HdrMode's name, with the channel when the frame is one exposure of an unmerged
/// sequence ("MultiExposureUnmerged/Short"), or "off".
public func videoHDRLabel(mode: HdrModeValue?, channel: HdrChannelValue?, sensorHDR: Bool) -> String {
    if sensorHDR { return "sensor" }
    guard let mode, mode != .off else { return "off" }
    if let channel, channel != .none { return "\(mode)/\(channel)" }
    return mode.description
}

/// `videoHDRLabel` of a frame's metadata.
public func videoHDRLabel(metadata: ControlList, sensorHDR: Bool) -> String {
    videoHDRLabel(mode: HdrModeValue(metadata: metadata), channel: HdrChannelValue(metadata: metadata), sensorHDR: sensorHDR)
}
