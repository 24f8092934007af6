extension Stabilization.Event {
    /// Dotted console event name: `stabilization.lens`, `stabilization.still`, `stabilization.video`.
    public var consoleName: String {
        switch self {
        case .lensSupported, .lensEnabled: "stabilization.lens"
        case .stillAutomatic: "stabilization.still"
        case .videoPreferred, .videoActive: "stabilization.video"
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
