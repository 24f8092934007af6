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
        /// Whole milliseconds within the range ("300" or "300ms"); canonical "300ms".
        case milliseconds(ClosedRange<Int>)
        /// A shutter-button action: capture, bracket:<preset>, record, af or none.
        case buttonAction
        /// A zoom factor ("2", "2x", "1.5"), at least 1; the format's maximum is checked when applied.
        case zoom
        /// A bit rate in bits per second: "10M", "2500k" or "8000000"; canonical "10M", "2.5M", "800k".
        case bitrate
        /// A number within the range, with an optional unit suffix ("30", "2.5s", "10min"); canonical without it.
        case number(ClosedRange<Double>, unit: String)
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
        case .milliseconds(let range):
            var t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t.hasSuffix("ms") { t.removeLast(2) }
            guard let ms = Int(t) else {
                throw ConsoleError(.badValue, "\(key) \"\(text)\" is not whole milliseconds; e.g. \(defaultValue)")
            }
            guard range.contains(ms) else {
                throw ConsoleError(.outOfRange, "\(key) \"\(text)\" must be whole milliseconds from \(range.lowerBound) to \(range.upperBound), e.g. \(defaultValue)")
            }
            return "\(ms)ms"
        case .buttonAction:
            return try ButtonSettings.normaliseAction(text, key: key)
        case .zoom:
            var t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t.hasSuffix("x") { t.removeLast() }
            guard let v = Double(t), v.isFinite else { throw ConsoleError(.badValue, "\(key) \"\(text)\" is not a zoom factor; e.g. 2 or 1.5x") }
            guard v >= 1, v <= 64 else { throw ConsoleError(.outOfRange, "\(key) \(text) must be from 1 (the whole field) up to the format's maximum (see formats)") }
            return ValueParser.formatNumber(v)
        case .bitrate:
            let bits = try Self.bitrate(text, key: key)
            if bits % 1_000_000 == 0 || bits >= 1_000_000 { return ValueParser.formatNumber(Double(bits) / 1e6) + "M" }
            return ValueParser.formatNumber(Double(bits) / 1e3) + "k"
        case .number(let range, let unit):
            var t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if !unit.isEmpty, t.hasSuffix(unit) { t.removeLast(unit.count) }
            guard let v = Double(t.trimmingCharacters(in: .whitespaces)), v.isFinite else {
                throw ConsoleError(.badValue, "\(key) \"\(text)\" is not a number; e.g. \(defaultValue)")
            }
            guard range.contains(v) else {
                throw ConsoleError(.outOfRange, "\(key) \(text) must be from \(ValueParser.formatNumber(range.lowerBound)) to \(ValueParser.formatNumber(range.upperBound))\(unit.isEmpty ? "" : " " + unit)")
            }
            return ValueParser.formatNumber(v)
        }
    }

    /// Bits per second from "10M", "2500k", "8000000" (100k…200M).
    static func bitrate(_ text: String, key: String) throws(ConsoleError) -> Int {
        var t = text.trimmingCharacters(in: .whitespaces).lowercased()
        var scale = 1.0
        if t.hasSuffix("bps") { t.removeLast(3) }
        if t.hasSuffix("m") { scale = 1e6; t.removeLast() } else if t.hasSuffix("k") { scale = 1e3; t.removeLast() }
        guard let v = Double(t), v.isFinite else {
            throw ConsoleError(.badValue, "\(key) \"\(text)\" is not a bit rate; e.g. 10M, 2500k or 8000000")
        }
        let bits = (v * scale).rounded()
        guard bits >= 100_000, bits <= 200_000_000 else {
            throw ConsoleError(.outOfRange, "\(key) \(text) must be from 100k to 200M bits per second")
        }
        return Int(bits)
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
        case .milliseconds(let range): return "\(range.lowerBound)…\(range.upperBound) ms"
        case .buttonAction: return ButtonSettings.actionForms
        case .zoom: return "1 (whole field) … the format's maximum, e.g. 2 or 1.5x"
        case .bitrate: return "bits per second: 10M, 2500k, 8000000 (100k…200M)"
        case .number(let range, let unit):
            return "\(ValueParser.formatNumber(range.lowerBound))…\(ValueParser.formatNumber(range.upperBound))\(unit.isEmpty ? "" : " " + unit)"
        }
    }
}

/// The one schema of settings, used by the console, the config file and persistence.
public enum SettingsSchema {
    public static let all: [SettingDefinition] = [
        .init(key: "format", kind: .format, summary: "active camera format (see formats)", defaultValue: "0"),
        .init(key: "zoom", kind: .zoom, summary: "digital zoom factor through ScalerCrop (processed frames and JPEG; not DNG)", defaultValue: "1"),
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
        .init(key: "button.debounce", kind: .milliseconds(1...200), summary: "shutter button debounce window", defaultValue: "10ms"),
        .init(key: "button.double", kind: .milliseconds(50...2000), summary: "longest release-to-press gap of a double press", defaultValue: "300ms"),
        .init(key: "button.long", kind: .milliseconds(200...10000), summary: "hold time from which a press is a long press", defaultValue: "800ms"),
        .init(key: "button.press", kind: .buttonAction, summary: "action of a single press", defaultValue: "capture"),
        .init(key: "button.double-press", kind: .buttonAction, summary: "action of a double press", defaultValue: "none"),
        .init(key: "button.long-press", kind: .buttonAction, summary: "action of a long press", defaultValue: "none"),
        .init(key: "button.busy", kind: .choice(["queue-one", "reject"]), summary: "capture presses while a bracket runs", defaultValue: "queue-one"),
        .init(key: "button.required", kind: .onOff, summary: "fail start-up when the board has no shutter button line", defaultValue: "off"),
        .init(key: "video.codec", kind: .choice(["h264", "mjpeg"]), summary: "video codec (H.264: the board's hardware encoder where it has one, else libx264)", defaultValue: "h264"),
        .init(key: "video.container", kind: .choice(["mp4", "mkv"]), summary: "video container (MP4 written as fragments while recording)", defaultValue: "mp4"),
        .init(key: "video.bitrate", kind: .bitrate, summary: "video bit rate", defaultValue: "10M"),
        .init(key: "video.fps", kind: .number(1...240, unit: "fps"), summary: "recording frame rate (the format's maximum when that is lower)", defaultValue: "30"),
        .init(key: "video.prerecord", kind: .number(0...60, unit: "s"), summary: "seconds of video kept before record start", defaultValue: "0"),
        .init(key: "video.split", kind: .number(0...1440, unit: "min"), summary: "minutes per file, 0 = one file", defaultValue: "0"),
        .init(key: "video.slowmotion", kind: .onOff, summary: "high-frame-rate video plays back at video.playback-fps", defaultValue: "off"),
        .init(key: "video.hdr", kind: .choice(["auto", "on", "off"]), summary: "video HDR: auto (the scene decides), on or off (formats' hdr column)", defaultValue: "auto"),
        .init(key: "video.playback-fps", kind: .number(1...240, unit: "fps"), summary: "playback rate of slow motion", defaultValue: "30"),
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
