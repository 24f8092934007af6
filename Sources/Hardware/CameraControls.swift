/// The value of one libcamera control or metadata item.
///
/// Controls are keyed by libcamera's control *name* ("ExposureTime", "ColourGains"), looked up at
/// run time in the camera's own `ControlInfoMap`, so the same code works with libcamera 0.0.3 and
/// newer releases. Units are libcamera's: ExposureTime in microseconds, LensPosition in dioptres,
/// FrameDurationLimits in microseconds, SensorTimestamp in nanoseconds of CLOCK_MONOTONIC.
public enum ControlValue: Hashable, Sendable, CustomStringConvertible {
    case bool(Bool)
    case int32(Int32)
    case int64(Int64)
    case float(Float)
    case int32Array([Int32])
    case int64Array([Int64])
    case floatArray([Float])
    case rectangle(PixelRect)
    case size(PixelSize)
    case string(String)

    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }

    /// Any scalar integer or float, as a Double.
    public var doubleValue: Double? {
        switch self {
        case .int32(let v): Double(v)
        case .int64(let v): Double(v)
        case .float(let v): Double(v)
        case .bool(let v): v ? 1 : 0
        default: nil
        }
    }

    public var int64Value: Int64? {
        switch self {
        case .int32(let v): Int64(v)
        case .int64(let v): v
        default: nil
        }
    }

    /// Array values as doubles (ColourGains, FrameDurationLimits, …).
    public var doubleArray: [Double]? {
        switch self {
        case .floatArray(let a): a.map(Double.init)
        case .int32Array(let a): a.map(Double.init)
        case .int64Array(let a): a.map(Double.init)
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .bool(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .float(let v): "\(v)"
        case .int32Array(let a): "\(a)"
        case .int64Array(let a): "\(a)"
        case .floatArray(let a): "\(a)"
        case .rectangle(let r): "\(r)"
        case .size(let s): "\(s)"
        case .string(let s): s
        }
    }
}

/// A set of controls (for a request) or metadata (of a completed request), keyed by control name.
public typealias ControlList = [String: ControlValue]

/// What a camera says about one control: its limits and default (libcamera's `ControlInfo`).
public struct ControlInfo: Hashable, Sendable {
    public var name: String
    public var minimum: ControlValue?
    public var maximum: ControlValue?
    public var defaultValue: ControlValue?
    public init(name: String, minimum: ControlValue?, maximum: ControlValue?, defaultValue: ControlValue?) {
        self.name = name; self.minimum = minimum; self.maximum = maximum; self.defaultValue = defaultValue
    }
}

/// The libcamera control names the firmware uses, written once.
public enum ControlName {
    public static let aeEnable = "AeEnable"                  // bool; since 0.5 it switches both modes below
    public static let aeLocked = "AeLocked"                  // bool (metadata); gone in libcamera 0.5
    public static let aeState = "AeState"                    // int32 (metadata): 0 idle, 1 searching, 2 converged; 0.5+
    public static let exposureTimeMode = "ExposureTimeMode"  // int32: 0 auto, 1 manual; 0.5+
    public static let analogueGainMode = "AnalogueGainMode"  // int32: 0 auto, 1 manual; 0.5+
    public static let exposureTime = "ExposureTime"          // int32, µs
    public static let analogueGain = "AnalogueGain"          // float, ×
    public static let digitalGain = "DigitalGain"            // float, ×
    public static let exposureValue = "ExposureValue"        // float, EV
    public static let awbEnable = "AwbEnable"
    public static let awbLocked = "AwbLocked"
    public static let colourGains = "ColourGains"            // 2 floats: red, blue
    public static let colourTemperature = "ColourTemperature" // int32, K
    public static let afMode = "AfMode"                      // 0 manual, 1 auto, 2 continuous
    public static let afTrigger = "AfTrigger"                // 0 start, 1 cancel
    public static let afState = "AfState"                    // 0 idle, 1 scanning, 2 focused, 3 failed
    public static let lensPosition = "LensPosition"          // float, dioptres, 0 = infinity
    public static let scalerCrop = "ScalerCrop"              // rectangle
    public static let frameDurationLimits = "FrameDurationLimits" // 2 × int64 µs
    public static let frameDuration = "FrameDuration"        // int64 µs (metadata)
    public static let sensorTimestamp = "SensorTimestamp"    // int64 ns, CLOCK_MONOTONIC
    public static let lux = "Lux"                            // float (metadata)
    public static let hdrMode = "HdrMode"                    // int32; 0.2+ (absent in Debian's 0.0.3)
    public static let hdrChannel = "HdrChannel"              // int32 (metadata); 0.2+
    public static let frameWallClock = "FrameWallClock"      // int64 ns, CLOCK_REALTIME (metadata); 0.5+
    // Raspberry Pi's frame sync (vendor controls rpi::*, fork v0.4.0+rpt20250127 on; see FrameSync.swift).
    public static let syncMode = "SyncMode"                  // int32: 0 off, 1 server, 2 client
    public static let syncFrames = "SyncFrames"              // int32, server: frames until the ready time
    public static let syncReady = "SyncReady"                // bool (metadata): aligned from this frame on
    public static let syncTimer = "SyncTimer"                // int64 µs (metadata): until the ready time
}
