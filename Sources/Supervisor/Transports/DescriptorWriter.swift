import Foundation
import Hardware

/// Writes console output to a file descriptor from its own thread, so a slow or stuck reader never
/// blocks the supervisor's loop. Output beyond `limitBytes` waiting is dropped, and the reader is
/// told how many lines were lost once it catches up.
final class DescriptorWriter: ConsoleOutput, @unchecked Sendable {
    private let descriptor: Int32
    private let limitBytes: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queued: [UInt8] = []
    private var droppedLines = 0
    private var closed = false
    private let onClose: @Sendable () -> Void

    /// Starts the writer thread for `descriptor` (which it does not close unless `closesDescriptor`).
    init(descriptor: Int32, limitBytes: Int = 1 << 20, closesDescriptor: Bool = false, onClose: @escaping @Sendable () -> Void = {}) {
        self.descriptor = descriptor
        self.limitBytes = limitBytes
        self.onClose = onClose
        let thread = Thread { [self] in self.drain(closesDescriptor: closesDescriptor) }
        thread.name = "tripod-console-writer"
        thread.start()
    }

    func write(lines: [String]) {
        var bytes: [UInt8] = []
        for line in lines { bytes += Array(line.utf8); bytes.append(0x0A) }
        enqueue(bytes, lines: lines.count)
    }

    func echo(_ bytes: [UInt8]) { enqueue(bytes, lines: 0) }

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

    /// Stops after what is queued has been written.
    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    /// Blocks until everything queued so far is written (for an orderly exit).
    func flush(timeout: Duration = .seconds(2)) {
        let deadline = Date().addingTimeInterval(timeout.secondsValue)
        condition.lock()
        while !queued.isEmpty && Date() < deadline { _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.01))) }
        condition.unlock()
    }

    private func drain(closesDescriptor: Bool) {
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
        if closesDescriptor { Glibc.close(descriptor) }
        onClose()
    }

    /// `write(2)` until done, retrying EINTR and short writes; false when the reader is gone.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { if errno == EAGAIN { usleep(1000) }; continue }
                return false
            }
            offset += n
        }
        return true
    }
}

/// Reads a file descriptor on its own thread and hands the bytes to the loop. `onEnd` runs on the
/// loop at end of input or on a read error.
final class DescriptorReader: @unchecked Sendable {
    private let descriptor: Int32
    init(descriptor: Int32, loop: any EventLoop, onBytes: @escaping @Sendable ([UInt8]) -> Void,
         onEnd: @escaping @Sendable (String?) -> Void) {
        self.descriptor = descriptor
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if n > 0 {
                    let chunk = Array(buffer[0..<n])
                    loop.execute { onBytes(chunk) }
                } else if n == 0 {
                    loop.execute { onEnd(nil) }
                    return
                } else if errno != EINTR {
                    let reason = String(cString: strerror(errno))
                    loop.execute { onEnd(reason) }
                    return
                }
            }
        }
        thread.name = "tripod-console-reader"
        thread.start()
    }
}
