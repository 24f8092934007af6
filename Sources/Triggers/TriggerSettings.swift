/// What a trigger does (`trigger.action`): the same vocabulary for motion, the PIR line and the
/// button's gestures.
public enum TriggerAction: Sendable, Equatable, CustomStringConvertible {
    case off
    /// A still of the settings in force.
    case capture
    /// A saved bracket preset.
    case bracket(preset: String)
    /// A recording that ends `seconds` after the last trigger (each trigger during it extends it),
    /// beginning `video.prerecord` × `video.fps` frames before the trigger frame.
    case record(seconds: Double)

    public var description: String {
        switch self {
        case .off: return "off"
        case .capture: return "capture"
        case .bracket(let preset): return "bracket \(preset)"
        case .record(let seconds): return "record \(TriggerSchedule.number(seconds))"
        }
    }

    /// The forms accepted, for help and errors.
    public static let forms = "off | capture | bracket PRESET | record SECONDS (1…3600)"

    /// Parses "off", "capture", "bracket NAME" or "record SECONDS".
    public static func parse(_ text: String) throws(TriggerSettingError) -> TriggerAction {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        switch (words.first?.lowercased(), words.count) {
        case ("off", 1), ("none", 1): return .off
        case ("capture", 1): return .capture
        case ("bracket", 2):
            let name = words[1]
            guard name.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw TriggerSettingError("trigger action \"\(text)\": a preset name is 1…64 letters, digits, - _ .")
            }
            return .bracket(preset: name)
        case ("record", 2):
            let digits = words[1].hasSuffix("s") ? String(words[1].dropLast()) : words[1]
            guard let seconds = Double(digits), seconds.isFinite, seconds >= 1, seconds <= 3600 else {
                throw TriggerSettingError("trigger action \"\(text)\": record SECONDS, 1…3600")
            }
            return .record(seconds: seconds)
        default:
            throw TriggerSettingError("trigger action \"\(text)\": \(forms)")
        }
    }
}

/// When triggers act (`trigger.schedule`): always, or between two times of the local day (the
/// window may cross midnight: 18:00-07:00 is the night).
public enum TriggerSchedule: Sendable, Equatable, CustomStringConvertible {
    case always
    /// Minutes after local midnight; `start == end` is refused.
    case window(startMinute: Int, endMinute: Int)

    public var description: String {
        switch self {
        case .always: return "always"
        case .window(let s, let e): return "\(Self.clock(s))-\(Self.clock(e))"
        }
    }

    public static let forms = "always | HH:MM-HH:MM (local time; 18:00-07:00 crosses midnight)"

    /// True when a trigger at `minuteOfDay` (0…1439, local) may act; `nil` (no wall clock) acts only
    /// when the schedule is `always`.
    public func admits(minuteOfDay: Int?) -> Bool {
        guard case .window(let start, let end) = self else { return true }
        guard let m = minuteOfDay else { return false }
        return start < end ? (m >= start && m < end) : (m >= start || m < end)
    }

    public static func parse(_ text: String) throws(TriggerSettingError) -> TriggerSchedule {
        let t = text.trimmingSpaces
        if t.lowercased() == "always" { return .always }
        let parts = t.split(separator: "-").map { String($0).trimmingSpaces }
        guard parts.count == 2, let start = minute(parts[0]), let end = minute(parts[1]) else {
            throw TriggerSettingError("trigger schedule \"\(text)\": \(forms)")
        }
        guard start != end else { throw TriggerSettingError("trigger schedule \"\(text)\": the start and end differ (use always)") }
        return .window(startMinute: start, endMinute: end)
    }

    private static func minute(_ text: String) -> Int? {
        let hm = text.split(separator: ":")
        guard hm.count == 2, hm[1].count == 2, let h = Int(hm[0]), let m = Int(hm[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        return h * 60 + m
    }

    private static func clock(_ minute: Int) -> String {
        let h = minute / 60, m = minute % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    static func number(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
}

/// The `trigger.*` settings, typed (defaults here; keys and text in the settings table).
public struct TriggerSettings: Sendable, Equatable {
    /// `trigger.motion`: motion detection on the camera's frames.
    public var motion = false
    /// `trigger.motion.zone`: where it looks.
    public var motionZones: [MotionZone] = [.whole]
    /// `trigger.motion.threshold`: luma levels (0…255) from which a cell of the thumbnail changed.
    public var motionThresholdLevels: Double = 20
    /// `trigger.motion.area`: per cent of a zone that must change.
    public var motionAreaPercent: Double = 1
    /// `trigger.action`.
    public var action = TriggerAction.off
    /// `trigger.cooldown`: seconds after an action fired during which new triggers do nothing
    /// (a trigger during a triggered recording still extends it).
    public var cooldownSeconds: Double = 10
    /// `trigger.schedule`.
    public var schedule = TriggerSchedule.always

    public init() {}

    /// The detector's configuration for these settings.
    public var detectorConfiguration: MotionDetector.Configuration {
        var c = MotionDetector.Configuration()
        c.zones = motionZones
        c.thresholdLevels = motionThresholdLevels
        c.areaFraction = motionAreaPercent / 100
        return c
    }
}
