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
    /// ExposureTime the frame used, µs; nil when the camera does not report it (vimc, some USB
    /// cameras): such a frame's exposure is unknown, never assumed.
    public var exposureDurationMicroseconds: Int?
    /// AnalogueGain the frame used (×); nil when not reported.
    public var analogueGain: Double?
    public var digitalGain: Double
    /// ISO by the sensor's convention (isoPerGain × analogue gain; Raspberry Pi: 100 × gain); nil
    /// when the gain is not reported.
    public var iso: Double?
    public var colourGains: WhiteBalanceGains?
    public var colourTemperatureKelvin: Double?
    /// Lens position, dioptres (0 = infinity); nil on fixed focus.
    public var lensPositionDioptres: Double?
    public var autofocusState: AutofocusState?
    public var frameDurationMicroseconds: Int64?
    public var lux: Double?
    /// What auto exposure says of this frame: from AeState (libcamera 0.5+) or AeLocked (before);
    /// nil when the camera reports neither.
    public var autoExposureState: AutoExposureState?
    /// The wall-clock time (CLOCK_REALTIME, ns since 1970) of the same instant as the sensor
    /// timestamp, from FrameWallClock (libcamera 0.5+); nil when the camera does not report it.
    public var wallClockNanoseconds: Int64?
    /// The HdrMode the frame was made with (metadata); nil when the camera does not report it.
    public var hdrMode: HdrModeValue?
    /// Which exposure of an HDR sequence the frame is (HdrChannel metadata); nil when not reported.
    public var hdrChannel: HdrChannelValue?
    /// True when the sensor's own HDR mode made the frame (the camera was opened with it on).
    public var sensorHDR = false
    /// SyncReady (frame sync, Raspberry Pi's fork): the frame is aligned with the server's; nil
    /// when the camera does not report it (sync off, or no such control).
    public var syncReady: Bool?
    /// SyncTimer: µs until the sync ready time (negative after it); nil when not reported (a
    /// client that has not heard the server yet).
    public var syncTimerMicroseconds: Int64?

    /// ExposureTime (µs) and AnalogueGain together, when the frame reports both.
    public var exposure: (durationMicroseconds: Int, gain: Double)? {
        guard let d = exposureDurationMicroseconds, let g = analogueGain else { return nil }
        return (d, g)
    }

    /// Decodes completed-request metadata; what the metadata lacks stays nil.
    public init(_ completed: CompletedRequest, isoPerGain: Double) {
        let m = completed.metadata
        let exposure = m[ControlName.exposureTime]?.int64Value
        let gain = m[ControlName.analogueGain]?.doubleValue
        sequence = completed.sequence
        sensorTimestamp = m[ControlName.sensorTimestamp]?.int64Value.map { MonotonicTime(nanoseconds: $0) }
            ?? completed.sensorTimestamp
        exposureDurationMicroseconds = exposure.map { Int($0) }
        analogueGain = gain
        digitalGain = m[ControlName.digitalGain]?.doubleValue ?? 1
        iso = gain.map { $0 * isoPerGain }
        if let g = m[ControlName.colourGains]?.doubleArray, g.count == 2 { colourGains = WhiteBalanceGains(red: g[0], blue: g[1]) }
        colourTemperatureKelvin = m[ControlName.colourTemperature]?.doubleValue
        lensPositionDioptres = m[ControlName.lensPosition]?.doubleValue
        autofocusState = AutofocusState(control: m[ControlName.afState])
        frameDurationMicroseconds = m[ControlName.frameDuration]?.int64Value
        lux = m[ControlName.lux]?.doubleValue
        autoExposureState = AutoExposureState(metadata: m)
        wallClockNanoseconds = m[ControlName.frameWallClock]?.int64Value
        hdrMode = HdrModeValue(metadata: m)
        hdrChannel = HdrChannelValue(metadata: m)
        syncReady = m[ControlName.syncReady]?.boolValue
        syncTimerMicroseconds = m[ControlName.syncTimer]?.int64Value
    }
}

/// Auto exposure's state for one frame, as the camera reports it.
public enum AutoExposureState: String, Hashable, Sendable {
    /// AE is not running (exposure and gain both manual): AeState Idle.
    case idle
    /// AE is still changing exposure: AeState Searching, or AeLocked false.
    case searching
    /// AE has settled: AeState Converged, or AeLocked true.
    case converged

    /// From AeState where the camera reports it, else from AeLocked (libcamera before 0.5).
    init?(metadata: ControlList) {
        if let state = metadata[ControlName.aeState]?.int64Value {
            switch state {
            case 0: self = .idle
            case 1: self = .searching
            case 2, 3: self = .converged  // 3: 0.0.3's draft AeStateLocked
            default: return nil
            }
        } else if let locked = metadata[ControlName.aeLocked]?.boolValue {
            self = locked ? .converged : .searching
        } else {
            return nil
        }
    }
}
