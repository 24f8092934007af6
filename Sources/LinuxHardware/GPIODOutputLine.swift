import CGPIOD
import Glibc
import Hardware

/// A libgpiod 1.6 output line (the status LED), requested with `gpiod_line_request_output_flags`.
/// Values are logical: with `activeLow`, `write(true)` drives the pin low.
public final class GPIODOutputLine: GPIOOutputLine, Sendable {
    public let address: GPIOLineAddress
    private let handle: GPIODLineHandle

    /// Finds and requests the line as an output, initially inactive (off), consumer `consumer`.
    public init(_ address: GPIOLineAddress, consumer: String = "tripod", initiallyActive: Bool = false) throws {
        self.address = address
        handle = try GPIODLineHandle.open(address, consumer: consumer, request: .output(initiallyActive: initiallyActive))
    }

    /// Sets the logical level (`gpiod_line_set_value`).
    public func write(_ active: Bool) throws {
        let subject = handle.subject
        try handle.withLine("gpiod_line_set_value") { line in
            if gpiod_line_set_value(line, active ? 1 : 0) != 0 {
                throw GPIODErrors.error(subject, call: "gpiod_line_set_value", errno: errno)
            }
        }
    }

    /// Releases the line (`gpiod_line_release`); idempotent.
    public func close() { handle.release() }

    deinit { handle.release() }
}
