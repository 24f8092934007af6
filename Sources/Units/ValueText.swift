/// How values read as words, the same in the console's replies, the sidecars' plan summaries and
/// the domain's messages: shutter durations, spans of clock time, plain numbers. Pure; no parsing
/// (that is the console's `ValueParser`, which formats through these).
public enum ValueText {
    /// A duration the way people write shutter speeds: "1/60" below a second, else "2s".
    public static func shutter(_ d: Duration) -> String {
        let seconds = d.secondsValue
        if seconds <= 0 { return "0" }
        if seconds < 1 {
            let reciprocal = 1 / seconds
            if abs(reciprocal - reciprocal.rounded()) < 1e-4 * reciprocal { return "1/\(Int(reciprocal.rounded()))" }
            return "\(number(seconds * 1000))ms"
        }
        return "\(number(seconds))s"
    }

    /// A span of clock time as the console reads it back: "1h30m", "2m", "10s", "0.5s".
    public static func span(_ span: Duration) -> String {
        let total = (span.secondsValue * 1000).rounded() / 1000
        if total < 60 || total != total.rounded() { return number(total) + "s" }
        let whole = Int(total)
        let (h, m, sec) = (whole / 3600, whole % 3600 / 60, whole % 60)
        return (h > 0 ? "\(h)h" : "") + (m > 0 ? "\(m)m" : "") + (sec > 0 ? "\(sec)s" : "")
    }

    /// A number with at most 3 decimals and no trailing zeros.
    public static func number(_ v: Double) -> String {
        // From 1e15 up a Double steps by 1/8 or more: nothing to round, and the ×1000 would blur it.
        let rounded = abs(v) < 1e15 ? (v * 1000).rounded() / 1000 : v
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var s = String(rounded)
        if s.contains("e") { return s }
        while s.hasSuffix("0") { s.removeLast() }
        // A whole number too large for the Int64 path reads "1000000000000000.0": no bare point.
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var secondsValue: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
