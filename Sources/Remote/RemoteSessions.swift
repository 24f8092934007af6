import Foundation
import Hardware
import Transports

/// Runs console lines for the web: each request is a console session of its own, in JSON mode,
/// on the host's loop, so `POST /api/command`, `/api/status` and `/api/formats` get exactly what
/// the console's JSON mode answers. Called on a connection's thread, which waits for the reply.
final class RemoteCommandRunner: Sendable {
    let host: LoopBound<any RemoteHost>
    /// How long a request waits for a reply (a command that answers later, a busy loop).
    let timeout: Duration
    let stopping = StopFlag()

    init(host: LoopBound<any RemoteHost>, timeout: Duration = .seconds(60)) {
        self.host = host; self.timeout = timeout
    }

    /// The JSON reply to `line`, or nil when none came within `timeout` or the server stops.
    func run(_ line: String) -> String? {
        let collector = ReplyCollector()
        let host = self.host
        host.loop.execute {
            let h = host.value
            let session = h.attach(name: "remote", kind: .remote, output: collector)
            session.mode = .json
            collector.session = LoopBound(session, loop: host.loop)
            h.receive(bytes: Array((line + "\n").utf8), from: session)
        }
        let reply = collector.wait(timeout: timeout, stopping: stopping)
        host.loop.execute {
            guard let session = collector.session?.value, !session.isClosed else { return }
            host.value.detach(session)
        }
        return reply
    }

    /// Runs `body` on the loop and returns its result, or nil after `timeout` or a stop.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable (any RemoteHost) -> T) -> T? {
        let slot = ResultSlot<T>()
        let host = self.host
        host.loop.execute { slot.put(body(host.value)) }
        return slot.wait(timeout: timeout, stopping: stopping)
    }

    /// Wakes every waiting request (the server stops).
    func stop() { stopping.set() }
}

/// Set once when the server stops; waits poll it.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

/// One value handed from the loop to a waiting thread.
final class ResultSlot<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: T?

    func put(_ v: T) { condition.lock(); value = v; condition.broadcast(); condition.unlock() }

    /// Waits in steps of 100 ms, so a stop is seen at once.
    func wait(timeout: Duration, stopping: StopFlag) -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout.secondsValue)
        condition.lock()
        defer { condition.unlock() }
        while value == nil, !stopping.isSet, Date() < deadline {
            _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.1)))
        }
        return value
    }
}

/// The output of a command's session: keeps its one reply line (events are not the reply).
final class ReplyCollector: ConsoleOutput, @unchecked Sendable {
    private let slot = ResultSlot<String>()
    /// Set and read on the loop.
    var session: LoopBound<ConsoleSession>?

    func write(lines: [String]) {
        for line in lines where line.hasPrefix("{\"type\":\"reply\"") { slot.put(line) }
    }
    func close() {}
    func wait(timeout: Duration, stopping: StopFlag) -> String? { slot.wait(timeout: timeout, stopping: stopping) }
}

/// `GET /api/events`: a console session in JSON mode whose events are sent as server-sent events.
/// The loop writes into a bounded queue (a client that does not read loses the oldest events and is
/// told how many); the connection's thread sends them.
final class EventStream: ConsoleOutput, HTTPStreamBody, @unchecked Sendable {
    static let queueLimit = 256
    static let keepAlive: Duration = .seconds(10)
    private let condition = NSCondition()
    private var queued: [String] = []
    private var dropped = 0
    private var ended = false
    private var pending: [UInt8] = []
    private var offset = 0
    private let onFinished: @Sendable () -> Void
    private let stopping: StopFlag

    init(stopping: StopFlag, onFinished: @escaping @Sendable () -> Void) {
        self.stopping = stopping
        self.onFinished = onFinished
        // The first bytes open the stream at once (EventSource's `open`).
        pending = Array(": tripod events\nretry: 2000\n\n".utf8)
    }

    // ConsoleOutput (on the loop): only events go out.
    func write(lines: [String]) {
        condition.lock()
        for line in lines where line.hasPrefix("{\"type\":\"event\"") {
            if queued.count >= Self.queueLimit { queued.removeFirst(); dropped += 1 }
            queued.append(line)
        }
        condition.broadcast()
        condition.unlock()
    }

    func close() { condition.lock(); ended = true; condition.broadcast(); condition.unlock() }

    // HTTPStreamBody (on the connection's thread).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        if offset >= pending.count {
            condition.lock()
            let deadline = Date(timeIntervalSinceNow: Self.keepAlive.secondsValue)
            while queued.isEmpty, !ended, !stopping.isSet, Date() < deadline {
                _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.1)))
            }
            if ended || stopping.isSet { condition.unlock(); return nil }
            var text = dropped > 0 ? "event: dropped\ndata: {\"dropped\":\(dropped)}\n\n" : ""
            dropped = 0
            for line in queued { text += "data: \(line)\n\n" }
            queued.removeAll()
            condition.unlock()
            pending = Array((text.isEmpty ? ": keep-alive\n\n" : text).utf8)
            offset = 0
        }
        let n = min(buffer.count, pending.count - offset)
        pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
        offset += n
        return n
    }

    func finished() { close(); onFinished() }
}

/// `GET /stream.mjpg`: the newest preview JPEG each time the client can take one, as the parts
/// of a `multipart/x-mixed-replace` body.
final class MJPEGStream: HTTPStreamBody, @unchecked Sendable {
    static let boundary = "tripodframe"
    private let encoder: PreviewEncoder
    private var sequence: UInt64 = 0
    private var part: [UInt8] = []
    private var offset = 0
    private let left = StopFlag()

    init(encoder: PreviewEncoder) {
        self.encoder = encoder
        sequence = encoder.watcherJoined()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        if offset >= part.count {
            guard let next = encoder.frame(after: sequence, timeout: .seconds(1)) else { return encoder.isRunning ? 0 : nil }
            sequence = next.sequence
            let stamp = next.sensorTimestamp.map { "X-Sensor-Timestamp: \($0)\r\n" } ?? ""
            part = Array("--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(next.jpeg.count)\r\n\(stamp)\r\n".utf8)
                + next.jpeg + Array("\r\n".utf8)
            offset = 0
        }
        let n = min(buffer.count, part.count - offset)
        part.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
        offset += n
        return n
    }

    func finished() {
        guard !left.isSet else { return }
        left.set()
        encoder.watcherLeft()
    }
}
