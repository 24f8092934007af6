import Foundation  // JSONSerialization, ISO8601DateFormatter
import Console
import Fleet
import Hardware
import Settings

/// One command from the fleet, checked: `{"id": "...", "line": "<console line>"}` with an optional
/// `"at": "<RFC 3339 time>"` (the line runs at that instant of this rig's clock, on the loop's
/// timer) and `"notAfter": "<RFC 3339 time>"` (refused once that time has passed on this rig's clock).
struct FleetCommand: Equatable, Sendable {
    var id: String
    var line: String
    var at: Date?
    var notAfter: Date?

    init(id: String, line: String, at: Date? = nil, notAfter: Date? = nil) {
        self.id = id; self.line = line; self.at = at; self.notAfter = notAfter
    }
}

/// What a command message parses to: its id when it has a usable one, and the command or why it is refused.
struct FleetCommandMessage: Sendable {
    var id: String?
    var result: Result<FleetCommand, ConsoleError>

    /// Largest command message read, bytes.
    static let maximumBytes = 8192
    /// Longest id, characters.
    static let maximumIDLength = 128
    /// How far ahead `at` must be: the time a command takes from the broker to the loop, with room.
    static let minimumLead: Duration = .milliseconds(100)
    /// How far ahead `at` may be.
    static let longestLead: Duration = .seconds(24 * 3600)

    /// Parses and checks a command payload received at `now` (this rig's wall clock).
    static func parse(_ payload: [UInt8], retained: Bool = false, now: Date) -> FleetCommandMessage {
        guard payload.count <= maximumBytes else {
            return FleetCommandMessage(id: nil, result: .failure(ConsoleError(.badInput, "command message of \(payload.count) bytes; at most \(maximumBytes)")))
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload)), let fields = object as? [String: Any] else {
            return FleetCommandMessage(id: nil, result: .failure(ConsoleError(.badInput, "malformed command: not a JSON object; send {\"id\": \"...\", \"line\": \"<console line>\"}")))
        }
        guard let id = fields["id"] as? String, (1...maximumIDLength).contains(id.count),
              !id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return FleetCommandMessage(id: nil, result: .failure(ConsoleError(.badInput, "malformed command: \"id\" must be a string of 1 to \(maximumIDLength) printable characters")))
        }
        return FleetCommandMessage(id: id, result: check(fields, id: id, retained: retained, now: now))
    }

    private static func check(_ fields: [String: Any], id: String, retained: Bool, now: Date) -> Result<FleetCommand, ConsoleError> {
        if retained {
            return .failure(ConsoleError(.badInput, "retained commands are refused: a rig that joins later would run it; publish commands without the retain flag"))
        }
        guard let line = fields["line"] as? String else {
            return .failure(ConsoleError(.badInput, "malformed command: \"line\" must be a string holding one console line"))
        }
        var at: Date?
        if let value = fields["at"] {
            guard let text = value as? String, let instant = parseTime(text) else {
                return .failure(ConsoleError(.badValue, "\"at\" must be an RFC 3339 time, e.g. 2026-05-01T12:00:00.000Z"))
            }
            let earliest = now.addingTimeInterval(minimumLead.secondsValue)
            guard instant >= earliest else {
                return .failure(ConsoleError(.outOfRange, "at \(text) is past or too soon for this rig: it arrived at \(formatTime(now)) by its clock, and the earliest that would have worked is \(formatTime(earliest)); send it at least \(minimumLead.microseconds / 1000) ms ahead"))
            }
            guard instant <= now.addingTimeInterval(longestLead.secondsValue) else {
                return .failure(ConsoleError(.outOfRange, "at \(text) is more than \(Int(longestLead.secondsValue / 3600)) hours ahead"))
            }
            at = instant
        }
        var notAfter: Date?
        if let value = fields["notAfter"] {
            guard let text = value as? String, let deadline = parseTime(text) else {
                return .failure(ConsoleError(.badValue, "\"notAfter\" must be an RFC 3339 time, e.g. 2026-05-01T12:00:00.000Z"))
            }
            if now > deadline {
                return .failure(ConsoleError(.outOfRange, "expired: notAfter \(text) has passed (this rig's clock reads \(formatTime(now)))"))
            }
            if let at, deadline < at {
                return .failure(ConsoleError(.outOfRange, "notAfter \(text) is before at \(formatTime(at))"))
            }
            notAfter = deadline
        }
        if line.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return .failure(ConsoleError(.badInput, "\"line\" holds a control character (a newline?); send one console line per command"))
        }
        let words: [String]
        do { words = try tokenize(line) } catch {
            return .success(FleetCommand(id: id, line: line, at: at, notAfter: notAfter))  // the console answers it with its own error
        }
        guard !words.isEmpty else {
            return .failure(ConsoleError(.usage, "\"line\" is empty; send a console line, e.g. status"))
        }
        // What the line may do is the origin policy's to say (OriginPolicy, as `mqtt`), when it runs.
        return .success(FleetCommand(id: id, line: line, at: at, notAfter: notAfter))
    }

    /// True for `fleet arm ...`: a shot's part, armed on arrival (FleetClient+Shots.swift).
    static func isArm(_ line: String) -> Bool {
        guard let words = try? tokenize(line), words.count >= 2 else { return false }
        return words[0].lowercased() == "fleet" && words[1].lowercased() == "arm"
    }

    /// An RFC 3339 time, with or without fractional seconds.
    static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// An RFC 3339 time in UTC with milliseconds.
    static func formatTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
