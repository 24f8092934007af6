import CSystemd
import Hardware

#if canImport(Glibc)
import Glibc
#endif

/// `ServiceNotifier` over libsystemd: `sd_notify(3)` and `sd_watchdog_enabled(3)`.
///
/// libsystemd reads `NOTIFY_SOCKET` at each call; when it is unset `sd_notify` returns 0 and this
/// sends nothing and does not fail. The environment is left as it is (`unset_environment = 0`), so
/// the watchdog keeps working across calls.
public final class SystemdNotifier: ServiceNotifier {
    public let watchdogTimeout: Duration?

    /// Reads the watchdog timeout once (`sd_watchdog_enabled(0, &usec)`, which checks
    /// `WATCHDOG_USEC` and that `WATCHDOG_PID`, when set, is this process).
    public init() {
        var microseconds: UInt64 = 0
        let enabled = sd_watchdog_enabled(0, &microseconds)
        if enabled > 0, microseconds > 0, microseconds <= UInt64(Int64.max / 1000) {
            watchdogTimeout = .microseconds(Int64(microseconds))
        } else {
            watchdogTimeout = nil
        }
    }

    /// True when a service manager's socket is there to receive notifications (`NOTIFY_SOCKET`).
    public var isSupervised: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// Sends the assignments, newline-separated, in one datagram (`sd_notify`).
    public func notify(_ notifications: [ServiceNotification]) throws {
        guard !notifications.isEmpty else { return }
        let state = notifications.map(\.assignment).joined(separator: "\n")
        let result = sd_notify(0, state)
        if result < 0 {
            let code = -result
            throw HardwareError(Self.kind(errno: code),
                                "sd_notify(\"\(state.prefix(60))\") to NOTIFY_SOCKET failed: \(String(cString: strerror(code)))",
                                errno: code)
        }
    }

    private static func kind(errno code: Int32) -> HardwareError.Kind {
        switch code {
        case ENOENT, ECONNREFUSED: return .notFound
        case EACCES, EPERM: return .permission
        case EINVAL: return .invalidArgument
        default: return .io
        }
    }
}
