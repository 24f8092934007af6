import Foundation

/// Checks and normalises one setting: the hook through which the settings schema (the same one
/// the console's `set` uses) validates `/etc/tripod/tripod.conf`.
///
/// Throw any error whose description says what is wrong with the value ("expected 1/8000 to 60 s");
/// the config reader adds the file and line. Throw `ConfigSchemaError.unknownKey` for a key the
/// schema does not have.
public protocol ConfigSchema {
    /// Returns the normalised value for `key` (e.g. "1/125" → "8000us"), or throws.
    func validate(key: String, value: String) throws -> String
}

/// A schema from a closure, for tests and for wrapping a settings table.
public struct ClosureConfigSchema: ConfigSchema, Sendable {
    private let body: @Sendable (String, String) throws -> String
    public init(_ body: @escaping @Sendable (_ key: String, _ value: String) throws -> String) { self.body = body }
    public func validate(key: String, value: String) throws -> String { try body(key, value) }
}

/// Errors a schema may throw for the common cases.
public enum ConfigSchemaError: Error, CustomStringConvertible {
    case unknownKey(String)
    case invalidValue(key: String, reason: String)

    public var description: String {
        switch self {
        case .unknownKey(let key): return "unknown setting \"\(key)\""
        case .invalidValue(let key, let reason): return "invalid value for \"\(key)\": \(reason)"
        }
    }
}

/// One problem in a config file, at a line (1-based).
public struct ConfigProblem: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    /// "FILE:LINE: message", the format compilers use, so editors can jump to it.
    public var description: String { "\(file):\(line): \(message)" }
}

/// Every problem found in a config file (all lines are checked, not just up to the first error).
public struct ConfigFileError: Error, CustomStringConvertible {
    public var problems: [ConfigProblem]
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// A parsed, validated `tripod.conf`.
///
/// Format, one setting per line: `key = value`.
/// - Blank lines and lines whose first non-blank character is `#` are ignored.
/// - Keys are letters, digits, `_`, `-` and `.`; whitespace around keys, `=` and values is ignored.
/// - A value may be double-quoted (escapes `\"`, `\\`, `\n`, `\t`) or single-quoted (literal), to
///   keep leading/trailing spaces or a `#`. An unquoted value ends at ` #` (a trailing comment);
///   after a quoted value only a comment may follow.
/// - An empty value must be written `""`.
/// - **A key set twice is an error** (naming both lines): a config that says two things is a
///   mistake on an appliance nobody watches, better caught by `tripod check-config` than guessed.
public struct ConfigFile: Sendable {
    /// One setting, normalised by the schema.
    public struct Entry: Hashable, Sendable {
        public var key: String
        public var value: String
        public var line: Int
    }

    /// The file name used in messages.
    public var file: String
    /// Settings in file order.
    public var entries: [Entry]

    /// The settings by key.
    public var values: [String: String] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Reads and validates the file at `path`. Throws `ConfigFileError` (naming the file and line of
    /// each problem), also when the file cannot be read.
    public static func load(path: String, schema: any ConfigSchema) throws -> ConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? "\(error)"
            throw ConfigFileError(problems: [ConfigProblem(file: path, line: 0, message: "cannot read: \(reason)")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigFileError(problems: [ConfigProblem(file: path, line: 0, message: "not UTF-8 text")])
        }
        return try parse(text, file: path, schema: schema)
    }

    /// Parses and validates `text`; `file` names it in messages.
    public static func parse(_ text: String, file: String, schema: any ConfigSchema) throws -> ConfigFile {
        var entries: [Entry] = []
        var problems: [ConfigProblem] = []
        var firstLine: [String: Int] = [:]
        // "\r\n" is one Character in Swift, so split on both line ends.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            func problem(_ message: String) { problems.append(ConfigProblem(file: file, line: number, message: message)) }
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            let parsed: (key: String, value: String)?
            do {
                parsed = try ConfigLineParser.parse(line)
            } catch let error as ConfigLineParser.Failure {
                problem(error.message)
                continue
            } catch {
                problem("\(error)")
                continue
            }
            guard let (key, rawValue) = parsed else { continue }
            if let earlier = firstLine[key] {
                problem("\"\(key)\" is already set on line \(earlier)")
                continue
            }
            firstLine[key] = number
            do {
                let value = try schema.validate(key: key, value: rawValue)
                entries.append(Entry(key: key, value: value, line: number))
            } catch {
                problem("\(error)")
            }
        }
        if !problems.isEmpty { throw ConfigFileError(problems: problems) }
        return ConfigFile(file: file, entries: entries)
    }
}

extension ConfigFile {
    /// `tripod check-config FILE`: validates the file with the same schema as start-up.
    /// Returns the exit status (0 valid, 1 not) and the text to print: "FILE: ok, N settings" or
    /// one "FILE:LINE: problem" line per problem.
    public static func check(path: String, schema: any ConfigSchema) -> (exitStatus: Int32, report: String) {
        do {
            let config = try load(path: path, schema: schema)
            let count = config.entries.count
            return (0, "\(path): ok, \(count) setting\(count == 1 ? "" : "s")")
        } catch let error as ConfigFileError {
            return (1, error.description)
        } catch {
            return (1, "\(path): \(error)")
        }
    }
}
