import Foundation

/// A command's answer: `ok key=value ...` or `err <code> <message>`.
///
/// An ok reply may carry body lines (a table, help text). In human mode they come first, each
/// starting with "# " and wrapped at 80 columns (continuations start with "#   "), and the `ok`
/// line always ends the reply, so a script reads until a line starting with `ok` or `err`. In JSON
/// mode they are the reply object's "lines" array, unwrapped.
public enum Reply: Equatable, Sendable {
    case ok(fields: [Field], text: String?, body: [String])
    case error(ConsoleError)

    /// One `key=value` of a reply or event, in the order given.
    public struct Field: Equatable, Sendable {
        public var key: String
        public var value: String
        public init(_ key: String, _ value: String) { self.key = key; self.value = value }
    }

    public static func ok(_ fields: [(String, String)] = [], text: String? = nil, body: [String] = []) -> Reply {
        .ok(fields: fields.map { Field($0.0, $0.1) }, text: text, body: body)
    }

    public static func err(_ code: ConsoleError.Code, _ message: String) -> Reply {
        .error(ConsoleError(code, message))
    }

    public var isOK: Bool { if case .ok = self { true } else { false } }
}

/// Something that happened, pushed to every console on a line of its own.
public struct ConsoleEvent: Equatable, Sendable {
    /// Dotted name: "bracket.progress", "imu.state", "storage.low".
    public var name: String
    public var fields: [Reply.Field]
    public init(_ name: String, _ fields: [(String, String)] = []) {
        self.name = name
        self.fields = fields.map { Reply.Field($0.0, $0.1) }
    }
}

/// How a console client wants its lines: `json off` (human) or `json on` (one object per line).
public enum ReplyMode: Sendable, Equatable {
    case human, json
}

/// Renders replies and events as single lines (no trailing newline).
public enum ReplyFormatter {
    /// The lines of a reply, last line `ok ...` or `err ...` in human mode; one line in JSON mode.
    public static func lines(_ reply: Reply, mode: ReplyMode) -> [String] {
        switch (reply, mode) {
        case (.ok(let fields, let text, let body), .human):
            var parts = ["ok"] + fields.map { "\($0.key)=\(quoteIfNeeded($0.value))" }
            if let text { parts.append(text) }
            return body.flatMap { TerminalWidth.wrap(singleLine($0)) }.map { "# " + $0 } + [singleLine(parts.joined(separator: " "))]
        case (.error(let e), .human):
            return [singleLine("err \(e.code.rawValue) \(e.message)")]
        case (.ok(let fields, let text, let body), .json):
            var object = "{\"type\":\"reply\",\"ok\":true,\"values\":" + jsonObject(fields)
            if let text { object += ",\"text\":" + jsonString(text) }
            if !body.isEmpty { object += ",\"lines\":[" + body.map(jsonString).joined(separator: ",") + "]" }
            return [object + "}"]
        case (.error(let e), .json):
            return ["{\"type\":\"reply\",\"ok\":false,\"code\":\(jsonString(e.code.rawValue)),\"message\":\(jsonString(e.message))}"]
        }
    }

    public static func format(_ event: ConsoleEvent, mode: ReplyMode) -> String {
        switch mode {
        case .human:
            let parts = ["event", event.name] + event.fields.map { "\($0.key)=\(quoteIfNeeded($0.value))" }
            return singleLine(parts.joined(separator: " "))
        case .json:
            return "{\"type\":\"event\",\"event\":\(jsonString(event.name)),\"values\":\(jsonObject(event.fields))}"
        }
    }

    /// Values with spaces or quotes are double-quoted so `key=value` stays parseable.
    static func quoteIfNeeded(_ value: String) -> String {
        if value.isEmpty { return "\"\"" }
        guard value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Replies never span lines: control characters become spaces.
    static func singleLine(_ s: String) -> String {
        String(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
    }

    static func jsonObject(_ fields: [Reply.Field]) -> String {
        "{" + fields.map { jsonString($0.key) + ":" + jsonString($0.value) }.joined(separator: ",") + "}"
    }

    /// A JSON string literal with RFC 8259 escapes.
    public static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
