import Foundation
import Hardware

/// The settings every request of a `CameraController` carries, as set: focus, exposure, white
/// balance, zoom and video HDR. The controller's setters (CameraController+Controls.swift) check a
/// value against the camera and the format, then store it here; this value keeps what goes together
/// together (a lock and what it holds, a pending AF trigger and the focus mode it belongs to).
struct ControlSettings {
    /// Exposure held by `.locked`: the duration and gain of the frame it was locked on, and the bias then.
    struct LockedExposure: Equatable {
        var durationMicroseconds: Int
        var gain: Double
        var biasEV: Double
    }

    /// Current focus mode (`setFocus`).
    private(set) var focusMode: FocusMode
    /// Current exposure mode (`setExposure`).
    private(set) var exposureMode: ExposureMode = .auto
    /// Current exposure bias, EV (`setExposureBias`).
    var exposureBiasEV = 0.0
    /// Current white-balance mode (`setWhiteBalance`).
    private(set) var whiteBalanceMode: WhiteBalanceMode = .auto
    /// What `.locked` exposure holds; nil in the other modes.
    private(set) var lockedExposure: LockedExposure?
    /// The gains white balance holds (`.locked`, `.lockedGains`); nil while AWB runs.
    private(set) var lockedGains: WhiteBalanceGains?
    /// Digital zoom factor; 1 = the whole field.
    var zoomFactor = 1.0
    /// Video HDR's HdrMode (nil: Off).
    var hdrMode: HdrModeValue?
    /// True from `triggerAutofocus` until a request carries the AfTrigger.
    private var pendingAfTrigger = false

    init(focusMode: FocusMode) {
        self.focusMode = focusMode
    }

    /// A new focus mode; a trigger not yet sent is dropped.
    mutating func setFocus(_ mode: FocusMode) {
        focusMode = mode
        pendingAfTrigger = false
    }

    /// One autofocus scan, on the next request that takes it (`addFocus`).
    mutating func triggerAutofocus() {
        pendingAfTrigger = true
    }

    /// A new exposure mode; `.locked` holds `held` (duration µs, analogue gain) at the bias in force.
    mutating func setExposure(_ mode: ExposureMode, holding held: (durationMicroseconds: Int, gain: Double)? = nil) {
        lockedExposure = held.map { LockedExposure(durationMicroseconds: $0.durationMicroseconds, gain: $0.gain, biasEV: exposureBiasEV) }
        exposureMode = mode
    }

    /// A new white-balance mode holding `gains` (nil for `.auto`).
    mutating func setWhiteBalance(_ mode: WhiteBalanceMode, holding gains: WhiteBalanceGains?) {
        lockedGains = gains
        whiteBalanceMode = mode
    }

    /// The locked exposure scaled by the bias change since the lock: gain first (within the
    /// format's ISO range), the rest on the duration (within the format's range). nil unless locked.
    func heldExposure(format: CameraFormat, isoPerGain: Double) -> (durationMicroseconds: Int, gain: Double)? {
        guard let held = lockedExposure else { return nil }
        let factor = pow(2, exposureBiasEV - held.biasEV)
        guard factor != 1 else { return (held.durationMicroseconds, held.gain) }
        let gain = min(max(held.gain * factor, format.minimumISO / isoPerGain), format.maximumISO / isoPerGain)
        let remaining = factor * held.gain / gain
        let duration = min(max(Double(held.durationMicroseconds) * remaining, Double(format.minimumExposureMicroseconds)),
                           Double(format.maximumExposureMicroseconds))
        return (Int(duration.rounded()), gain)
    }

    /// Puts back the settings of `snapshot` (a change refused part-way, `CameraController.apply`),
    /// all but the HDR mode: video HDR is not part of such a change, and keeps what it set since.
    mutating func restore(_ snapshot: ControlSettings) {
        let hdrMode = self.hdrMode
        self = snapshot
        self.hdrMode = hdrMode
    }

    /// AwbEnable, and ColourGains while they are locked.
    func addWhiteBalance(to c: inout ControlList) {
        if let gains = lockedGains {
            c[ControlName.awbEnable] = .bool(false)
            c[ControlName.colourGains] = .floatArray([Float(gains.red), Float(gains.blue)])
        } else {
            c[ControlName.awbEnable] = .bool(true)
        }
    }

    /// AfMode, the locked LensPosition, and a pending AfTrigger (taken, so sent once, when
    /// `consumeTrigger` is true). Only for a camera with autofocus.
    mutating func addFocus(to c: inout ControlList, consumeTrigger: Bool) {
        switch focusMode {
        case .locked(let dioptres):
            c[ControlName.afMode] = .int32(0)
            c[ControlName.lensPosition] = .float(Float(dioptres))
        case .auto:
            c[ControlName.afMode] = .int32(1)
            if pendingAfTrigger {
                c[ControlName.afTrigger] = .int32(0)
                if consumeTrigger { pendingAfTrigger = false }
            }
        case .continuous:
            c[ControlName.afMode] = .int32(2)
        }
    }
}
