import CGPIOD
import Glibc
import Hardware

/// A requested libgpiod line and the chip handle that owns it; released exactly once.
///
/// libgpiod 1.6 objects are not thread-safe, so every use goes through `withLine` under one lock,
/// except the reader thread's blocking `gpiod_line_event_wait`, which only reads the event fd.
final class GPIODLineHandle: @unchecked Sendable {
    let subject: String
    private let lock = LockedValue(false)  // true once released
    private let chip: OpaquePointer
    let line: OpaquePointer

    private init(subject: String, chip: OpaquePointer, line: OpaquePointer) {
        self.subject = subject; self.chip = chip; self.line = line
    }

    /// What a request asks for.
    enum Request {
        case bothEdges
        case output(initiallyActive: Bool)
    }

    /// Finds the line `address` describes and requests it (`gpiod_chip_open_lookup` +
    /// `gpiod_chip_get_line`/`gpiod_chip_find_line`, or `gpiod_line_find` for a bare name; then
    /// `gpiod_line_request_both_edges_events_flags` or `gpiod_line_request_output_flags`).
    static func open(_ address: GPIOLineAddress, consumer: String, request: Request) throws -> GPIODLineHandle {
        let (chip, line, subject) = try find(address)
        var flags: Int32 = 0
        if address.activeLow == true { flags |= Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) }
        if case .bothEdges = request {
            switch address.bias ?? .asIs {
            case .asIs: break
            case .disabled: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
            case .pullUp: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
            case .pullDown: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
            }
        }
        let call: String
        let result: Int32
        switch request {
        case .bothEdges:
            call = "gpiod_line_request_both_edges_events_flags"
            result = gpiod_line_request_both_edges_events_flags(line, consumer, flags)
        case .output(let active):
            call = "gpiod_line_request_output_flags"
            result = gpiod_line_request_output_flags(line, consumer, flags, active ? 1 : 0)
        }
        if result != 0 {
            let code = errno
            defer { gpiod_chip_close(chip) }
            if code == EBUSY {
                // The request failed, so the line info is stale: refresh it to learn the holder.
                _ = gpiod_line_update(line)
                let consumer = gpiod_line_consumer(line).map { String(cString: $0) }
                throw GPIODErrors.busy(subject, call: call, consumer: consumer)
            }
            let hint = code == EINVAL && address.bias != nil
                ? "the kernel may not support line bias (needs Linux 5.5 or later)" : nil
            throw GPIODErrors.error(subject, call: call, errno: code, hint: hint)
        }
        return GPIODLineHandle(subject: subject, chip: chip, line: line)
    }

    private static func find(_ address: GPIOLineAddress) throws -> (OpaquePointer, OpaquePointer, String) {
        if let chipName = address.chip {
            let chipSubject = "GPIO chip \"\(chipName)\""
            errno = 0
            guard let chip = gpiod_chip_open_lookup(chipName) else {
                throw GPIODErrors.error(chipSubject, call: "gpiod_chip_open_lookup", errno: errno == 0 ? ENOENT : errno)
            }
            if let offset = address.offset {
                let subject = "GPIO line \(offset) of \(chipSubject)" + (address.name.map { " (\"\($0)\")" } ?? "")
                let count = gpiod_chip_num_lines(chip)
                guard offset >= 0, offset < Int(count), let line = gpiod_chip_get_line(chip, UInt32(offset)) else {
                    let code = errno
                    gpiod_chip_close(chip)
                    if offset < 0 || offset >= Int(count) {
                        throw HardwareError(.invalidArgument, "\(subject): offset out of range, the chip has \(count) lines (gpiod_chip_get_line)", errno: EINVAL)
                    }
                    throw GPIODErrors.error(subject, call: "gpiod_chip_get_line", errno: code)
                }
                return (chip, line, subject)
            }
            guard let name = address.name else {
                gpiod_chip_close(chip)
                throw HardwareError(.invalidArgument, "\(chipSubject): the board description gives neither a line name nor an offset")
            }
            let subject = "GPIO line \"\(name)\" on \(chipSubject)"
            errno = 0
            guard let line = gpiod_chip_find_line(chip, name) else {
                let code = errno == 0 ? ENOENT : errno
                gpiod_chip_close(chip)
                throw GPIODErrors.error(subject, call: "gpiod_chip_find_line", errno: code)
            }
            return (chip, line, subject)
        }
        guard let name = address.name else {
            throw HardwareError(.invalidArgument, "GPIO line address names neither a line nor a chip and offset")
        }
        let subject = "GPIO line \"\(name)\""
        errno = 0
        guard let line = gpiod_line_find(name) else {
            let code = errno == 0 ? ENOENT : errno
            throw GPIODErrors.error(subject, call: "gpiod_line_find (searched every /dev/gpiochip*)", errno: code)
        }
        guard let chip = gpiod_line_get_chip(line) else {
            throw HardwareError(.other, "\(subject): gpiod_line_get_chip returned no chip")
        }
        let chipName = gpiod_chip_name(chip).map { String(cString: $0) } ?? "?"
        return (chip, line, "\(subject) on \(chipName)")
    }

    /// Runs `body` with the line while it is still requested; throws `.disconnected` after release.
    func withLine<R: Sendable>(_ call: String, _ body: (OpaquePointer) throws -> R) throws -> R {
        try lock.withLock { released in
            if released { throw HardwareError(.disconnected, "\(subject): \(call) after close") }
            return try body(line)
        }
    }

    var isReleased: Bool { lock.current }

    /// Releases the line and closes its chip (`gpiod_line_release`, `gpiod_chip_close`); idempotent.
    func release() {
        lock.withLock { released in
            guard !released else { return }
            released = true
            gpiod_line_release(line)
            gpiod_chip_close(chip)
        }
    }

    deinit { release() }
}
