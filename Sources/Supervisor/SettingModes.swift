/// The mode settings as values, parsed from the canonical setting text once per change (the
/// schema has already checked it), so per-frame code (the viewfinder's status line) compares enums.
struct SettingModes: Equatable {
    enum Exposure: String { case auto, locked, custom }
    enum Focus: String { case locked, auto, continuous }
    enum WhiteBalance: String { case auto, locked, gains, temperature }

    var exposure: Exposure
    var focus: Focus
    var whiteBalance: WhiteBalance

    init(_ settings: [String: String]) {
        exposure = settings["exposure.mode"].flatMap(Exposure.init(rawValue:)) ?? .auto
        focus = settings["focus.mode"].flatMap(Focus.init(rawValue:)) ?? .continuous
        whiteBalance = settings["wb.mode"].flatMap(WhiteBalance.init(rawValue:)) ?? .auto
    }
}
