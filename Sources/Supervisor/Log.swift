import Foundation

/// Syslog priorities used in log lines (`<3>` error … `<7>` debug), as journald reads them.
public enum LogPriority: Int, Sendable, Comparable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    public static func < (a: LogPriority, b: LogPriority) -> Bool { a.rawValue < b.rawValue }
}

/// One log line per event, to a sink (stderr in `tripod run`).
///
/// When journald reads stderr (systemd sets `JOURNAL_STREAM`), each line starts with `<N>` so
/// the journal records its priority; otherwise lines read `tripod: warning: ...`.
public struct Logger: Sendable {
    public var sink: @Sendable (String) -> Void
    public var withPriorityPrefix: Bool
    public var minimum: LogPriority

    public init(withPriorityPrefix: Bool, minimum: LogPriority = .info, sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink; self.withPriorityPrefix = withPriorityPrefix; self.minimum = minimum
    }

    /// Logs to stderr, with priority prefixes when `JOURNAL_STREAM` is set.
    public static func standardError(environment: [String: String] = ProcessInfo.processInfo.environment) -> Logger {
        Logger(withPriorityPrefix: environment["JOURNAL_STREAM"] != nil) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// Discards everything (tests that do not look at logs).
    public static let discard = Logger(withPriorityPrefix: false) { _ in }

    public func log(_ priority: LogPriority, _ message: String) {
        guard priority <= minimum else { return }
        let oneLine = message.replacingOccurrences(of: "\n", with: " ")
        if withPriorityPrefix {
            sink("<\(priority.rawValue)>\(oneLine)")
        } else {
            let label: String
            switch priority {
            case .error: label = "error: "
            case .warning: label = "warning: "
            default: label = ""
            }
            sink("tripod: \(label)\(oneLine)")
        }
    }

    public func error(_ m: String) { log(.error, m) }
    public func warning(_ m: String) { log(.warning, m) }
    public func notice(_ m: String) { log(.notice, m) }
    public func info(_ m: String) { log(.info, m) }
    public func debug(_ m: String) { log(.debug, m) }
}
