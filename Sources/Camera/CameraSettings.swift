import Hardware

/// Focus modes (AVFoundation's locked / autoFocus / continuousAutoFocus on libcamera's AfMode).
public enum FocusMode: Hashable, Sendable {
    /// Manual lens position, dioptres (0 = infinity; AfMode Manual + LensPosition).
    case locked(lensPositionDioptres: Double)
    /// One scan each time `triggerAutofocus()` is called (AfMode Auto + AfTrigger Start).
    case auto
    /// The camera keeps the subject in focus (AfMode Continuous).
    case continuous
}

/// Exposure modes.
public enum ExposureMode: Hashable, Sendable {
    /// AE runs; the exposure bias applies (AeEnable true).
    case auto
    /// Holds the exposure time and gain of the latest frame; the bias still applies (AeEnable false).
    case locked
    /// A given duration and ISO, checked against the active format's ranges (AeEnable false).
    case custom(durationMicroseconds: Int, iso: Double)
}

/// White-balance modes.
public enum WhiteBalanceMode: Hashable, Sendable {
    /// AWB runs (AwbEnable true).
    case auto
    /// Holds the gains of the latest frame.
    case locked
    /// Given red/blue gains, checked against the camera's ColourGains range.
    case lockedGains(WhiteBalanceGains)
}

/// libcamera's AfState.
public enum AutofocusState: String, Hashable, Sendable, Codable {
    case idle, scanning, focused, failed

    init?(control: ControlValue?) {
        switch control?.int64Value {
        case 0: self = .idle
        case 1: self = .scanning
        case 2: self = .focused
        case 3: self = .failed
        default: return nil
        }
    }
}

/// What one completed frame reports: the values the sensor actually used (its metadata), in units.
public struct FrameState: Hashable, Sendable {
    public var sequence: UInt64
    public var sensorTimestamp: MonotonicTime
    public var exposureDurationMicroseconds: Int
    public var analogueGain: Double
    public var digitalGain: Double
    /// ISO by the sensor's convention (isoPerGain × analogue gain; Raspberry Pi: 100 × gain).
    public var iso: Double
    public var colourGains: WhiteBalanceGains?
    public var colourTemperatureKelvin: Double?
    /// Lens position, dioptres (0 = infinity); nil on fixed focus.
    public var lensPositionDioptres: Double?
    public var autofocusState: AutofocusState?
    public var frameDurationMicroseconds: Int64?
    public var lux: Double?

    /// Decodes completed-request metadata; nil when ExposureTime or AnalogueGain is missing.
    public init?(_ completed: CompletedRequest, isoPerGain: Double) {
        let m = completed.metadata
        guard let exposure = m[ControlName.exposureTime]?.int64Value,
              let gain = m[ControlName.analogueGain]?.doubleValue else { return nil }
        sequence = completed.sequence
        sensorTimestamp = m[ControlName.sensorTimestamp]?.int64Value.map { MonotonicTime(nanoseconds: $0) }
            ?? completed.sensorTimestamp
        exposureDurationMicroseconds = Int(exposure)
        analogueGain = gain
        digitalGain = m[ControlName.digitalGain]?.doubleValue ?? 1
        iso = gain * isoPerGain
        if let g = m[ControlName.colourGains]?.doubleArray, g.count == 2 { colourGains = WhiteBalanceGains(red: g[0], blue: g[1]) }
        colourTemperatureKelvin = m[ControlName.colourTemperature]?.doubleValue
        lensPositionDioptres = m[ControlName.lensPosition]?.doubleValue
        autofocusState = AutofocusState(control: m[ControlName.afState])
        frameDurationMicroseconds = m[ControlName.frameDuration]?.int64Value
        lux = m[ControlName.lux]?.doubleValue
    }
}
