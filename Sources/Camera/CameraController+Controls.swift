import Foundation
import Hardware

extension CameraController {
    // MARK: Settings in force (`ControlSettings`)

    /// Current focus mode (set with `setFocus`).
    public var focusMode: FocusMode {
        settings.focusMode
    }

    /// Current exposure mode (set with `setExposure`).
    public var exposureMode: ExposureMode {
        settings.exposureMode
    }

    /// Current exposure bias, EV (set with `setExposureBias`).
    public var exposureBiasEV: Double {
        settings.exposureBiasEV
    }

    /// Current white-balance mode (set with `setWhiteBalance`).
    public var whiteBalanceMode: WhiteBalanceMode {
        settings.whiteBalanceMode
    }

    /// Digital zoom factor (set with `setZoom`, CameraController+Zoom.swift); 1 = the whole field.
    public var zoomFactor: Double {
        settings.zoomFactor
    }

    /// Video HDR's HdrMode, sent on every request where the camera lists HdrMode (Off when nil);
    /// set with `setHdrMode` (CameraController+HDR.swift).
    public var hdrMode: HdrModeValue? {
        settings.hdrMode
    }

    // MARK: Focus

    /// "none", "contrast", "phase" (or "unknown"); "none" when the camera has no AfMode control
    /// (`FormatTable.autofocusSystem`, the format table's rule too).
    public var afSystem: String {
        FormatTable.autofocusSystem(sensor: sensor, controlInfo: device.controlInfo)
    }

    /// Lens range, dioptres: 0 (infinity) … nearest focus (LensPosition's maximum).
    public var lensPositionRangeDioptres: ClosedRange<Double> {
        0...(device.controlInfo[ControlName.lensPosition]?.maximum?.doubleValue ?? sensor.lensPositionMaximumDioptres ?? 0)
    }

    /// True while a contrast-detect scan runs. Phase-detect AF never reports adjusting: watch
    /// `latest?.lensPositionDioptres` instead (as AVFoundation says of Focus Pixels).
    public var isAdjustingFocus: Bool {
        afSystem != "phase" && afSystem != "none" && latest?.autofocusState == .scanning
    }

    /// Sets the focus mode. Throws `.unsupported` on a fixed-focus camera and `.outOfRange` (stating
    /// the range) for a lens position outside it.
    public func setFocus(_ mode: FocusMode) throws {
        try requireAutofocus("set focus")
        if case .locked(let dioptres) = mode {
            let range = lensPositionRangeDioptres
            guard range.contains(dioptres) else {
                throw CameraError(.outOfRange, "focus: lens position \(dioptres) D is outside \(range.lowerBound)...\(range.upperBound) D (0 = infinity)")
            }
        }
        settings.setFocus(mode)
    }

    /// Locks the lens at a normalised position: 0 = nearest focus, 1 = infinity (AVFoundation's
    /// lensPosition convention). Dioptres = (1 − normalised) × maximum.
    public func setLensPosition(normalised: Double) throws {
        try requireAutofocus("set lens position")
        guard (0...1).contains(normalised) else {
            throw CameraError(.outOfRange, "focus: normalised lens position \(normalised) is outside 0...1 (0 = near, 1 = infinity)")
        }
        try setFocus(.locked(lensPositionDioptres: (1 - normalised) * lensPositionRangeDioptres.upperBound))
    }

    /// Normalised lens position of the latest frame (0 = near, 1 = infinity), when it has AF.
    public var lensPositionNormalised: Double? {
        guard let d = latest?.lensPositionDioptres, lensPositionRangeDioptres.upperBound > 0 else { return nil }
        return 1 - d / lensPositionRangeDioptres.upperBound
    }

    /// Starts one autofocus scan (focus mode `.auto` only).
    public func triggerAutofocus() throws {
        try requireAutofocus("trigger autofocus")
        guard focusMode == .auto else {
            throw CameraError(.notReady, "focus: trigger needs focus mode auto (now \(focusMode))")
        }
        settings.triggerAutofocus()
    }

    private func requireAutofocus(_ what: String) throws {
        guard afSystem != "none" else {
            throw CameraError(.unsupported, "focus: cannot \(what): \(sensor.model) (\(sensor.product)) is fixed focus (AF system none)")
        }
    }

    // MARK: Exposure

    /// True when the camera has ExposureTime and AnalogueGain controls (its ControlInfoMap). vimc
    /// and some USB cameras have neither: their exposure is their own, and frames report none.
    public var controlsExposure: Bool {
        device.controlInfo[ControlName.exposureTime] != nil && device.controlInfo[ControlName.analogueGain] != nil
    }

    func requireExposureControl(_ what: String) throws {
        guard controlsExposure else {
            throw CameraError(.unsupported, "exposure: cannot \(what): camera \(sensor.model) has no ExposureTime/AnalogueGain controls (its exposure is its own)")
        }
    }

    /// ExposureValue range from the camera, EV.
    public var exposureBiasRangeEV: ClosedRange<Double> {
        let info = device.controlInfo[ControlName.exposureValue]
        return (info?.minimum?.doubleValue ?? 0)...(info?.maximum?.doubleValue ?? 0)
    }

    /// Sets the exposure mode. `.custom` values outside the active format's ranges throw
    /// `.outOfRange` stating the range; nothing is clamped. `.locked` needs a frame to hold.
    public func setExposure(_ mode: ExposureMode) throws {
        let format = activeFormat.format
        if mode != .auto { try requireExposureControl(mode == .locked ? "lock the exposure" : "set a custom exposure") }
        switch mode {
        case .auto:
            settings.setExposure(mode)
        case .locked:
            guard let held = latest?.exposure else {
                throw CameraError(.notReady, latest == nil ? "exposure: lock needs a frame; start streaming first"
                                  : "exposure: lock needs a frame that reports its ExposureTime and AnalogueGain; the latest did not")
            }
            settings.setExposure(mode, holding: (held.durationMicroseconds, held.gain))
        case .custom(let duration, let iso):
            let durations = format.minimumExposureMicroseconds...format.maximumExposureMicroseconds
            guard durations.contains(duration) else {
                throw CameraError(.outOfRange, "exposure: duration \(duration) us is outside \(durations.lowerBound)...\(durations.upperBound) us for format \(format.index) (\(format.label))")
            }
            guard iso >= format.minimumISO - 1e-9, iso <= format.maximumISO + 1e-9 else {
                throw CameraError(.outOfRange, "exposure: ISO \(FormatTable.number(iso, digits: 1)) is outside \(FormatTable.number(format.minimumISO, digits: 1))...\(FormatTable.number(format.maximumISO, digits: 1)) for format \(format.index) (\(format.label))")
            }
            settings.setExposure(mode)
        }
    }

    /// Sets the exposure bias, EV, within the camera's ExposureValue range. In auto it moves AE's
    /// target; in locked it scales the held exposure (gain first, then duration); in custom it is
    /// stored and applies when the mode returns to auto or locked. A camera without ExposureValue
    /// takes only 0 (no bias).
    public func setExposureBias(ev: Double) throws {
        guard device.controlInfo[ControlName.exposureValue] != nil || ev == 0 else {
            throw CameraError(.unsupported, "exposure: cannot set a bias: camera \(sensor.model) has no ExposureValue control")
        }
        let range = exposureBiasRangeEV
        guard range.contains(ev) else {
            throw CameraError(.outOfRange, "exposure: bias \(ev) EV is outside \(range.lowerBound)...\(range.upperBound) EV")
        }
        settings.exposureBiasEV = ev
    }

    /// How far the metered exposure sits from the target (0.18 grey × 2^bias), EV: log2 of the
    /// latest processed frame's mean green level over the target. Positive = brighter than target.
    /// nil until a frame with a processed buffer has arrived. Saturates when the frame clips.
    /// A frame whose pixels are not drawn yet (the simulated camera draws each one when it is first
    /// read) is metered from its smaller drawing, as an ISP's statistics come from a smaller copy:
    /// `status`, which a fleet rig asks every second, then never draws the whole frame.
    public var exposureTargetOffsetEV: Double? {
        guard let frame = latestRequest?.buffers[processedRole] else { return nil }
        let buffer = frame.isRendered ? frame : frame.smaller ?? frame
        guard let mean = FrameAnalysis.channelMeans(buffer)?.green, mean > 0 else { return nil }
        return log2(mean / (0.18 * pow(2, exposureBiasEV)))
    }

    // MARK: White balance

    /// Largest gain ColourGains accepts.
    public var maximumWhiteBalanceGain: Double {
        device.controlInfo[ControlName.colourGains]?.maximum?.doubleValue ?? 0
    }

    /// Sets the white-balance mode. `.lockedGains` outside (0, maximum] throws `.outOfRange`;
    /// `.locked` needs a frame whose gains it holds.
    public func setWhiteBalance(_ mode: WhiteBalanceMode) throws {
        if mode != .auto, device.controlInfo[ControlName.colourGains] == nil {
            throw CameraError(.unsupported, "white balance: cannot lock the gains: camera \(sensor.model) has no ColourGains control")
        }
        switch mode {
        case .auto:
            settings.setWhiteBalance(mode, holding: nil)
        case .locked:
            guard let gains = latest?.colourGains else {
                throw CameraError(.notReady, "white balance: lock needs a frame; start streaming first")
            }
            settings.setWhiteBalance(mode, holding: gains)
        case .lockedGains(let gains):
            let top = maximumWhiteBalanceGain
            for (name, value) in [("red", gains.red), ("blue", gains.blue)] where !(value > 0 && value <= top) {
                throw CameraError(.outOfRange, "white balance: \(name) gain \(value) is outside (0, \(FormatTable.number(top, digits: 2))]")
            }
            settings.setWhiteBalance(mode, holding: gains)
        }
    }

    /// Locks white balance to the gains for a light of this temperature and tint.
    public func setWhiteBalance(_ light: TemperatureAndTint) throws {
        try setWhiteBalance(.lockedGains(whiteBalanceModel.gains(for: light)))
    }

    /// The temperature and tint of the latest frame's gains.
    public var temperatureAndTint: TemperatureAndTint? {
        latest?.colourGains.map { whiteBalanceModel.temperatureAndTint(for: $0) }
    }

    /// Gray-world lock: the gains that make the latest processed frame's mean neutral (current gains
    /// × G/R and × G/B, clipped pixels excluded), locked. Returns them. When the frame reports the
    /// ISP's ColourCorrectionMatrix, the means are taken back through it to white-balanced camera
    /// RGB first (colour correction mixes channels, so output means alone mislead).
    @discardableResult
    public func lockWhiteBalanceGrayWorld() throws -> WhiteBalanceGains {
        guard let request = latestRequest, let buffer = request.buffers[processedRole],
              let gains = latest?.colourGains, var means = FrameAnalysis.channelMeans(buffer, excludingClipped: true),
              means.red > 0, means.blue > 0 else {
            throw CameraError(.notReady, "white balance: gray-world needs a processed frame with colour gains")
        }
        if let ccm = request.metadata["ColourCorrectionMatrix"]?.doubleArray,
           let balanced = FrameAnalysis.solve3x3(ccm, [means.red, means.green, means.blue]),
           balanced.allSatisfy({ $0 > 0 }) {
            means = (balanced[0], balanced[1], balanced[2])
        }
        let neutral = WhiteBalanceGains(red: gains.red * means.green / means.red, blue: gains.blue * means.green / means.blue)
        try setWhiteBalance(.lockedGains(neutral))
        return neutral
    }

    // MARK: Controls

    /// Which of libcamera 0.5's exposure mode controls the camera lists now (its current
    /// ControlInfoMap, `CameraDevice.configuredControlInfo`), each decided on its own.
    var exposureModeControls: ExposureModeControls {
        let current = device.configuredControlInfo
        return ExposureModeControls(exposureTimeMode: current[ControlName.exposureTimeMode] != nil,
                                    analogueGainMode: current[ControlName.analogueGainMode] != nil)
    }

    /// The controls that hand exposure and gain to AE (`manual` false) or to the request's own
    /// ExposureTime/AnalogueGain: AeEnable (every version) plus each of ExposureTimeMode and
    /// AnalogueGainMode (0 auto, 1 manual) the camera lists; they take precedence over AeEnable.
    /// Controls the camera lacks are dropped before queueing.
    static func exposureSource(manual: Bool, modes: ExposureModeControls) -> ControlList {
        var c: ControlList = [ControlName.aeEnable: .bool(!manual)]
        if modes.exposureTimeMode { c[ControlName.exposureTimeMode] = .int32(manual ? 1 : 0) }
        if modes.analogueGainMode { c[ControlName.analogueGainMode] = .int32(manual ? 1 : 0) }
        return c
    }

    /// The ControlList the next request carries: the active frame duration limits and every current
    /// setting (the whole set each time, so any request alone fixes the state). A pending AF trigger
    /// is included once when `consumeTrigger` is true.
    public func controlsForNextRequest(consumeTrigger: Bool = true) -> ControlList {
        var c: ControlList = [:]
        let frameDurations = frameDurationRangeMicroseconds
        var longest = frameDurations.maximum
        let modes = exposureModeControls
        switch exposureMode {
        case .auto:
            c.merge(Self.exposureSource(manual: false, modes: modes)) { $1 }
            // 0 = AE chooses (Raspberry Pi IPA before 0.5), for each value its mode control cannot hand back.
            if !modes.exposureTimeMode { c[ControlName.exposureTime] = .int32(0) }
            if !modes.analogueGainMode { c[ControlName.analogueGain] = .float(0) }
            c[ControlName.exposureValue] = .float(Float(exposureBiasEV))
        case .locked:
            let held = settings.heldExposure(format: activeFormat.format, isoPerGain: sensor.isoPerGain)
                ?? (latest?.exposureDurationMicroseconds ?? 0, latest?.analogueGain ?? 0)
            c.merge(Self.exposureSource(manual: true, modes: modes)) { $1 }
            c[ControlName.exposureTime] = .int32(Int32(clamping: held.0))
            c[ControlName.analogueGain] = .float(Float(held.1))
            longest = max(longest, Int64(held.0))
        case .custom(let duration, let iso):
            c.merge(Self.exposureSource(manual: true, modes: modes)) { $1 }
            c[ControlName.exposureTime] = .int32(Int32(clamping: duration))
            c[ControlName.analogueGain] = .float(Float(iso / sensor.isoPerGain))
            // A custom duration longer than the frame lengthens the frame (as AVFoundation does).
            longest = max(longest, Int64(duration))
        }
        c[ControlName.frameDurationLimits] = .int64Array([frameDurations.minimum, longest])
        c.merge(takeFrameSyncControls()) { $1 }
        c[ControlName.hdrMode] = hdrModeControl
        if let zoom = zoomControl { c[ControlName.scalerCrop] = zoom }
        settings.addWhiteBalance(to: &c)
        if afSystem != "none" { settings.addFocus(to: &c, consumeTrigger: consumeTrigger) }
        return c
    }
}

/// Which of libcamera 0.5's exposure mode controls a camera lists (each on its own).
struct ExposureModeControls: Equatable {
    /// ExposureTimeMode: ExposureTime counts only in manual (1); auto needs no placeholder.
    var exposureTimeMode: Bool
    /// AnalogueGainMode: AnalogueGain counts only in manual (1); auto needs no placeholder.
    var analogueGainMode: Bool
}
