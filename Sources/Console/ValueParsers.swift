import Units

/// Parsers for the natural value forms the console and the config file accept.
///
/// Every parser throws `bad-value` with the forms it accepts; range checks belong to the caller,
/// which knows the device's limits.
public enum ValueParser {
    /// A duration: "1/60" (seconds as a fraction), "16.7ms", "16667us" / "16667µs", "0.5s", "250ns",
    /// or a bare number of seconds ("2", "0.004").
    public static func duration(_ text: String) throws(ConsoleError) -> Duration {
        let s = text.trimmingSpaces.lowercased()
        let bad = ConsoleError(.badValue, "\"\(text)\" is not a duration; use 1/60, 16.7ms, 16667us or 0.5s")
        if let slash = s.firstIndex(of: "/") {
            var denominatorText = String(s[s.index(after: slash)...])
            if denominatorText.hasSuffix("s") { denominatorText.removeLast() }
            guard let n = Double(s[..<slash]), let d = Double(denominatorText), d > 0, n >= 0,
                  n.isFinite, d.isFinite else { throw bad }
            return try seconds(n / d, original: text)
        }
        let units: [(String, Double)] = [("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("ns", 1e-9), ("s", 1)]
        for (suffix, scale) in units where s.hasSuffix(suffix) {
            guard let v = Double(s.dropLast(suffix.count).trimmingSpaces), v >= 0, v.isFinite else { throw bad }
            return try seconds(v * scale, original: text)
        }
        guard let v = Double(s), v >= 0, v.isFinite else { throw bad }
        return try seconds(v, original: text)
    }

    /// A span of clock time for sequences (a time-lapse's interval and length, a simulated sunset):
    /// "10s", "2m" or "2min", "1.5h", "1h30m", "250ms", or a bare number of seconds; at most 30 days.
    public static func span(_ text: String) throws(ConsoleError) -> Duration {
        let s = text.trimmingSpaces.lowercased()
        let bad = ConsoleError(.badValue, "\"\(text)\" is not a span of time; use 10s, 2m, 1.5h or 1h30m")
        guard !s.isEmpty else { throw bad }
        if let v = Double(s) { return try spanSeconds(v, original: text) }
        if s.hasSuffix("ms") || s.hasSuffix("us") || s.hasSuffix("µs") {
            return try duration(text)
        }
        // Number-unit pairs: 1h30m, 2m, 10s.
        var total = 0.0, number = ""
        var rest = Substring(s)
        while !rest.isEmpty {
            let c = rest.removeFirst()
            if c.isNumber || c == "." { number.append(c); continue }
            var unit = String(c)
            while let next = rest.first, next.isLetter { unit.append(next); rest.removeFirst() }
            guard let v = Double(number), v.isFinite else { throw bad }
            switch unit {
            case "h": total += v * 3600
            case "m", "min": total += v * 60
            case "s": total += v
            default: throw bad
            }
            number = ""
        }
        guard number.isEmpty else { throw bad }
        return try spanSeconds(total, original: text)
    }

    private static func spanSeconds(_ value: Double, original: String) throws(ConsoleError) -> Duration {
        guard value >= 0, value.isFinite else { throw ConsoleError(.badValue, "\"\(original)\" is not a span of time") }
        guard value <= 30 * 86_400 else { throw ConsoleError(.badValue, "\"\(original)\" is longer than 30 days") }
        return .nanoseconds(Int64((value * 1e9).rounded()))
    }

    /// A span as `span` reads it back: "1h30m", "2m", "10s", "0.5s".
    public static func formatSpan(_ span: Duration) -> String { ValueText.span(span) }

    private static func seconds(_ value: Double, original: String) throws(ConsoleError) -> Duration {
        guard value <= 86_400 else { throw ConsoleError(.badValue, "\"\(original)\" is longer than a day") }
        return .nanoseconds(Int64((value * 1e9).rounded()))
    }

    /// An ISO sensitivity: "ISO 400", "iso400" or "400".
    public static func iso(_ text: String) throws(ConsoleError) -> Double {
        var s = text.trimmingSpaces.lowercased()
        if s.hasPrefix("iso") { s = String(s.dropFirst(3)).trimmingSpaces }
        guard let v = Double(s), v > 0, v.isFinite else {
            throw ConsoleError(.badValue, "\"\(text)\" is not an ISO value; use ISO 400 or 400")
        }
        return v
    }

    /// An exposure bias in EV: "+1.5 EV", "-1ev", "0.7".
    public static func ev(_ text: String) throws(ConsoleError) -> Double {
        var s = text.trimmingSpaces.lowercased()
        if s.hasSuffix("ev") { s = String(s.dropLast(2)).trimmingSpaces }
        guard let v = Double(s), v.isFinite else {
            throw ConsoleError(.badValue, "\"\(text)\" is not an EV value; use +1.5 EV, -1 or 0.7")
        }
        return v
    }

    /// A colour temperature in kelvin: "5600K" or "5600".
    public static func kelvin(_ text: String) throws(ConsoleError) -> Double {
        var s = text.trimmingSpaces.lowercased()
        if s.hasSuffix("k") { s = String(s.dropLast()).trimmingSpaces }
        guard let v = Double(s), v > 0, v.isFinite else {
            throw ConsoleError(.badValue, "\"\(text)\" is not a colour temperature; use 5600K or 5600")
        }
        return v
    }

    /// A lens position in dioptres: "2.5", "2.5D", "2.5dpt", "inf" (0 D), or a distance "0.5m" (2 D).
    public static func dioptres(_ text: String) throws(ConsoleError) -> Double {
        let s = text.trimmingSpaces.lowercased()
        let bad = ConsoleError(.badValue, "\"\(text)\" is not a lens position; use dioptres (2.5, 2.5D), inf, or a distance (0.5m)")
        if s == "inf" || s == "infinity" { return 0 }
        if s.hasSuffix("m") && !s.hasSuffix("mm") {
            guard let metres = Double(s.dropLast().trimmingSpaces), metres > 0, metres.isFinite else { throw bad }
            return 1 / metres
        }
        var number = s
        for suffix in ["dpt", "d"] where number.hasSuffix(suffix) { number = String(number.dropLast(suffix.count)); break }
        guard let v = Double(number.trimmingSpaces), v >= 0, v.isFinite else { throw bad }
        return v
    }

    /// A pair of gains "red,blue" ("1.9,1.6").
    public static func gains(_ text: String) throws(ConsoleError) -> (red: Double, blue: Double) {
        let parts = text.split(separator: ",").map { String($0).trimmingSpaces }
        guard parts.count == 2, let r = Double(parts[0]), let b = Double(parts[1]), r > 0, b > 0, r.isFinite, b.isFinite else {
            throw ConsoleError(.badValue, "\"\(text)\" is not a gain pair; use red,blue such as 1.9,1.6")
        }
        return (r, b)
    }

    /// A switch: on/off, true/false, yes/no, 1/0.
    public static func bool(_ text: String) throws(ConsoleError) -> Bool {
        switch text.trimmingSpaces.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw ConsoleError(.badValue, "\"\(text)\" is not on or off")
        }
    }

    /// One of a fixed set of words.
    public static func choice(_ text: String, from allowed: [String]) throws(ConsoleError) -> String {
        let s = text.trimmingSpaces.lowercased()
        guard allowed.contains(s) else {
            throw ConsoleError(.badValue, "\"\(text)\" is not one of \(allowed.joined(separator: "|"))")
        }
        return s
    }

    /// Formats a duration the way people write shutter speeds: "1/60" below a second, else "2s".
    public static func formatShutter(_ d: Duration) -> String { ValueText.shutter(d) }

    /// A number with at most 3 decimals and no trailing zeros.
    public static func formatNumber(_ v: Double) -> String { ValueText.number(v) }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
