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
    /// none of it. The camera controller applies its part as one (`CameraController.apply(_:)`)
    /// and puts itself back when a part is refused; the other services' parts (stabilization, the
    /// services that follow the format, video HDR) are put back here (the settings in force, applied
    /// again for the same keys) and nothing is stored.
    func applyToCamera(changedKeys: Set<String>, settings s: [String: String]) throws(ConsoleError) {
        guard let camera else { return }
        let proposed = TypedSettings(s)  // parsed once for the whole change
        var formatSeen: FormatSelection?
        do throws(ConsoleError) {
            try applyStabilization(changedKeys, proposed)
            if changedKeys.contains("format"), let running = captureService?.running {
                throw ConsoleError(.busy, "a bracket is running (\(running.id ?? running.plan.summary)); change the format after bracket.done")
            }
            try applyCamera(cameraChange(changedKeys, proposed), to: camera) { formatChanged throws(ConsoleError) in
                if formatChanged {
                    formatSeen = camera.activeFormat
                    formatFollowers(camera)
                }
                if changedKeys.contains("video.hdr") { try videoHDR.setPreference(proposed.videoHDR) }
            }
        } catch {
            // The camera is back as it was; the services that followed it are put back too.
            let inForce = typed
            if s != settings { try? applyStabilization(changedKeys, inForce) }
            if let seen = formatSeen, seen != camera.activeFormat { formatFollowers(camera) }
            // A format the camera could not put back stays in force: the setting says so.
            if (try? FormatTable.select(settings["format"] ?? "", from: camera.formats))?.format != camera.activeFormat.format {
                settings["format"] = camera.activeFormat.format.label
            }
            if s != settings, changedKeys.contains("video.hdr") { try? videoHDR.setPreference(inForce.videoHDR) }
            throw error
        }
    }

    /// The stabilization settings among the keys; they go first (they can refuse `lens on`).
    private func applyStabilization(_ changedKeys: Set<String>, _ s: TypedSettings) throws(ConsoleError) {
        guard let stabilization else { return }
        do throws(StabilizationError) {
            if changedKeys.contains("stabilization.lens") { try stabilization.setLensEnabled(s.stabilizationLens) }
        } catch { throw ConsoleError(error.code == .unsupported ? .unsupported : .badValue, error.message) }
        if changedKeys.contains("stabilization.still") { stabilization.setStillAutomatic(s.stabilizationStillAutomatic) }
        if changedKeys.contains("stabilization.video") { stabilization.setVideoPreferred(s.stabilizationVideoPreferred) }
    }

    /// The services that follow the camera's active format.
    private func formatFollowers(_ camera: CameraController) {
        stabilization?.formatChanged(camera.activeFormat)
        videoStabilizationChanged()
        videoHDR.formatChanged()
    }

    /// The camera's part of a change: the keys that changed, as the controller's typed values. A
    /// format change applies the exposure again (a custom one must fit the new format).
    private func cameraChange(_ changedKeys: Set<String>, _ s: TypedSettings) -> CameraSettingsChange {
        var change = CameraSettingsChange()
        if changedKeys.contains("format") { change.format = s.format }
        if changedKeys.contains("zoom") { change.zoomFactor = s.zoomFactor }
        if !changedKeys.isDisjoint(with: ["exposure.mode", "exposure.duration", "exposure.iso", "format"]) {
            change.exposureMode = exposureMode(s)
        }
        if changedKeys.contains("exposure.bias") { change.exposureBiasEV = s.exposureBiasEV }
        if !changedKeys.isDisjoint(with: ["focus.mode", "focus.lens"]) { change.focusMode = focusMode(s) }
        if !changedKeys.isDisjoint(with: ["wb.mode", "wb.gains", "wb.temperature", "wb.tint"]) {
            change.whiteBalance = whiteBalance(s)
        }
        return change
    }

    /// Runs the controller's transaction; its errors become console errors (the hook's pass as they are).
    private func applyCamera(_ change: CameraSettingsChange, to camera: CameraController,
                             afterFormat: (Bool) throws(ConsoleError) -> Void) throws(ConsoleError) {
        do {
            try camera.apply(change) { formatChanged in try afterFormat(formatChanged) }
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

    private func whiteBalance(_ s: TypedSettings) -> CameraSettingsChange.WhiteBalanceChoice {
        switch s.whiteBalanceMode {
        case .locked: return .mode(.locked)
        case .gains: return .mode(.lockedGains(s.whiteBalanceGains))
        case .temperature: return .light(TemperatureAndTint(temperatureKelvin: s.whiteBalanceKelvin, tint: s.whiteBalanceTint))
        case .auto: return .mode(.auto)
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
