import Camera

/// The half press of a two-stage shutter button: holds the current exposure and focus, and gives
/// back what they were on release. It decides the changes (typed) from the camera's latest frame
/// and the settings in force; applying them is one commit of the settings store
/// (`SettingsStore.update`). Its own state is what a release puts back.
public struct HalfPressLock {
    /// One setting the lock changes or puts back.
    public enum Change: Equatable {
        case lensPosition(dioptres: Double)
        case focusMode(TypedSettings.FocusMode)
        case exposureMode(TypedSettings.ExposureMode)

        /// Makes this change in `settings`.
        public func apply(to settings: inout TypedSettings) {
            switch self {
            case .lensPosition(let dioptres): settings.lensPositionDioptres = dioptres
            case .focusMode(let mode): settings.focusMode = mode
            case .exposureMode(let mode): settings.exposureMode = mode
            }
        }
    }

    /// What the camera can hold now, from the controller and its latest frame.
    public struct CameraState: Equatable {
        /// The camera has exposure controls and its latest frame reports the exposure (metered).
        var exposureMetered: Bool
        /// With autofocus: the latest frame's lens position, dioptres; nil without AF or a report.
        var lensPositionDioptres: Double?
    }

    /// What a release puts back, in the order to apply it; empty when nothing is held.
    public private(set) var saved: [Change] = []

    public init() {}

    /// A half press: the changes that hold focus (focus.lens at the frame's lens position, then
    /// focus.mode locked) and exposure (exposure.mode locked), each only when the camera can hold
    /// it; the values in `settings` are kept for the release. Nil while changes are still held.
    public mutating func lock(_ camera: CameraState, settings: TypedSettings) -> [Change]? {
        guard saved.isEmpty else { return nil }
        var changes: [Change] = [], previous: [Change] = []
        if let lens = camera.lensPositionDioptres {
            changes += [.lensPosition(dioptres: lens), .focusMode(.locked)]
            previous += [.lensPosition(dioptres: settings.lensPositionDioptres), .focusMode(settings.focusMode)]
        }
        if camera.exposureMetered {
            changes.append(.exposureMode(.locked))
            previous.append(.exposureMode(settings.exposureMode))
        }
        saved = previous
        return changes
    }

    /// The release: what to put back, in order; nothing is held afterwards.
    public mutating func unlock() -> [Change] {
        defer { saved = [] }
        return saved
    }
}

extension HalfPressLock.CameraState {
    /// What `camera` can hold now (its controls and its latest frame).
    public init(_ camera: CameraController) {
        exposureMetered = camera.controlsExposure && camera.latest?.exposure != nil
        lensPositionDioptres = camera.afSystem != "none" ? camera.latest?.lensPositionDioptres : nil
    }
}
