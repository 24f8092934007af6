import CGPIOD
import Dispatch
import Foundation
import Glibc
import Hardware

/// A libgpiod 1.6 input line requested for both edges, with a dedicated thread reading edge events.
///
/// Edges carry the kernel's timestamp (`gpiod_line_event.ts`, CLOCK_MONOTONIC on Linux 5.7+) and
/// are logical: with `activeLow`, a press on a pull-up button to ground arrives as `.rising`.
/// The reader thread starts with the first `setEdgeHandler`, blocks in `gpiod_line_event_wait`
/// with a timeout of `waitTimeoutMilliseconds` so that `close()` can stop it, and hands each edge to
/// the handler on that thread (the handler must not block).
public final class GPIODInputLine: GPIOInputLine, Sendable {
    public let address: GPIOLineAddress
    /// How long each blocking wait lasts before the thread checks for `close()`, in milliseconds.
    public let waitTimeoutMilliseconds: Int
    private let handle: GPIODLineHandle
    private let state = LockedValue(ReaderState())
    private let readerExited = DispatchSemaphore(value: 0)

    private struct ReaderState: Sendable {
        var handler: (@Sendable (GPIOEdge) -> Void)?
        var failure = LineFailureReport()
        var started = false
        var stopping = false
        var joined = false
        var readerThreadID: UInt?
    }

    /// Finds and requests the line (see `GPIODLineHandle.open`), consumer name `consumer`.
    /// Throws `.notFound` naming the chip or line, `.busy` naming the holder, `.permission`.
    public init(_ address: GPIOLineAddress, consumer: String = "tripod", waitTimeoutMilliseconds: Int = 100) throws {
        self.address = address
        self.waitTimeoutMilliseconds = max(1, waitTimeoutMilliseconds)
        handle = try GPIODLineHandle.open(address, consumer: consumer, request: .bothEdges)
    }

    /// The logical value now (`gpiod_line_get_value`); true means active (pressed).
    public func read() throws -> Bool {
        let subject = handle.subject
        return try handle.withLine("gpiod_line_get_value") { line in
            let value = gpiod_line_get_value(line)
            if value < 0 { throw GPIODErrors.error(subject, call: "gpiod_line_get_value", errno: errno) }
            return value == 1
        }
    }

    /// Installs the edge handler (replacing any earlier one) and starts the reader thread once.
    public func setEdgeHandler(_ handler: @escaping @Sendable (GPIOEdge) -> Void) {
        let start = state.withLock { s -> Bool in
            s.handler = handler
            guard !s.started, !s.stopping else { return false }
            s.started = true
            return true
        }
        guard start, !handle.isReleased else { return }
        let thread = Thread { [self] in readLoop() }
        thread.name = "gpiod \(address)"
        thread.start()
    }

    /// Called once, on the reader thread, if reading edges fails (e.g. ENODEV when the chip goes away).
    /// A failure that came before the handler was set is delivered now, on the calling thread.
    public func setFailureHandler(_ handler: @escaping @Sendable (HardwareError) -> Void) {
        if let earlier = state.withLock({ $0.failure.setHandler(handler) }) { handler(earlier) }
    }

    /// Stops the reader thread (within one wait timeout) and releases the line (`gpiod_line_release`).
    public func close() {
        let (mustJoin, onReader) = state.withLock { s -> (Bool, Bool) in
            s.stopping = true
            s.handler = nil  // drops what the handler captured (often the line's owner)
            let onReader = s.readerThreadID == Self.threadID()
            let mustJoin = s.started && !s.joined && !onReader
            if mustJoin { s.joined = true }
            return (mustJoin, onReader)
        }
        if onReader { return }  // the reader releases the line on its way out
        if mustJoin { readerExited.wait() }
        handle.release()
    }

    private func readLoop() {
        state.withLock { $0.readerThreadID = Self.threadID() }
        defer {
            // The line is released here (idempotent), so a close() from the handler works too.
            state.withLock { $0.readerThreadID = nil }
            handle.release()
            readerExited.signal()
        }
        let line = handle.line
        let timeout = timespec(tv_sec: waitTimeoutMilliseconds / 1000,
                               tv_nsec: (waitTimeoutMilliseconds % 1000) * 1_000_000)
        var events = [gpiod_line_event](repeating: gpiod_line_event(), count: 16)
        while !state.withLock({ $0.stopping }) {
            var wait = timeout
            let ready = gpiod_line_event_wait(line, &wait)
            if ready == 0 { continue }
            if ready < 0 {
                if errno == EINTR { continue }
                fail(GPIODErrors.error(handle.subject, call: "gpiod_line_event_wait", errno: errno))
                return
            }
            let count = gpiod_line_event_read_multiple(line, &events, UInt32(events.count))
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                fail(GPIODErrors.error(handle.subject, call: "gpiod_line_event_read_multiple", errno: errno))
                return
            }
            guard let handler = state.withLock({ $0.handler }) else { continue }
            for event in events.prefix(Int(count)) {
                let nanoseconds = Int64(event.ts.tv_sec) * 1_000_000_000 + Int64(event.ts.tv_nsec)
                let kind: GPIOEdgeKind = event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE) ? .rising : .falling
                handler(GPIOEdge(kind: kind, timestamp: MonotonicTime(nanoseconds: nanoseconds)))
            }
        }
    }

    /// Hands `error` to the failure handler, or keeps it for the next one set.
    private func fail(_ error: HardwareError) {
        state.withLock { $0.failure.fail(error, keep: !$0.stopping) }?(error)
    }

    private static func threadID() -> UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

    deinit { close() }
}
