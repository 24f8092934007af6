import Foundation
import Hardware
import Syscalls

/// Writes console output to a file descriptor from its own thread, so a slow or stuck reader never
/// blocks the supervisor's loop. Output beyond `limitBytes` waiting is dropped, and the reader is
/// told how many lines were lost once it catches up.
public final class DescriptorWriter: ConsoleOutput, @unchecked Sendable {
    private let descriptor: Int32
    private let syscalls: any SystemCalls
    /// True for a socket: written with `send(MSG_NOSIGNAL)`, so a client that hung up is EPIPE
    /// here even where SIGPIPE is not ignored.
    private let isSocket: Bool
    private let limitBytes: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queued: [UInt8] = []
    private var droppedLines = 0
    private var closed = false
    private let shared: SharedDescriptor?
    /// Set when the writer thread has ended.
    private let finished = LockedValue(false)

    /// Starts the writer thread for `descriptor`, which it never closes (stdout).
    public convenience init(descriptor: Int32, limitBytes: Int = 1 << 20, syscalls: any SystemCalls = SystemSyscalls()) {
        self.init(descriptor: descriptor, shared: nil, limitBytes: limitBytes, syscalls: syscalls)
    }

    /// Starts the writer thread for a descriptor shared with its reader; the writer releases it when
    /// it ends (after `close()`, or when the client is gone).
    public convenience init(shared: SharedDescriptor, limitBytes: Int) {
        self.init(descriptor: shared.descriptor, shared: shared, limitBytes: limitBytes, syscalls: shared.syscalls)
    }

    private init(descriptor: Int32, shared: SharedDescriptor?, limitBytes: Int, syscalls: any SystemCalls) {
        self.descriptor = descriptor
        self.syscalls = syscalls
        isSocket = syscalls.isSocket(descriptor)
        self.shared = shared
        self.limitBytes = limitBytes
        let thread = Thread { [self] in self.drain() }
        thread.name = "tripod-console-writer"
        thread.start()
    }

    public func write(lines: [String]) {
        var bytes: [UInt8] = []
        for line in lines { bytes += Array(line.utf8); bytes.append(0x0A) }
        enqueue(bytes, lines: lines.count)
    }

    public func echo(_ bytes: [UInt8]) { enqueue(bytes, lines: 0) }

    private func enqueue(_ bytes: [UInt8], lines: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        if queued.count + bytes.count > limitBytes {
            droppedLines += lines
            return
        }
        if droppedLines > 0 {
            queued += Array("event console.overflow dropped=\(droppedLines)\n".utf8)
            droppedLines = 0
        }
        queued += bytes
        condition.signal()
    }

    /// Stops after what is queued has been written. A client that has not read it within
    /// `grace` is cut off (`shutdown(2)` on a socket), so a stuck reader never keeps the thread.
    public func close(grace: Duration) {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
        guard let shared else { return }
        let done = self.finished
        DispatchQueue.global().asyncAfter(deadline: .now() + grace.secondsValue) {
            if !done.current { shared.shutdown() }
        }
    }

    public func close() { close(grace: .seconds(5)) }

    /// Bytes waiting for the client (never more than `limitBytes`).
    public var queuedByteCount: Int {
        condition.lock(); defer { condition.unlock() }
        return queued.count
    }

    /// Lines dropped since the client last caught up (reported to it as `event console.overflow`).
    public var droppedLineCount: Int {
        condition.lock(); defer { condition.unlock() }
        return droppedLines
    }

    /// Blocks until everything queued so far is written (for an orderly exit).
    public func flush(timeout: Duration = .seconds(2)) {
        let deadline = Date().addingTimeInterval(timeout.secondsValue)
        condition.lock()
        while !queued.isEmpty && Date() < deadline { _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.01))) }
        condition.unlock()
    }

    private func drain() {
        while true {
            condition.lock()
            while queued.isEmpty && !closed { condition.wait() }
            if queued.isEmpty && closed { condition.unlock(); break }
            let chunk = queued
            queued.removeAll(keepingCapacity: true)
            condition.unlock()
            if !writeAll(chunk) { break }
            condition.lock(); condition.broadcast(); condition.unlock()
        }
        condition.lock(); queued.removeAll(); closed = true; condition.broadcast(); condition.unlock()
        finished.withLock { $0 = true }
        shared?.shutdown()  // wakes the reader of a socket whose client is closed or gone
        shared?.release()
    }

    /// `write(2)` (`send(2)` on a socket) until done, retrying EAGAIN and short writes (the seam
    /// retries EINTR); false when the reader is gone.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                return Result { () throws(SyscallError) -> Int in
                    isSocket ? try syscalls.send(descriptor, rest, waits: true) : try syscalls.write(descriptor, rest)
                }
            }
            switch result {
            case .success(let n): offset += n
            case .failure(let error) where error.errno == EAGAIN: usleep(1000)
            case .failure: return false
            }
        }
        return true
    }
}

/// Reads a file descriptor on its own thread and hands the bytes to the loop, one chunk of at most
/// `chunkBytes` at a time: the next `read(2)` waits until the loop has handled the previous chunk.
/// So a client that floods input holds at most one chunk in the loop's queue (the rest waits in the
/// kernel and, eventually, blocks the client), and other clients' lines interleave with it.
/// `onEnd` runs on the loop at end of input or on a read error.
public final class DescriptorReader: @unchecked Sendable {
    /// The largest chunk handed to the loop in one turn.
    public static let chunkBytes = 4096
    private let descriptor: Int32
    public convenience init(shared: SharedDescriptor, loop: any EventLoop, onBytes: @escaping @Sendable ([UInt8]) -> Void,
         onEnd: @escaping @Sendable (String?) -> Void) {
        self.init(descriptor: shared.descriptor, shared: shared, syscalls: shared.syscalls, loop: loop, onBytes: onBytes, onEnd: onEnd)
    }

    /// Reads a descriptor it never closes (stdin).
    public convenience init(descriptor: Int32, syscalls: any SystemCalls = SystemSyscalls(), loop: any EventLoop,
                     onBytes: @escaping @Sendable ([UInt8]) -> Void, onEnd: @escaping @Sendable (String?) -> Void) {
        self.init(descriptor: descriptor, shared: nil, syscalls: syscalls, loop: loop, onBytes: onBytes, onEnd: onEnd)
    }

    private init(descriptor: Int32, shared: SharedDescriptor?, syscalls: any SystemCalls, loop: any EventLoop,
                 onBytes: @escaping @Sendable ([UInt8]) -> Void, onEnd: @escaping @Sendable (String?) -> Void) {
        self.descriptor = descriptor
        let thread = Thread {
            defer { shared?.release() }
            var buffer = [UInt8](repeating: 0, count: DescriptorReader.chunkBytes)
            let handled = DispatchSemaphore(value: 0)
            while true {
                let result = buffer.withUnsafeMutableBytes { raw in
                    Result { () throws(SyscallError) -> Int in try syscalls.read(descriptor, raw) }
                }
                switch result {
                case .success(let n) where n > 0:
                    let chunk = Array(buffer[0..<n])
                    loop.execute { onBytes(chunk); handled.signal() }
                    handled.wait()
                case .success:
                    loop.execute { onEnd(nil) }
                    return
                case .failure(let error):
                    let reason = error.description
                    loop.execute { onEnd(reason) }
                    return
                }
            }
        }
        thread.name = "tripod-console-reader"
        thread.start()
    }

    /// Feeds a client's input into `session` on the loop, through the reader `start` makes with
    /// the two handlers; `ended` runs on the loop at end of input or on a read error.
    public static func feeding(_ session: ConsoleSession, of supervisor: any ConsoleHost, loop: any EventLoop,
                        ended: @escaping @Sendable (any ConsoleHost, ConsoleSession) -> Void,
                        start: (@escaping @Sendable ([UInt8]) -> Void, @escaping @Sendable (String?) -> Void) -> DescriptorReader) {
        let pair = LoopBound((supervisor, session), loop: loop)
        _ = start({ bytes in
            let (s, c) = pair.value
            s.receive(bytes: bytes, from: c)
        }, { _ in
            let (s, c) = pair.value
            ended(s, c)
        })
    }
}
