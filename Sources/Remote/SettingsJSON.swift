import Console
import Settings

/// `GET /api/settings`: every setting of the table with its value in force, default, help, and
/// what the page needs to build its control (choices, or a number's unit and range), all from
/// the table, so a new setting appears on the page without a page edit. A setting the remote may
/// not change (OriginPolicy: remote.*, fleet.*, any that names a file) carries `readOnly`, saying
/// where it changes instead; the page shows it disabled.
enum SettingsJSON {
    static let readOnlyWhere = OriginPolicy.ownerOnlyWhere

    static func table(_ current: TypedSettings) -> String {
        let items = SettingsTable.all.map { setting -> String in
            var fields: [(String, String)] = [
                ("key", string(setting.key)), ("value", string(setting.text(in: current))),
                ("default", string(setting.defaultText)), ("summary", string(setting.summary)), ("forms", string(setting.forms)),
            ]
            fields += control(setting.kind)
            if let selects = setting.selects { fields.append(("selects", string(selects.key))) }
            if !OriginPolicy.mayChange(setting, from: .remote) {
                fields.append(("readOnly", string(readOnlyWhere)))
            }
            return "{" + fields.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
        }
        return "{\"settings\":[" + items.joined(separator: ",") + "]}"
    }

    /// The control's type (`choice`, `number` or `text`), with choices, unit, minimum and maximum.
    static func control(_ kind: SettingKind) -> [(String, String)] {
        switch kind {
        case .choice(let names): return [("type", string("choice")), ("choices", array(names))]
        case .onOff: return [("type", string("choice")), ("choices", array(["on", "off"]))]
        case .milliseconds(let range): return number("ms", Double(range.lowerBound), Double(range.upperBound))
        case .number(let range, let unit): return number(unit, range.lowerBound, range.upperBound)
        case .iso: return number("ISO", nil, nil)
        case .ev: return number("EV", nil, nil)
        case .kelvin: return number("K", nil, nil)
        case .tint: return number("", -150, 150)
        case .dioptres: return number("dioptres", 0, nil)
        case .zoom: return number("x", 1, nil)
        case .duration: return text("s")
        case .bitrate: return text("bit/s")
        case .gains, .format, .buttonAction, .listenAddress, .certificateAndKey, .broker, .file, .name, .text: return text("")
        }
    }

    private static func number(_ unit: String, _ minimum: Double?, _ maximum: Double?) -> [(String, String)] {
        var f = [("type", string("number")), ("unit", string(unit))]
        if let minimum { f.append(("minimum", ValueParser.formatNumber(minimum))) }
        if let maximum { f.append(("maximum", ValueParser.formatNumber(maximum))) }
        return f
    }

    private static func text(_ unit: String) -> [(String, String)] { [("type", string("text")), ("unit", string(unit))] }
    private static func string(_ s: String) -> String { ReplyFormatter.jsonString(s) }
    private static func array(_ names: [String]) -> String { "[" + names.map(string).joined(separator: ",") + "]" }
}
