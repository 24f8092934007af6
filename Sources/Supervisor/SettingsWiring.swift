import Hardware
import Camera
import Console
import Recording
import Remote
import Settings
import Stabilization

/// The settings store's participants and observers: how a committed change reaches each service.
/// One rule for parameters lives in the table: setting a mode's parameter selects that mode, as on
/// a camera's M dial (`set exposure.duration 1/60` means custom exposure). A change is one
/// transaction in the order of `ownSettingsFollowers` (the fleet's come after); a refusal puts back
/// the parts before it (SettingsStore.commit).
extension Supervisor {
    /// The store's participants in transaction order, then its observer: how a change reaches the
    /// supervisor's services. Given when the store is made, through the supervisor's link (weak;
    /// a config file's lines reach them before the loop runs).
    static func ownSettingsFollowers(_ link: SupervisorLink) -> SettingsStore.Followers {
        SettingsStore.Followers(participants: [
            .init(name: "recording") { change throws(ConsoleError) in try link.valueWhereConfined?.applyRecordingPart(change) },
            .init(name: "triggers") { change throws(ConsoleError) in try link.valueWhereConfined?.applyTriggerPart(change) },
            .init(name: "stream") { change throws(ConsoleError) in try link.valueWhereConfined?.applyStreamPart(change) },
            .init(name: "stabilization") { change throws(ConsoleError) in try link.valueWhereConfined?.applyStabilizationPart(change) },
            .init(name: "camera", apply: { change throws(ConsoleError) in try link.valueWhereConfined?.applyCameraPart(change) },
                  inForce: { settings in link.valueWhereConfined?.formatInForce(&settings) }),
            .init(name: "remote") { change throws(ConsoleError) in try Supervisor.checkRemoteFiles(change) },
        ], observers: [
            { change in link.valueWhereConfined?.settingsCommitted(change) },
        ])
    }

    /// Console `set` (and the config file at start): validates and commits one setting; the reply
    /// names the key first, then the mode it selected. `requestedBy`: the line's origin, nil for
    /// the config file.
    public func change(key: String, value: String, origin: SettingsOrigin = .console,
                       requestedBy: CommandOrigin?) throws(ConsoleError) -> [(String, String)] {
        let change = try settings.set(key, value, origin: origin, requestedBy: requestedBy)
        let others = change.fields.filter { $0.0 != key }
        return change.fields.filter { $0.0 == key } + others
    }

    /// What every committed change does beyond the transaction: the services that only follow.
    private func settingsCommitted(_ change: SettingsChange) {
        // The recording's rate is capped by the format's: a new format re-arms a pre-record.
        if change.old.format != change.new.format { try? applyVideoSettings(change.new.video) }
        // display.* is read by the viewfinder's display thread where used (overlayOptions).
        // The button keeps its configuration (debouncers, gestures): a new one reaches it here.
        // capture.format, media.dng.compression and timelapse.ramp.rate are read where used.
        if change.touches(any: SettingsTable.button), change.old.button != change.new.button { captureService.button.reconfigure(change.new.button) }
        if (change.touches(SettingsTable.remoteListen) && change.old.remote.listen != change.new.remote.listen)
            || (change.touches(SettingsTable.remoteTLS) && change.old.remote.tls != change.new.remote.tls)
            || (change.touches(SettingsTable.remoteCollect) && change.old.remote.collectKeyFile != change.new.remote.collectKeyFile) { applyRemoteListen() }
    }

    /// The recorder's part: no format change while recording; the `video.*` settings.
    private func applyRecordingPart(_ change: SettingsChange) throws(ConsoleError) {
        if change.touches(SettingsTable.format), change.old.format != change.new.format, let id = recorder.recordingID {
            throw ConsoleError(.busy, "recording \(id): change the format after record stop")
        }
        guard change.touches(any: SettingsTable.recording), camera != nil else { return }
        try applyVideoSettings(change.new.video)
    }

    /// Stabilization's part; it goes before the camera's (it can refuse `lens on`).
    private func applyStabilizationPart(_ change: SettingsChange) throws(ConsoleError) {
        guard let stabilization else { return }
        let s = change.new
        // A forced off is the service's own decision: it is stored, not applied again.
        if change.touches(SettingsTable.stabilizationLens), change.origin != .forcedOff {
            do throws(StabilizationError) { try stabilization.setLensEnabled(s.stabilization.lens) }
            catch { throw ConsoleError(error.code == .unsupported ? .unsupported : .badValue, "\(SettingsTable.stabilizationLens.key): \(error.message)") }
        }
        if change.touches(SettingsTable.stabilizationStill) { stabilization.setStillAutomatic(s.stabilization.stillAutomatic) }
        if change.touches(SettingsTable.stabilizationVideo) { stabilization.setVideoPreferred(s.stabilization.videoPreferred) }
    }

    /// The camera's part: the controller applies it as one (`CameraController.apply(_:)`) and puts
    /// itself back when a part is refused; the services that follow the format, and video HDR, are
    /// put back here.
    private func applyCameraPart(_ change: SettingsChange) throws(ConsoleError) {
        guard let camera else { return }
        if change.touches(SettingsTable.format), let running = captureService.running {
            throw ConsoleError(.busy, "a bracket is running (\(running.id ?? running.plan.summary)); change the format after bracket.done")
        }
        var formatSeen: FormatSelection?
        do throws(ConsoleError) {
            try applyCamera(cameraChange(change), to: camera) { formatChanged throws(ConsoleError) in
                if formatChanged {
                    formatSeen = camera.activeFormat
                    formatFollowers(camera)
                }
                if change.touches(SettingsTable.videoHDR) { try worded { () throws(RecorderError) in try videoHDR.setPreference(change.new.videoHDR) } }
            }
        } catch {
            if let seen = formatSeen, seen != camera.activeFormat { formatFollowers(camera) }
            if change.touches(SettingsTable.videoHDR), change.old.videoHDR != change.new.videoHDR {
                try? videoHDR.setPreference(change.old.videoHDR)
            }
            throw error
        }
    }

    /// After a refusal: a format the camera could not put back stays in force, and the setting says so.
    private func formatInForce(_ settings: inout TypedSettings) {
        guard let camera else { return }
        if (try? FormatTable.select(settings.format, from: camera.formats))?.format != camera.activeFormat.format {
            settings.format = camera.activeFormat.format.label
        }
    }

    /// The services that follow the camera's active format.
    private func formatFollowers(_ camera: CameraController) {
        stabilization?.formatChanged(camera.activeFormat)
        videoStabilizationChanged()
        videoHDR.formatChanged()
    }

    /// The camera's part of a change: the keys touched, as the controller's typed values. A format
    /// change applies the exposure again (a custom one must fit the new format).
    private func cameraChange(_ change: SettingsChange) -> CameraSettingsChange {
        let s = change.new
        typealias T = SettingsTable
        var camera = CameraSettingsChange()
        if change.touches(T.format) { camera.format = s.format }
        if change.touches(T.zoom) { camera.zoomFactor = s.zoomFactor }
        if change.touches(any: [T.exposureMode.any, T.exposureDuration.any, T.exposureISO.any, T.format.any]) {
            camera.exposureMode = exposureMode(s)
        }
        if change.touches(T.exposureBias) { camera.exposureBiasEV = s.exposureBiasEV }
        if change.touches(any: [T.focusMode.any, T.focusLens.any]) { camera.focusMode = focusMode(s) }
        if change.touches(any: [T.whiteBalanceMode.any, T.whiteBalanceGains.any, T.whiteBalanceTemperature.any, T.whiteBalanceTint.any]) {
            camera.whiteBalance = whiteBalance(s)
        }
        if change.touches(any: [T.fleetSync.any, T.videoFPS.any]) {
            camera.frameSync = FrameSyncRequest(mode: s.fleet.sync, framesPerSecond: s.video.captureFramesPerSecond,
                                                rateSetting: SettingsTable.videoFPS.key)
        }
        return camera
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
        typealias T = SettingsTable
        switch key {
        case T.stabilizationVideo.key: return stabilization?.video.active.rawValue
        case T.videoHDR.key: return videoHDR.activeDescription
        case T.remoteListen.key: return remoteActiveDescription
        case T.remoteTLS.key: return remote.map(\.scheme) ?? "not serving"
        case T.fleetSync.key:
            guard let sync = camera?.frameSyncStatus, sync.mode != .off else { return nil }
            return sync.active ? (sync.ready ? "ready" : "aligning") : "unavailable (no SyncMode on this camera)"
        default: break
        }
        guard let frame = camera?.latest else { return nil }
        switch key {
        case T.exposureDuration.key: return frame.exposureDurationMicroseconds.map { ValueParser.formatShutter(.microseconds($0)) } ?? "unreported"
        case T.exposureISO.key: return frame.iso.map(ValueParser.formatNumber) ?? "unreported"
        case T.focusLens.key: return frame.lensPositionDioptres.map(ValueParser.formatNumber)
        case T.whiteBalanceGains.key: return frame.colourGains.map { ValueParser.formatNumber($0.red) + "," + ValueParser.formatNumber($0.blue) }
        case T.whiteBalanceTemperature.key, T.whiteBalanceTint.key:
            guard let light = camera?.temperatureAndTint else { return nil }
            return key == T.whiteBalanceTint.key ? ValueParser.formatNumber(light.tint) : ValueParser.formatNumber(light.temperatureKelvin.rounded()) + "K"
        default: return nil
        }
    }
}
