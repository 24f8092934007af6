import Hardware

/// A change of several camera settings applied as one transaction by `CameraController.apply(_:)`:
/// all of it or none of it. Every part is optional; nil leaves that setting as it is.
public struct CameraSettingsChange: Hashable, Sendable {
    /// How white balance is chosen: a mode, or a light whose gains are locked.
    public enum WhiteBalanceChoice: Hashable, Sendable {
        case mode(WhiteBalanceMode)
        /// Locks the gains for a light of this temperature and tint (the sensor's model).
        case light(TemperatureAndTint)
    }

    /// The format to select, as the settings schema gives it (a table index or "WxH@fps").
    public var format: String?
    /// The zoom factor (1 = the whole field).
    public var zoomFactor: Double?
    public var exposureMode: ExposureMode?
    /// The exposure bias, EV.
    public var exposureBiasEV: Double?
    public var focusMode: FocusMode?
    public var whiteBalance: WhiteBalanceChoice?
    /// Frame sync's part and rate (`fleet.sync`, `video.fps`).
    public var frameSync: FrameSyncRequest?

    public init(format: String? = nil, zoomFactor: Double? = nil, exposureMode: ExposureMode? = nil,
                exposureBiasEV: Double? = nil, focusMode: FocusMode? = nil, whiteBalance: WhiteBalanceChoice? = nil,
                frameSync: FrameSyncRequest? = nil) {
        self.frameSync = frameSync
        self.format = format; self.zoomFactor = zoomFactor
        self.exposureMode = exposureMode; self.exposureBiasEV = exposureBiasEV
        self.focusMode = focusMode; self.whiteBalance = whiteBalance
    }
}

extension CameraController {
    /// What `apply(_:)` puts back when a part of a change is refused.
    struct SettingsSnapshot {
        var activeFormat: FormatSelection
        /// Zoom, exposure (and what a lock holds), focus (and a pending trigger), white balance.
        var settings: ControlSettings
        var frameSync: FrameSyncRequest
    }

    var settingsSnapshot: SettingsSnapshot {
        SettingsSnapshot(activeFormat: activeFormat, settings: settings, frameSync: frameSync)
    }

    /// Applies a change as one transaction: all of it, or, when a part is refused, none of it (the
    /// controller is put back as it was, its format too, and the error is rethrown).
    ///
    /// Order: a format checks the zoom in force, so a lower zoom goes before the format (`reset` from
    /// a zoom the new format cannot take) and a higher one after it (its maximum is the new format's).
    /// `afterFormat` runs next, told whether the format changed (the services that follow the format,
    /// and anything that must come between the format and the rest); then the zoom (when higher), the
    /// exposure mode, the bias, the focus, the white balance and frame sync, whose conditions are
    /// checked last against the whole change.
    public func apply(_ change: CameraSettingsChange, afterFormat: (_ formatChanged: Bool) throws -> Void = { _ in }) throws {
        let before = settingsSnapshot
        do {
            let zoomFirst = change.zoomFactor.map { $0 < zoomFactor } ?? false
            if zoomFirst, let zoom = change.zoomFactor { try setZoom(zoom) }
            if let format = change.format { try selectFormat(format) }
            try afterFormat(change.format != nil)
            if !zoomFirst, let zoom = change.zoomFactor { try setZoom(zoom) }
            if let mode = change.exposureMode { try setExposure(mode) }
            if let ev = change.exposureBiasEV { try setExposureBias(ev: ev) }
            if let mode = change.focusMode { try setFocus(mode) }
            switch change.whiteBalance {
            case .mode(let mode)?: try setWhiteBalance(mode)
            case .light(let light)?: try setWhiteBalance(light)
            case nil: break
            }
            if let sync = change.frameSync { try setFrameSync(sync) }
            try checkFrameSync()  // a format or exposure must suit the frame sync in force
        } catch {
            do { try restore(before) } catch let restoring {
                throw HardwareError((restoring as? HardwareError)?.kind ?? .other, "\(error); putting back format \(before.activeFormat.format.label) failed too (\(restoring)), so \(activeFormat.format.label) is in force")
            }
            throw error
        }
    }

    /// Puts the settings of a snapshot back; the format only when another is active (a restart,
    /// which can be refused: then the settings are back but the other format stays in force).
    func restore(_ snapshot: SettingsSnapshot) throws {
        // The snapshot's zoom and exposure fit its format: set them first, so it is accepted again.
        settings.restore(snapshot.settings)
        sync.request = snapshot.frameSync
        if activeFormat != snapshot.activeFormat { try apply(snapshot.activeFormat) }
    }
}
