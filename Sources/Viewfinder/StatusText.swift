import Foundation

/// The strings the overlay shows, from a `ViewfinderStatus`: short for compact layouts, long for
/// full ones. Pure formatting; ASCII only (the bitmap font's range).
public enum StatusText {
    /// "1/125", "1/8000", "0.5s", "2s"; "--" when unknown.
    public static func exposure(_ microseconds: Int?) -> String {
        guard let us = microseconds, us > 0 else { return "--" }
        if us < 400_000 { return "1/\(Int((1_000_000 / Double(us)).rounded()))" }
        let seconds = Double(us) / 1_000_000
        return seconds < 10 && seconds.rounded() != seconds ? String(format: "%.1fs", seconds)
                                                             : "\(Int(seconds.rounded()))s"
    }

    /// "+0.7", "-1.3", "0.0" EV (one decimal, sign always shown unless zero).
    public static func ev(_ value: Double?) -> String {
        guard let v = value else { return "--" }
        let text = String(format: "%.1f", abs(v))
        return text == "0.0" ? "0.0" : (v < 0 ? "-" : "+") + text
    }

    public static func whiteBalance(_ wb: ViewfinderStatus.WhiteBalance, compact: Bool) -> String {
        switch wb {
        case .auto: return "AWB"
        case .preset(let name): return compact ? String(name.uppercased().prefix(4)) : name.uppercased()
        case .kelvin(let k): return "\(k)K"
        }
    }

    /// "MF 2.00D", "AF-C 0.50D" (dioptres; 0 is infinity, shown "INF").
    public static func focus(_ mode: String, _ dioptres: Double?) -> String {
        guard let d = dioptres else { return mode }
        return d <= 0.005 ? "\(mode) INF" : mode + String(format: " %.2fD", d)
    }

    public static func fps(_ value: Double?) -> String {
        guard let f = value else { return "--fps" }
        return f.rounded() == f || f >= 10 ? "\(Int(f.rounded()))fps" : String(format: "%.1ffps", f)
    }

    /// The lines of each bar for a size class: top, bottom, and (regular/full) the info line.
    public static func lines(_ s: ViewfinderStatus, sizeClass: ViewfinderLayout.SizeClass)
        -> (top: [String], bottom: [String]) {
        let compact = sizeClass == .compact
        let ae = s.autoExposure ? (compact ? "A" : "AUTO") : (compact ? "M" : "MANUAL")
        let iso = s.iso.map { "ISO\(compact ? "" : " ")\($0)" } ?? "ISO --"
        let exposureLine = [ae, exposure(s.exposureDurationMicroseconds), iso,
                            ev(s.exposureBiasEV) + "EV", whiteBalance(s.whiteBalance, compact: compact)]
            .joined(separator: compact ? " " : "  ")
        let zoom = s.zoomFactor.flatMap { $0 > 1.0001 ? String(format: "%.1fx", $0) : nil } ?? ""
        let focusLine = [focus(s.focusMode, s.lensPositionDioptres), s.format, fps(s.framesPerSecond), zoom]
            .filter { !$0.isEmpty }.joined(separator: compact ? " " : "  ")
        var info: [String] = []
        if let b = s.bracket { info.append("BRK \(b.index)/\(b.count) \(ev(b.evOffset))EV") }
        if let st = s.stabilization {
            info.append(compact ? "IS \(st.mode)" :
                "STAB \(st.mode) roll " + String(format: "%+.1fdeg", st.rollDegrees)
                    + " margin \(Int((st.marginUsed * 100).rounded()))%")
        }
        if !s.imuState.isEmpty { info.append("IMU \(s.imuState)") }
        if compact {
            // One line each: the info joins the bottom line only if there is something.
            return ([exposureLine], [focusLine] + (info.isEmpty ? [] : [info.joined(separator: " ")]))
        }
        let infoLine = info.joined(separator: "   ")
        return ([exposureLine, s.message ?? ""], [infoLine, focusLine])
    }
}
