import Foundation  // Date, Calendar, JSONSerialization
import Fleet
import Console
import Hardware

/// A shot at a shared instant as the sender arms it on every rig (docs/fleet.md): what the
/// supervisor needs to arm its capture, in this module's terms (Startup hands it on).
public struct ShotOrder: Sendable, Equatable {
    /// The shot's id (also the MQTT command's id): the same on every rig.
    public var id: String
    /// The instant, ns since 1970 on this rig's CLOCK_REALTIME.
    public var instantNanoseconds: Int64
    /// CLOCK_REALTIME minus the loop's monotonic clock (the SensorTimestamp clock) on arrival, ns.
    public var realtimeMinusMonotonicNanoseconds: Int64
    /// `capture` or `bracket ...`, as words.
    public var action: [String]
    /// The clock's sync state on arrival: `synchronised`, `unsynchronised` or `unknown`.
    public var clock: String
    public var clockErrorMicroseconds: Int?
}

/// What the fleet client's shots need of the rig they run on (Startup: the supervisor's), passed
/// in at its `init`. Called on the loop.
public protocol ShotRig: AnyObject {
    /// Arms this rig's part of a shot and calls `ended` (on the loop) with the reply the sender
    /// collects; throws when it cannot be armed. Returns the armed fields.
    func armShot(_ order: ShotOrder, ended: @escaping (Reply) -> Void) throws(ConsoleError) -> [(String, String)]
    /// Ends the shot part armed here that still waits for its instant, failed with `reason`.
    func cancelArmedShot(reason: String)
    /// This rig's frame grid while frame sync holds it; nil: no frame sync. A shot sent from a
    /// synced rig is moved to the middle of a frame (`SyncedFrameGrid.midFrame`).
    var syncedFrameGrid: SyncedFrameGrid? { get }
    /// Writes a shot's report atomically (`bytes`, named `name`, in `folder` of the captures or
    /// their root), and calls `done` with its path or the error.
    func saveShotReport(_ bytes: [UInt8], name: String, folder: String?, done: @escaping (Result<String, ConsoleError>) -> Void)
}

/// This rig's frames while frame sync holds them on the server's grid: a frame's wall-clock start
/// and the fixed frame duration (Startup: the camera's latest frame and `FrameSyncStatus`).
public struct SyncedFrameGrid: Equatable, Sendable {
    public var frameStartWallClockNanoseconds: Int64
    public var frameNanoseconds: Int64
    public init(frameStartWallClockNanoseconds: Int64, frameNanoseconds: Int64) {
        self.frameStartWallClockNanoseconds = frameStartWallClockNanoseconds; self.frameNanoseconds = frameNanoseconds
    }

    /// The first instant at or after `instant` (whole ms) that lies mid-way between two frame starts
    /// of the grid (within half a millisecond): with the rigs' frames aligned, each takes the same
    /// frame, however little their alignment is off, since no frame starts near the instant.
    /// When the middle nearest after `instant` rounds to a whole ms before it, the next frame's
    /// middle is taken (never a ms further from the middle).
    public func midFrame(atOrAfter instantNanoseconds: Int64) -> Int64 {
        guard frameNanoseconds > 0 else { return instantNanoseconds }
        let half = frameNanoseconds / 2
        var k = (instantNanoseconds - frameStartWallClockNanoseconds - half) / frameNanoseconds
        if frameStartWallClockNanoseconds + half + k * frameNanoseconds > instantNanoseconds { k -= 1 }  // floor
        var mid = frameStartWallClockNanoseconds + half + k * frameNanoseconds
        while true {
            let ms = (mid + 500_000) / 1_000_000 * 1_000_000  // the instant travels in whole ms
            if ms >= instantNanoseconds { return ms }
            mid += frameNanoseconds
        }
    }
}

/// The words of a shot: when, and what.
enum ShotRequest {
    /// How far ahead a shot must be when it is sent: the command's way through the broker to every
    /// rig, and the frames each needs to arm, with room.
    static let minimumLead: Duration = .milliseconds(500)
    /// How far ahead a shot may be.
    static let longestLead: Duration = .seconds(3600)

    /// `in <duration> <action>` or `at <time> <action>` (the words after `fleet shot`), read at `now`
    /// on this rig's clock: the instant and the action. `timeZone` reads a time of day.
    static func parse(_ words: [String], now: Date, timeZone: TimeZone = .current) throws(ConsoleError) -> (instant: Date, action: [String]) {
        let usage = "usage: fleet shot in <duration> <action> | fleet shot at <time> <action> (action: capture, bracket ..., record start or record stop)"
        guard words.count >= 3 else { throw ConsoleError(.usage, usage) }
        var instant: Date
        switch words[0].lowercased() {
        case "in":
            guard let lead = duration(words[1]) else {
                throw ConsoleError(.badValue, "\"\(words[1])\" is not a duration; write e.g. 2s, 1.5s or 800ms")
            }
            instant = now.addingTimeInterval(lead)
        case "at":
            guard let time = FleetCommandMessage.parseTime(words[1]) ?? timeToday(words[1], now: now, timeZone: timeZone) else {
                throw ConsoleError(.badValue, "\"\(words[1])\" is not a time; write HH:MM:SS.mmm (today, this rig's local time) or RFC 3339, e.g. 2026-05-01T12:00:05.000Z")
            }
            instant = time
        default:
            throw ConsoleError(.usage, usage)
        }
        // Whole milliseconds: the instant every rig reads from the command's RFC 3339 text.
        instant = Date(timeIntervalSince1970: (instant.timeIntervalSince1970 * 1000).rounded() / 1000)
        let action = Array(words.dropFirst(2))
        try checkAction(action)
        let earliest = now.addingTimeInterval(minimumLead.secondsValue)
        guard instant >= earliest else {
            let past = instant < now ? "is in the past" : "is too soon to arm every rig"
            throw ConsoleError(.outOfRange, "the shot's instant \(FleetCommandMessage.formatTime(instant)) \(past): this rig's clock reads \(FleetCommandMessage.formatTime(now)); the earliest that would work is \(FleetCommandMessage.formatTime(earliest)) (\(minimumLead.microseconds / 1000) ms ahead)")
        }
        guard instant <= now.addingTimeInterval(longestLead.secondsValue) else {
            throw ConsoleError(.outOfRange, "the shot's instant \(FleetCommandMessage.formatTime(instant)) is more than \(Int(longestLead.secondsValue / 60)) minutes ahead; a rig stays armed (busy) until its shot")
        }
        return (instant, action)
    }

    /// `capture`, `bracket <arguments>`, `record start` or `record stop`.
    static func checkAction(_ action: [String]) throws(ConsoleError) {
        switch action.first?.lowercased() {
        case "capture" where action.count == 1: return
        case "bracket" where action.count > 1: return
        case "record" where action.count == 2 && ["start", "stop"].contains(action[1].lowercased()): return
        default:
            throw ConsoleError(.usage, "a shot's action is capture, bracket ..., record start or record stop (got \"\(action.joined(separator: " "))\")")
        }
    }

    /// `2s`, `1.5s`, `800ms`: seconds.
    static func duration(_ text: String) -> Double? {
        let lower = text.lowercased()
        let (number, scale): (Substring, Double) = lower.hasSuffix("ms") ? (lower.dropLast(2), 0.001)
            : lower.hasSuffix("s") ? (lower.dropLast(), 1) : ("", 0)
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        return value * scale
    }

    /// `HH:MM:SS` or `HH:MM:SS.mmm` on `now`'s day in `timeZone`.
    static func timeToday(_ text: String, now: Date, timeZone: TimeZone) -> Date? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hour = Int(parts[0]), let minute = Int(parts[1]), parts[0].count == 2, parts[1].count == 2,
              (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        let secondParts = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(secondParts.count), secondParts[0].count == 2, let second = Int(secondParts[0]), (0..<60).contains(second) else { return nil }
        var fraction = 0.0
        if secondParts.count == 2 {
            guard (1...3).contains(secondParts[1].count), secondParts[1].allSatisfy(\.isNumber), let digits = Double("0." + secondParts[1]) else { return nil }
            fraction = digits
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var day = calendar.dateComponents([.year, .month, .day], from: now)
        day.hour = hour; day.minute = minute; day.second = second
        return calendar.date(from: day).map { $0.addingTimeInterval(fraction) }
    }

    /// A shot id from the sender's rig name and the instant: `<rig>-<ms since 1970>`.
    static func makeID(rig: String, instant: Date, serial: Int) -> String {
        "\(rig)-\(Int64((instant.timeIntervalSince1970 * 1000).rounded()))" + (serial > 0 ? "-\(serial)" : "")
    }

    /// True when `id` is one `rig` makes (`makeID`): `<rig>-` then 13 digits (ms since 1970, until
    /// the year 2286), then at most `-` and 1 to 6 digits. A rig whose name is another's followed by
    /// `-<digits>` cannot pass for it: the digits after the shorter name would not fit.
    static func isSent(by rig: String, id: String) -> Bool {
        guard !rig.isEmpty, id.hasPrefix(rig + "-") else { return false }
        let parts = id.dropFirst(rig.count + 1).split(separator: "-", omittingEmptySubsequences: false)
        func digits(_ part: Substring, _ counts: ClosedRange<Int>) -> Bool { counts.contains(part.count) && part.allSatisfy { ("0"..."9").contains($0) } }
        switch parts.count {
        case 1: return digits(parts[0], 13...13)
        case 2: return digits(parts[0], 13...13) && digits(parts[1], 1...6)
        default: return false
        }
    }
}

/// One rig's answer to a shot, as the sender collects it.
struct ShotAnswer: Equatable {
    var ok: Bool
    /// The reply's values (an ok reply) or `code` and `message` (an err reply).
    var values: [String: String]

    /// From a reply payload `{"id": ..., "type": "reply", "ok": ..., ...}`; nil when it is not one for `id`.
    static func parse(_ payload: [UInt8], id: String) -> ShotAnswer? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
              object["id"] as? String == id, let ok = object["ok"] as? Bool else { return nil }
        if ok { return ShotAnswer(ok: true, values: object["values"] as? [String: String] ?? [:]) }
        return ShotAnswer(ok: false, values: ["code": object["code"] as? String ?? "", "message": object["message"] as? String ?? ""])
    }

    /// From a reply of this rig's own console.
    init(_ reply: Reply) {
        switch reply {
        case .ok(let fields, _, _):
            ok = true
            values = Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        case .error(let error):
            ok = false
            values = ["code": error.code.rawValue, "message": error.message]
        }
    }

    init(ok: Bool, values: [String: String]) { self.ok = ok; self.values = values }

    /// True when the rig's shot completed (its part of the report is "complete").
    var completed: Bool { ok && values["status"] == "complete" }
    var offsetMicroseconds: Double? { values["offset.us"].flatMap(Double.init) }
    /// The clock's word; an unsynchronised (or unknown) clock makes the offset untrusted.
    var trusted: Bool { values["clock"] == "synchronised" }
}

/// The sender's collection of one shot's replies, and its report (`SHOT_<id>.json`).
struct ShotCollection {
    let id: String
    let instant: Date
    let action: [String]
    let sender: String
    let group: String
    /// The rigs asked: every rig online when it was sent, the sender included, sorted.
    let asked: [String]
    /// Every rig of the group seen when it was sent (online or offline), sorted.
    let known: [String]
    var answers: [String: ShotAnswer] = [:]

    /// Rigs of the group that did not answer: offline when it was sent, or silent since, sorted.
    var missing: [String] { known.filter { answers[$0] == nil } }
    var untrusted: [String] { asked.filter { answers[$0].map { !$0.trusted && $0.ok } ?? false } }
    var failed: [String] { asked.filter { answers[$0].map { !$0.completed } ?? false } }

    /// The largest difference between two rigs' offsets, µs (nil with fewer than two offsets).
    var maximumSkewMicroseconds: Double? {
        let offsets = asked.compactMap { answers[$0]?.offsetMicroseconds }
        guard offsets.count >= 2, let low = offsets.min(), let high = offsets.max() else { return nil }
        return high - low
    }

    /// The sender's own captures' folder (its sidecar's), where the report goes.
    var senderFolder: String? {
        guard let sidecar = answers[sender]?.values["sidecar"], let slash = sidecar.lastIndex(of: "/") else { return nil }
        return String(sidecar[..<slash])
    }

    var reportName: String { "SHOT_\(id).json" }

    /// The report: pretty JSON, keys sorted.
    func report() -> [UInt8] {
        var rigs: [String: Any] = [:]
        for rig in known {
            guard let answer = answers[rig] else { rigs[rig] = ["status": "missing", "asked": asked.contains(rig)]; continue }
            var entry: [String: Any] = [:]
            if answer.ok {
                let v = answer.values
                entry["status"] = v["status"] ?? "unknown"
                if let reason = v["reason"] { entry["reason"] = reason }
                if let offset = answer.offsetMicroseconds { entry["offsetMicroseconds"] = offset }
                if let first = v["first.exposure"] { entry["firstExposure"] = first }
                if let source = v["source"] { entry["firstExposureSource"] = source }
                if let sidecar = v["sidecar"] { entry["sidecar"] = sidecar }
                entry["files"] = (v["files"] ?? "").split(separator: ",").map(String.init)
                entry["clock"] = v["clock"] ?? "unknown"
                if let error = v["clock.error.us"].flatMap(Int.init) { entry["clockErrorMicroseconds"] = error }
                entry["trusted"] = answer.trusted
                if let sync = v["sync"] { entry["sync"] = sync }
                if let ready = v["sync.ready"] { entry["syncReady"] = ready == "yes" }
                if let alignment = v["sync.alignment.us"].flatMap(Int.init) { entry["syncAlignmentMicroseconds"] = alignment }
            } else {
                entry["status"] = "refused"
                entry["reason"] = "\(answer.values["code"] ?? "") \(answer.values["message"] ?? "")"
            }
            rigs[rig] = entry
        }
        var object: [String: Any] = [
            "formatVersion": 1, "shot": id, "target": FleetCommandMessage.formatTime(instant), "action": action.joined(separator: " "),
            "group": group, "sender": sender, "asked": asked, "answered": asked.filter { answers[$0] != nil },
            "missing": missing, "offlineWhenSent": known.filter { !asked.contains($0) }, "failed": failed, "untrusted": untrusted, "rigs": rigs,
        ]
        if let skew = maximumSkewMicroseconds { object["maximumSkewMicroseconds"] = skew }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Array(data) + [0x0A]
    }

    /// The one-line summary's fields (the event `fleet.shot`).
    func summary(report path: String?) -> [(String, String)] {
        func list(_ rigs: [String]) -> String { rigs.isEmpty ? "none" : rigs.joined(separator: ",") }
        return [("id", id), ("asked", String(asked.count)), ("answered", String(answers.count)),
                ("missing", list(missing)), ("failed", list(failed)), ("untrusted", list(untrusted)),
                ("skew.us", maximumSkewMicroseconds.map { String(format: "%.1f", $0) } ?? "none"),
                ("report", path ?? "not written")]
    }
}

/// What the rig knows of each rig of its group from the retained `state` and `status` topics.
struct RigSeen: Equatable {
    var state: String?
    /// The status reply's values (with `clock` and `clock.error.us`).
    var status: [String: String]?
    /// When the status last came, on the loop's clock.
    var statusAt: MonotonicTime?
}
