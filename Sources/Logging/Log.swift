import Foundation
import Syscalls

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
    public let sink: @Sendable (String) -> Void
    public var withPriorityPrefix: Bool
    public var minimum: LogPriority

    public init(withPriorityPrefix: Bool, minimum: LogPriority = .info, sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink; self.withPriorityPrefix = withPriorityPrefix; self.minimum = minimum
    }

    /// Logs to stderr, with priority prefixes when `JOURNAL_STREAM` is set.
    public static func standardError(environment: [String: String] = ProcessInfo.processInfo.environment) -> Logger {
        descriptor(STDERR_FILENO, withPriorityPrefix: environment["JOURNAL_STREAM"] != nil)
    }

    /// Logs to a file descriptor with `write(2)`. A line that cannot be written (EPIPE when the
    /// reader is gone, EIO on a hung-up terminal, EBADF) is lost, never fatal: the supervisor keeps
    /// running without its log rather than trapping in `FileHandle.write`.
    public static func descriptor(_ fd: Int32, withPriorityPrefix: Bool,
                                  syscalls: any SystemCalls = SystemSyscalls()) -> Logger {
        Logger(withPriorityPrefix: withPriorityPrefix) { line in writeIgnoringErrors(fd, line + "\n", syscalls: syscalls) }
    }

    /// `write(2)` through the syscall seam (which retries EINTR) until all of `text` is written,
    /// continuing short writes; false on any error (the rest of the text is dropped).
    @discardableResult
    public static func writeIgnoringErrors(_ fd: Int32, _ text: String, syscalls: any SystemCalls = SystemSyscalls()) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                try? syscalls.write(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            guard let n, n > 0 else { return false }
            offset += n
        }
        return true
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
