import Camera
import Console

/// The half press of a two-stage shutter button: holds the current exposure and focus, and gives
/// back what they were on release. It decides the changes (typed) from the camera's latest frame
/// and the settings in force; applying them is the supervisor's one settings transaction
/// (`change(key:value:)`). Its own state is what a release puts back.
struct HalfPressLock {
    /// One setting the lock changes or puts back.
    enum Change: Equatable {
        case lensPosition(dioptres: Double)
        case focusMode(TypedSettings.FocusMode)
        case exposureMode(TypedSettings.ExposureMode)

        /// The setting's key and canonical text, for the settings transaction.
        var setting: (key: String, value: String) {
            switch self {
            case .lensPosition(let dioptres): ("focus.lens", ValueParser.formatNumber(dioptres))
            case .focusMode(let mode): ("focus.mode", mode.rawValue)
            case .exposureMode(let mode): ("exposure.mode", mode.rawValue)
            }
        }
    }

    /// What the camera can hold now, from the controller and its latest frame.
    struct CameraState: Equatable {
        /// The camera has exposure controls and its latest frame reports the exposure (metered).
        var exposureMetered: Bool
        /// With autofocus: the latest frame's lens position, dioptres; nil without AF or a report.
        var lensPositionDioptres: Double?
    }

    /// What a release puts back, in the order to apply it; empty when nothing is held.
    private(set) var saved: [Change] = []

    /// A half press: the changes that hold focus (focus.lens at the frame's lens position, then
    /// focus.mode locked) and exposure (exposure.mode locked), each only when the camera can hold
    /// it; the values in `settings` are kept for the release. Nil while changes are still held.
    mutating func lock(_ camera: CameraState, settings: TypedSettings) -> [Change]? {
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
    mutating func unlock() -> [Change] {
        defer { saved = [] }
        return saved
    }
}

extension HalfPressLock.CameraState {
    /// What `camera` can hold now (its controls and its latest frame).
    init(_ camera: CameraController) {
        exposureMetered = camera.controlsExposure && camera.latest?.exposure != nil
        lensPositionDioptres = camera.afSystem != "none" ? camera.latest?.lensPositionDioptres : nil
    }
}
