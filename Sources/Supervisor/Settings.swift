import Console

/// One setting: its key (shared by console `set`/`get`, the config file and persisted state),
/// the forms it accepts, and how its value is written back.
public struct SettingDefinition: Sendable {
    public enum Kind: Sendable, Equatable {
        case choice([String])
        case duration
        case iso
        case ev
        case kelvin
        case tint
        case dioptres
        case gains
        case onOff
        /// A format index or WxH@fps, checked against the camera's table when applied.
        case format
    }

    public var key: String
    public var kind: Kind
    public var summary: String
    public var defaultValue: String

    /// Parses a value in any accepted form and returns its canonical text.
    public func normalise(_ text: String) throws(ConsoleError) -> String {
        switch kind {
        case .choice(let allowed): return try ValueParser.choice(text, from: allowed)
        case .duration: return ValueParser.formatShutter(try ValueParser.duration(text))
        case .iso: return ValueParser.formatNumber(try ValueParser.iso(text))
        case .ev:
            let v = try ValueParser.ev(text)
            return (v > 0 ? "+" : "") + ValueParser.formatNumber(v)
        case .kelvin: return ValueParser.formatNumber(try ValueParser.kelvin(text)) + "K"
        case .tint:
            guard let v = Double(text.trimmingCharacters(in: .whitespaces)), v.isFinite else {
                throw ConsoleError(.badValue, "\"\(text)\" is not a tint; use a number from -150 (green) to +150 (magenta)")
            }
            return ValueParser.formatNumber(v)
        case .dioptres: return ValueParser.formatNumber(try ValueParser.dioptres(text))
        case .gains:
            let g = try ValueParser.gains(text)
            return ValueParser.formatNumber(g.red) + "," + ValueParser.formatNumber(g.blue)
        case .onOff: return try ValueParser.bool(text) ? "on" : "off"
        case .format:
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            guard !t.isEmpty, !t.contains(" ") else { throw ConsoleError(.badValue, "format is an index or WxH@fps, e.g. 1920x1080@60") }
            return t
        }
    }

    /// Accepted forms, for help and errors.
    public var forms: String {
        switch kind {
        case .choice(let allowed): return allowed.joined(separator: "|")
        case .duration: return "1/60, 16.7ms, 16667us, 0.5s"
        case .iso: return "ISO 400 or 400"
        case .ev: return "+1.5 EV, -1"
        case .kelvin: return "5600K"
        case .tint: return "-150…+150"
        case .dioptres: return "dioptres (2.5), inf, or a distance (0.5m)"
        case .gains: return "red,blue (1.9,1.6)"
        case .onOff: return "on|off"
        case .format: return "index or WxH@fps"
        }
    }
}

/// The one schema of settings, used by the console, the config file and persistence.
public enum SettingsSchema {
    public static let all: [SettingDefinition] = [
        .init(key: "format", kind: .format, summary: "active camera format (see formats)", defaultValue: "0"),
        .init(key: "exposure.mode", kind: .choice(["auto", "locked", "custom"]), summary: "auto exposure, held, or custom duration+ISO", defaultValue: "auto"),
        .init(key: "exposure.duration", kind: .duration, summary: "custom exposure duration", defaultValue: "1/60"),
        .init(key: "exposure.iso", kind: .iso, summary: "custom ISO (100 × analogue gain)", defaultValue: "100"),
        .init(key: "exposure.bias", kind: .ev, summary: "exposure bias in auto and locked modes", defaultValue: "0"),
        .init(key: "focus.mode", kind: .choice(["locked", "auto", "continuous"]), summary: "manual lens, single scan, or continuous AF", defaultValue: "continuous"),
        .init(key: "focus.lens", kind: .dioptres, summary: "lens position when locked, dioptres (0 = infinity)", defaultValue: "0"),
        .init(key: "wb.mode", kind: .choice(["auto", "locked", "gains", "temperature"]), summary: "auto WB, held, given gains, or temperature+tint", defaultValue: "auto"),
        .init(key: "wb.gains", kind: .gains, summary: "red,blue gains for wb.mode gains", defaultValue: "1,1"),
        .init(key: "wb.temperature", kind: .kelvin, summary: "colour temperature for wb.mode temperature", defaultValue: "5500K"),
        .init(key: "wb.tint", kind: .tint, summary: "tint for wb.mode temperature (+ magenta, − green)", defaultValue: "0"),
        .init(key: "stabilization.lens", kind: .onOff, summary: "lens-style stabilization during brackets", defaultValue: "off"),
        .init(key: "stabilization.still", kind: .onOff, summary: "automatic still stabilization for long exposures", defaultValue: "on"),
        .init(key: "stabilization.video", kind: .choice(["off", "standard", "cinematic", "auto"]), summary: "preferred video stabilization mode", defaultValue: "off"),
        .init(key: "capture.format", kind: .choice(["dng", "jpeg", "both"]), summary: "files written per frame", defaultValue: "both"),
        .init(key: "display.zebra", kind: .onOff, summary: "viewfinder: zebra stripes on clipped highlights", defaultValue: "off"),
        .init(key: "display.peaking", kind: .onOff, summary: "viewfinder: focus peaking on edges", defaultValue: "off"),
    ]

    public static func definition(_ key: String) -> SettingDefinition? { all.first { $0.key == key } }

    /// The defaults, keyed.
    public static var defaults: [String: String] {
        Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0.defaultValue) })
    }

    /// Validates one `key = value` (console or config file) and returns the canonical value.
    public static func validate(key: String, value: String) throws(ConsoleError) -> String {
        guard let def = definition(key) else {
            throw ConsoleError(.unknownKey, "unknown setting \"\(key)\"; keys: \(all.map(\.key).joined(separator: " "))")
        }
        return try def.normalise(value)
    }
}

import Foundation  // trimmingCharacters
