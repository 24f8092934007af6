import Camera
import Console
import Hardware
import Stabilization

/// Applies camera settings to the camera controller, with one rule for parameters: setting a
/// mode's parameter selects that mode, as on a camera's M dial (`set exposure.duration 1/60`
/// means custom exposure; `set focus.lens 2` locks focus at 2 D; `set wb.gains 1.9,1.6` locks those
/// gains; `set wb.temperature 5600K` selects temperature mode). The reply names every key changed.
extension Supervisor {
    /// The `stabilization.*` keys, in the order they are applied.
    static let stabilizationKeys = ["stabilization.lens", "stabilization.still", "stabilization.video"]

    /// Keys whose value implies a mode, and the mode it implies.
    static let impliedModes: [String: (key: String, value: String)] = [
        "exposure.duration": ("exposure.mode", "custom"),
        "exposure.iso": ("exposure.mode", "custom"),
        "focus.lens": ("focus.mode", "locked"),
        "wb.gains": ("wb.mode", "gains"),
        "wb.temperature": ("wb.mode", "temperature"),
        "wb.tint": ("wb.mode", "temperature"),
    ]

    /// Validates, applies and stores one setting (plus the mode it implies); returns what changed.
    public func change(key: String, value: String) throws(ConsoleError) -> [(String, String)] {
        let canonical = try SettingsSchema.validate(key: key, value: value)
        var proposed = settings
        proposed[key] = canonical
        var changed = [(key, canonical)]
        if let implied = Self.impliedModes[key], proposed[implied.key] != implied.value {
            proposed[implied.key] = implied.value
            changed.append((implied.key, implied.value))
        }
        if key == "format", let id = recorder?.recordingID {
            throw ConsoleError(.busy, "recording \(id): change the format after record stop")
        }
        // video.hdr is the camera's (it may switch during a recording); the rest are the recorder's.
        if key.hasPrefix("video."), key != "video.hdr" { try applyVideoSettings(TypedSettings(proposed).video) }
        try applyToCamera(changedKeys: Set(changed.map(\.0)), settings: proposed)
        settings = proposed
        // The recording's rate is capped by the format's: a new format re-arms a pre-record.
        if key == "format" { try? applyVideoSettings(typed.video) }
        if key.hasPrefix("display.") { applyViewfinderOptions() }
        if key.hasPrefix("button.") { applyButtonSettings() }
        return changed
    }

    /// Pushes the settings that changed to the camera as one transaction: all of the change or
    /// none of it. When the camera refuses a part, what went through before it is put back (the
    /// settings in force, applied again for the same keys) and nothing is stored.
    func applyToCamera(changedKeys: Set<String>, settings s: [String: String]) throws(ConsoleError) {
        let proposed = TypedSettings(s)  // parsed once for the whole change
        do throws(ConsoleError) {
            try apply(changedKeys, proposed)
        } catch {
            if s != settings { try? apply(changedKeys, typed, rollingBack: true) }
            throw error
        }
    }

    /// Applies the keys; `rollingBack` leaves a format already in force alone (no restart).
    private func apply(_ changedKeys: Set<String>, _ s: TypedSettings, rollingBack: Bool = false) throws(ConsoleError) {
        guard let camera else { return }
        if let stabilization {
            do throws(StabilizationError) {
                if changedKeys.contains("stabilization.lens") { try stabilization.setLensEnabled(s.stabilizationLens) }
            } catch { throw ConsoleError(error.code == .unsupported ? .unsupported : .badValue, error.message) }
            if changedKeys.contains("stabilization.still") { stabilization.setStillAutomatic(s.stabilizationStillAutomatic) }
            if changedKeys.contains("stabilization.video") { stabilization.setVideoPreferred(s.stabilizationVideoPreferred) }
        }
        if changedKeys.contains("format"), let running = captureService?.running {
            throw ConsoleError(.busy, "a bracket is running (\(running.id ?? running.plan.summary)); change the format after bracket.done")
        }
        do {
            // A format checks the zoom in force: a lower zoom goes first (`reset` from a zoom the new
            // format cannot take), a higher one after the format (its maximum is the new format's).
            let newZoom = changedKeys.contains("zoom") ? s.zoomFactor : nil
            let previousZoom = camera.zoomFactor
            let zoomFirst = newZoom.map { $0 < previousZoom } ?? false
            if zoomFirst, let zoom = newZoom { try camera.setZoom(zoom) }
            let formatInForce = rollingBack && (try? FormatTable.select(s.format, from: camera.formats)) == camera.activeFormat
            if changedKeys.contains("format"), !formatInForce {
                do { try camera.selectFormat(s.format) } catch {
                    if zoomFirst { try? camera.setZoom(previousZoom) }  // nothing changes when refused
                    throw error
                }
                stabilization?.formatChanged(camera.activeFormat)
                videoStabilizationChanged()
                videoHDR.formatChanged()
            }
            if changedKeys.contains("video.hdr") { try videoHDR.setPreference(s.videoHDR) }
            if !zoomFirst, let zoom = newZoom { try camera.setZoom(zoom) }
            if !changedKeys.isDisjoint(with: ["exposure.mode", "exposure.duration", "exposure.iso", "format"]) {
                try camera.setExposure(exposureMode(s))
            }
            if changedKeys.contains("exposure.bias") {
                try camera.setExposureBias(ev: s.exposureBiasEV)
            }
            if !changedKeys.isDisjoint(with: ["focus.mode", "focus.lens"]) {
                try camera.setFocus(focusMode(s))
            }
            if !changedKeys.isDisjoint(with: ["wb.mode", "wb.gains", "wb.temperature", "wb.tint"]) {
                try applyWhiteBalance(s, to: camera)
            }
        } catch let error as ConsoleError {
            throw error
        } catch let error as CameraError {
            throw ConsoleError(consoleCode(error), error.message)
        } catch {
            throw ConsoleError(.device, "\(error)")
        }
    }

    private func exposureMode(_ s: TypedSettings) -> ExposureMode {
        switch s.exposureMode {
        case .locked: return .locked
        case .custom: return .custom(durationMicroseconds: s.exposureDurationMicroseconds, iso: s.exposureISO)
        case .auto: return .auto
        }
    }

    private func focusMode(_ s: TypedSettings) -> FocusMode {
        switch s.focusMode {
        case .locked: return .locked(lensPositionDioptres: s.lensPositionDioptres)
        case .auto: return .auto
        case .continuous: return .continuous
        }
    }

    private func applyWhiteBalance(_ s: TypedSettings, to camera: CameraController) throws {
        switch s.whiteBalanceMode {
        case .locked: try camera.setWhiteBalance(.locked)
        case .gains:
            try camera.setWhiteBalance(.lockedGains(WhiteBalanceGains(red: s.whiteBalanceGains.red, blue: s.whiteBalanceGains.blue)))
        case .temperature:
            try camera.setWhiteBalance(TemperatureAndTint(temperatureKelvin: s.whiteBalanceKelvin, tint: s.whiteBalanceTint))
        case .auto: try camera.setWhiteBalance(.auto)
        }
    }

    func consoleCode(_ error: CameraError) -> ConsoleError.Code {
        switch error.kind {
        case .outOfRange: return .outOfRange
        case .unsupported, .noSuchFormat: return .unsupported
        case .notReady: return .busy
        case .notYet: return .notYet
        default: return .device
        }
    }

    /// The value the camera actually uses now, where it can differ from the setting (auto modes).
    func activeValue(for key: String) -> String? {
        if key == "stabilization.video" { return stabilization?.video.active.rawValue }
        if key == "video.hdr" { return videoHDR.activeDescription }
        guard let frame = camera?.latest else { return nil }
        switch key {
        case "exposure.duration": return frame.exposureDurationMicroseconds.map { ValueParser.formatShutter(.microseconds($0)) } ?? "unreported"
        case "exposure.iso": return frame.iso.map(ValueParser.formatNumber) ?? "unreported"
        case "focus.lens": return frame.lensPositionDioptres.map(ValueParser.formatNumber)
        case "wb.gains": return frame.colourGains.map { ValueParser.formatNumber($0.red) + "," + ValueParser.formatNumber($0.blue) }
        case "wb.temperature", "wb.tint":
            guard let light = camera?.temperatureAndTint else { return nil }
            return key == "wb.tint" ? ValueParser.formatNumber(light.tint) : ValueParser.formatNumber(light.temperatureKelvin.rounded()) + "K"
        default: return nil
        }
    }
}
