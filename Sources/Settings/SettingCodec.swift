import Foundation  // trimmingCharacters
import Camera
import Console
import Controls

/// What kind of value a setting takes: what `help`, errors and the settings JSON show of it.
public enum SettingKind: Sendable, Equatable {
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
    /// A zoom factor ("2", "2x", "1.5"), from 1 up to the format's maximum (checked when applied).
    case zoom
    /// A bit rate in bits per second: "10M", "2500k" or "8000000"; canonical "10M", "2.5M", "800k".
    case bitrate
    /// A number within the range, with an optional unit suffix ("30", "2.5s", "10min"); canonical without it.
    case number(ClosedRange<Double>, unit: String)
    /// An MQTT broker: off, mqtt://HOST:PORT or mqtts://HOST:PORT.
    case broker
    /// A file: an absolute path, or none.
    case file
    /// A name that becomes an MQTT topic level: letters, digits, `-`, `_`, `.`.
    case name
    /// `off`, or an IPv4 or bracketed IPv6 address and a port ("0.0.0.0:8080", "[::]:8080").
    case listenAddress
    /// `off`, or a PEM certificate file and its private key file (absolute paths).
    case certificateAndKey
    /// Structured text whose accepted forms are given (a motion zone list, a trigger's action or schedule).
    case text(forms: String)

    /// Accepted forms, for help and errors.
    public var forms: String {
        switch self {
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
        case .listenAddress: return "off, IPv4ADDRESS:PORT (0.0.0.0:8080) or [IPv6ADDRESS]:PORT ([::]:8080)"
        case .certificateAndKey: return "off, or CERTFILE KEYFILE (absolute paths to PEM files)"
        case .number(let range, let unit):
            return "\(ValueParser.formatNumber(range.lowerBound))…\(ValueParser.formatNumber(range.upperBound))\(unit.isEmpty ? "" : " " + unit)"
        case .broker: return "off, mqtt://HOST:PORT or mqtts://HOST:PORT"
        case .file: return "none or an absolute path"
        case .name: return "1…64 letters, digits, - _ ."
        case .text(let forms): return forms
        }
    }
}

/// How one setting's typed value is read from text (console, config file, saved JSON) and written
/// back as its canonical text. The only place where a setting is text.
public struct SettingCodec<Value: Equatable & Sendable>: Sendable {
    public let kind: SettingKind
    let parse: @Sendable (_ text: String, _ key: String) throws(ConsoleError) -> Value
    let format: @Sendable (Value) -> String
}

extension SettingCodec where Value: RawRepresentable<String> {
    /// One of the enum's raw values.
    static func choice(_ allowed: [Value]) -> SettingCodec {
        let names = allowed.map(\.rawValue)
        return SettingCodec(kind: .choice(names), parse: { text, _ throws(ConsoleError) in
            let name = try ValueParser.choice(text, from: names)
            return allowed[names.firstIndex(of: name) ?? 0]
        }, format: { $0.rawValue })
    }
}

extension SettingCodec where Value == Bool {
    /// "on" or "off" (also yes/no, true/false, 1/0).
    static var onOff: SettingCodec {
        SettingCodec(kind: .onOff, parse: { text, _ throws(ConsoleError) in try ValueParser.bool(text) }, format: { $0 ? "on" : "off" })
    }
}

extension SettingCodec where Value == Int {
    /// An exposure duration, kept in whole microseconds; written as a shutter speed ("1/60").
    static var durationMicroseconds: SettingCodec {
        SettingCodec(kind: .duration, parse: { text, _ throws(ConsoleError) in Int(try ValueParser.duration(text).microseconds) },
                     format: { ValueParser.formatShutter(.microseconds($0)) })
    }

    /// Bits per second from "10M", "2500k", "8000000" (100k…200M).
    static var bitrate: SettingCodec {
        SettingCodec(kind: .bitrate, parse: { text, key throws(ConsoleError) in
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
        }, format: { bits in
            bits >= 1_000_000 ? ValueParser.formatNumber(Double(bits) / 1e6) + "M" : ValueParser.formatNumber(Double(bits) / 1e3) + "k"
        })
    }
}

extension SettingCodec where Value == Double {
    static var iso: SettingCodec {
        SettingCodec(kind: .iso, parse: { text, _ throws(ConsoleError) in try ValueParser.iso(text) }, format: ValueParser.formatNumber)
    }

    static var ev: SettingCodec {
        SettingCodec(kind: .ev, parse: { text, _ throws(ConsoleError) in try ValueParser.ev(text) },
                     format: { ($0 > 0 ? "+" : "") + ValueParser.formatNumber($0) })
    }

    static var kelvin: SettingCodec {
        SettingCodec(kind: .kelvin, parse: { text, _ throws(ConsoleError) in try ValueParser.kelvin(text) },
                     format: { ValueParser.formatNumber($0) + "K" })
    }

    static var tint: SettingCodec {
        SettingCodec(kind: .tint, parse: { text, _ throws(ConsoleError) in
            guard let v = Double(text.trimmingCharacters(in: .whitespaces)), v.isFinite else {
                throw ConsoleError(.badValue, "\"\(text)\" is not a tint; use a number from -150 (green) to +150 (magenta)")
            }
            return v
        }, format: ValueParser.formatNumber)
    }

    static var dioptres: SettingCodec {
        SettingCodec(kind: .dioptres, parse: { text, _ throws(ConsoleError) in try ValueParser.dioptres(text) }, format: ValueParser.formatNumber)
    }

    /// Whole milliseconds within `range`, kept as a Double of milliseconds.
    static func milliseconds(_ range: ClosedRange<Int>, example: String) -> SettingCodec {
        SettingCodec(kind: .milliseconds(range), parse: { text, key throws(ConsoleError) in
            var t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t.hasSuffix("ms") { t.removeLast(2) }
            guard let ms = Int(t) else { throw ConsoleError(.badValue, "\(key) \"\(text)\" is not whole milliseconds; e.g. \(example)") }
            guard range.contains(ms) else {
                throw ConsoleError(.outOfRange, "\(key) \"\(text)\" must be whole milliseconds from \(range.lowerBound) to \(range.upperBound), e.g. \(example)")
            }
            return Double(ms)
        }, format: { "\(Int($0.rounded()))ms" })
    }

    static var zoom: SettingCodec {
        SettingCodec(kind: .zoom, parse: { text, key throws(ConsoleError) in
            var t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t.hasSuffix("x") { t.removeLast() }
            guard let v = Double(t), v.isFinite else { throw ConsoleError(.badValue, "\(key) \"\(text)\" is not a zoom factor; e.g. 2 or 1.5x") }
            guard v >= 1, v <= 64 else { throw ConsoleError(.outOfRange, "\(key) \(text) must be from 1 (the whole field) up to the format's maximum (see formats)") }
            return v
        }, format: ValueParser.formatNumber)
    }

    /// A number within `range`, with an optional unit suffix.
    static func number(_ range: ClosedRange<Double>, unit: String, example: String) -> SettingCodec {
        SettingCodec(kind: .number(range, unit: unit), parse: { text, key throws(ConsoleError) in
            var t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if !unit.isEmpty, t.hasSuffix(unit) { t.removeLast(unit.count) }
            guard let v = Double(t.trimmingCharacters(in: .whitespaces)), v.isFinite else {
                throw ConsoleError(.badValue, "\(key) \"\(text)\" is not a number; e.g. \(example)")
            }
            guard range.contains(v) else {
                throw ConsoleError(.outOfRange, "\(key) \(text) must be from \(ValueParser.formatNumber(range.lowerBound)) to \(ValueParser.formatNumber(range.upperBound))\(unit.isEmpty ? "" : " " + unit)")
            }
            return v
        }, format: ValueParser.formatNumber)
    }
}

extension SettingCodec where Value == WhiteBalanceGains {
    static var gains: SettingCodec {
        SettingCodec(kind: .gains, parse: { text, _ throws(ConsoleError) in
            let g = try ValueParser.gains(text)
            return WhiteBalanceGains(red: g.red, blue: g.blue)
        }, format: { ValueParser.formatNumber($0.red) + "," + ValueParser.formatNumber($0.blue) })
    }
}

extension SettingCodec where Value == String {
    /// A format index or WxH@fps, lower case; resolved against the camera's table when applied.
    static var formatSpec: SettingCodec {
        SettingCodec(kind: .format, parse: { text, _ throws(ConsoleError) in
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            guard !t.isEmpty, !t.contains(" ") else { throw ConsoleError(.badValue, "format is an index or WxH@fps, e.g. 1920x1080@60") }
            return t
        }, format: { $0 })
    }
}

extension SettingCodec where Value == ButtonAction? {
    /// A button gesture's action; nil is "none".
    static var buttonAction: SettingCodec {
        SettingCodec(kind: .buttonAction, parse: { text, key throws(ConsoleError) in
            let canonical: String
            do throws(ButtonSettingsError) { canonical = try ButtonSettings.normaliseAction(text, key: key) }
            catch { throw ConsoleError(.badValue, error.message) }
            return canonical == "none" ? nil : ButtonAction(parsing: canonical)
        }, format: { $0?.description ?? "none" })
    }
}

extension SettingCodec where Value == BrokerAddress? {
    /// `off` or a broker's address.
    static var broker: SettingCodec {
        SettingCodec(kind: .broker, parse: { text, key throws(ConsoleError) in
            let t = text.trimmingCharacters(in: .whitespaces)
            if t.lowercased() == "off" { return nil }
            guard let address = BrokerAddress(parsing: t) else {
                throw ConsoleError(.badValue, "\(key) \"\(text)\" is not a broker; use off, mqtt://HOST:PORT or mqtts://HOST:PORT")
            }
            return address
        }, format: { $0?.description ?? "off" })
    }
}

extension SettingCodec where Value == String? {
    /// `none` or an absolute path (whether the file is usable is checked when it is committed).
    static var file: SettingCodec {
        SettingCodec(kind: .file, parse: { text, key throws(ConsoleError) in
            let t = text.trimmingCharacters(in: .whitespaces)
            if t.lowercased() == "none" { return nil }
            guard t.hasPrefix("/"), t.count <= 1024, !t.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ConsoleError(.badValue, "\(key) \"\(text)\" is not a file; use none or an absolute path")
            }
            return t
        }, format: { $0 ?? "none" })
    }
}

extension SettingCodec where Value == String {
    /// A group or rig name: 1 to 64 letters, digits, `-`, `_` or `.` (an MQTT topic level).
    static var name: SettingCodec {
        SettingCodec(kind: .name, parse: { text, key throws(ConsoleError) in
            let t = text.trimmingCharacters(in: .whitespaces)
            guard (1...64).contains(t.count), t.allSatisfy(FleetSettings.isNameCharacter) else {
                throw ConsoleError(.badValue, "\(key) \"\(text)\" is not a name; use 1 to 64 letters, digits, - _ or .")
            }
            return t
        }, format: { $0 })
    }
}

/// `remote.listen`: off, or the IPv4 or IPv6 address and TCP port the browser remote listens on.
public enum RemoteListen: Equatable, Sendable {
    case off
    /// `address`: dotted IPv4 ("0.0.0.0" for every interface), or IPv6 without brackets in
    /// inet_ntop's form ("::" for every interface, "::1"); `port` 0 lets the system pick one.
    case address(String, port: Int)

    /// The canonical text: "off", "ADDRESS:PORT" or "[IPv6ADDRESS]:PORT".
    public var text: String {
        switch self {
        case .off: return "off"
        case .address(let address, let port): return Self.text(address, port: port)
        }
    }

    /// "ADDRESS:PORT", with the address in brackets when it is IPv6.
    public static func text(_ address: String, port: Int) -> String {
        address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
    }

    /// Parses "off", "ADDRESS:PORT" (IPv4) or "[ADDRESS]:PORT" (IPv6, as inet_pton reads it; no
    /// zone), port 0…65535.
    public static func parse(_ text: String, key: String) throws(ConsoleError) -> RemoteListen {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.lowercased() == "off" { return .off }
        if t.hasPrefix("[") { return try parseIPv6(t, text: text, key: key) }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        let octets = parts.first.map { $0.split(separator: ".", omittingEmptySubsequences: false) } ?? []
        guard parts.count == 2, octets.count == 4,
              octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && (UInt8($0) != nil) }),
              let port = Int(parts[1]), parts[1].allSatisfy(\.isASCII) else {
            throw ConsoleError(.badValue, "\(key) \"\(text)\" is not off, IPv4ADDRESS:PORT or [IPv6ADDRESS]:PORT; e.g. 0.0.0.0:8080 or [::]:8080")
        }
        guard (0...65535).contains(port) else {
            throw ConsoleError(.outOfRange, "\(key) port \(port) must be from 0 to 65535")
        }
        return .address(octets.map { String(UInt8($0) ?? 0) }.joined(separator: "."), port: port)
    }

    /// "[ADDRESS]:PORT": the address read by inet_pton(AF_INET6) and written back by inet_ntop.
    private static func parseIPv6(_ t: String, text: String, key: String) throws(ConsoleError) -> RemoteListen {
        let bad = ConsoleError(.badValue, "\(key) \"\(text)\" is not [IPv6ADDRESS]:PORT; e.g. [::]:8080 or [::1]:8080")
        guard let close = t.firstIndex(of: "]") else { throw bad }
        let inside = String(t[t.index(after: t.startIndex)..<close])
        let rest = t[t.index(after: close)...]
        guard rest.hasPrefix(":"), rest.count > 1, rest.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(rest.dropFirst()) else { throw bad }
        var address = in6_addr()
        guard inside.count <= 45, inet_pton(AF_INET6, inside, &address) == 1 else { throw bad }
        var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &out, socklen_t(out.count)) != nil else { throw bad }
        guard (0...65535).contains(port) else {
            throw ConsoleError(.outOfRange, "\(key) port \(port) must be from 0 to 65535")
        }
        return .address(String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: port)
    }
}

extension SettingCodec where Value == RemoteListen {
    /// `off` or `ADDRESS:PORT`.
    static var listenAddress: SettingCodec {
        SettingCodec(kind: .listenAddress, parse: { text, key throws(ConsoleError) in try RemoteListen.parse(text, key: key) },
                     format: { $0.text })
    }
}

/// `remote.tls`: plain HTTP, or HTTPS with a PEM certificate (chain) and its private key.
public enum RemoteTLS: Equatable, Sendable {
    case off
    /// Absolute paths; whether the files are usable is checked when the setting is committed.
    case files(certificate: String, key: String)

    /// The canonical text: "off" or "CERTFILE KEYFILE".
    public var text: String {
        switch self {
        case .off: return "off"
        case .files(let certificate, let key): return "\(certificate) \(key)"
        }
    }

    /// Parses "off" or two absolute paths separated by white space.
    public static func parse(_ text: String, key: String) throws(ConsoleError) -> RemoteTLS {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.count == 1, words[0].lowercased() == "off" { return .off }
        guard words.count == 2, words.allSatisfy({ $0.hasPrefix("/") && $0.count <= 1024 }),
              !words.joined().unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ConsoleError(.badValue, "\(key) \"\(text)\" is not off or CERTFILE KEYFILE; e.g. /etc/tripod/remote.crt /etc/tripod/remote.key")
        }
        return .files(certificate: words[0], key: words[1])
    }
}

extension SettingCodec where Value == RemoteTLS {
    /// `off` or `CERTFILE KEYFILE`.
    static var certificateAndKey: SettingCodec {
        SettingCodec(kind: .certificateAndKey, parse: { text, key throws(ConsoleError) in try RemoteTLS.parse(text, key: key) },
                     format: { $0.text })
    }
}
