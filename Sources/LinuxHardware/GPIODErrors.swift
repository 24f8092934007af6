import Glibc
import Hardware

/// Turns a failed libgpiod call into a `HardwareError` whose message names the chip or line and the call.
enum GPIODErrors {
    /// Maps `code` (an errno left by a libgpiod call) to a kind: ENOENT/ENODEV/ENXIO → notFound,
    /// EBUSY → busy, EACCES/EPERM → permission, EINVAL → invalidArgument, EOPNOTSUPP → unsupported.
    static func kind(errno code: Int32) -> HardwareError.Kind { HardwareError.Kind(errno: code) }

    /// An error for `call` on `subject` ("GPIO chip \"gpiochip9\"", "GPIO line \"SHUTTER\"").
    static func error(_ subject: String, call: String, errno code: Int32, hint: String? = nil) -> HardwareError {
        let kind = kind(errno: code)
        var message = "\(subject): \(call) failed: \(describe(code))"
        switch kind {
        case .permission:
            message += " (permission denied: add the user to the group owning /dev/gpiochip*, usually \"gpio\")"
        case .notFound:
            message += " (not present: `gpiodetect` and `gpioinfo` list the chips and line names)"
        default:
            if code == ENOTTY { message += " (not a GPIO character device)" }
        }
        if let hint { message += "; \(hint)" }
        return HardwareError(kind, message, errno: code)
    }

    /// The EBUSY error for a line: names it and, when the kernel reports one, the process holding it.
    static func busy(_ subject: String, call: String, consumer: String?) -> HardwareError {
        let holder = consumer.flatMap { $0.isEmpty ? nil : $0 }
        let message = holder.map { "\(subject) is busy: already requested by consumer \"\($0)\" (\(call): EBUSY)" }
            ?? "\(subject) is busy: already requested by another process or driver (\(call): EBUSY)"
        return HardwareError(.busy, message, errno: EBUSY)
    }

    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return "\(String(cString: text)) (errno \(code))"
    }
}
