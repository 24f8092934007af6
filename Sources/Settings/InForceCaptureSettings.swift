import Capture
import Controls
import Media

/// The capture services' read-only view of the settings in force: each read goes to the store's
/// `current`, so a committed change is seen at once and a refused one never (no copy to push).
public struct InForceCaptureSettings: CaptureSettingsView {
    private let store: SettingsStore

    public init(_ store: SettingsStore) { self.store = store }

    public var captureFormat: CaptureFormat { store.current.captureFormat }
    public var dngCompression: DNGCompression { store.current.dngCompression }
    public var buttonConfiguration: ButtonConfiguration { store.current.button }
    public var timelapseRampRateEVPerHour: Double { store.current.timelapseRampRateEVPerHour }
}
