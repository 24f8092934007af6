import Settings
import Stabilization

// Stabilization's events in the console's words: the one place they are worded (`stabilization.*`).

extension Stabilization.Event {
    /// Dotted console event name: the setting's key (`stabilization.lens`, `.still`, `.video`).
    public var consoleName: String {
        switch self {
        case .lensSupported, .lensEnabled: SettingsTable.stabilizationLens.key
        case .stillAutomatic: SettingsTable.stabilizationStill.key
        case .videoPreferred, .videoActive: SettingsTable.stabilizationVideo.key
        }
    }

    /// Console event fields, e.g. `supported=false`, `enabled=off forced=yes`, `active=standard`.
    public var consoleFields: [(String, String)] {
        switch self {
        case .lensSupported(let s): [("supported", s ? "true" : "false")]
        case .lensEnabled(let e, let forced): [("enabled", e ? "on" : "off")] + (forced ? [("forced", "yes")] : [])
        case .stillAutomatic(let on): [("automatic", on ? "on" : "off")]
        case .videoPreferred(let m): [("preferred", m.rawValue)]
        case .videoActive(let m): [("active", m.rawValue)]
        }
    }
}
