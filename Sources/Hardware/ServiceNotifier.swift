/// One state change told to the service manager (the `sd_notify(3)` protocol).
public enum ServiceNotification: Hashable, Sendable {
    /// Start-up finished: camera and consoles are up ("READY=1").
    case ready
    /// A one-line human status ("STATUS=..."); newlines are sent as spaces.
    case status(String)
    /// The keep-alive ping ("WATCHDOG=1").
    case watchdog
    /// Shutting down ("STOPPING=1").
    case stopping

    /// The assignment as sent on the notification socket.
    public var assignment: String {
        switch self {
        case .ready: return "READY=1"
        case .watchdog: return "WATCHDOG=1"
        case .stopping: return "STOPPING=1"
        case .status(let text):
            let oneLine = String(text.map { $0.isNewline ? " " : $0 })
            return "STATUS=" + oneLine
        }
    }
}

/// Tells the service manager (systemd) about the process: readiness, status, keep-alive pings.
///
/// Implementations: `SystemdNotifier` (LinuxHardware, through libsystemd's `sd_notify`) and
/// `NullServiceNotifier` (sends nothing). When the process was not started by a service manager,
/// notifying is a successful no-op.
public protocol ServiceNotifier: AnyObject {
    /// Sends the notifications as one datagram (`sd_notify`). Throws only when a manager is there
    /// and sending failed.
    func notify(_ notifications: [ServiceNotification]) throws
    /// How often the manager expects `.watchdog` (`WatchdogSec=`, from `sd_watchdog_enabled`);
    /// nil when no watchdog is armed for this process.
    var watchdogTimeout: Duration? { get }
}

extension ServiceNotifier {
    /// Sends one notification.
    public func notify(_ notification: ServiceNotification) throws { try notify([notification]) }
}

/// A notifier that sends nothing and has no watchdog: for tests, simulations and `tripod run` by hand.
public final class NullServiceNotifier: ServiceNotifier {
    public init() {}
    public func notify(_ notifications: [ServiceNotification]) throws {}
    public var watchdogTimeout: Duration? { nil }
}
