import Foundation
import Hardware
import TestSupport

/// A release `tripod run --board sim` beside a benchmark, driven through its stdio console: the
/// one way the real-time benches start the firmware, send it lines and wait for its replies.
final class SimulatedTripodProcess {
    let process = Process()
    private let input = Pipe()
    private let lines = ConsoleLines()
    /// What the bench calls it in errors.
    let label: String

    /// Starts `binary` with its captures, state and socket under `directory`.
    init(binary: String, directory: URL, label: String) throws {
        self.label = label
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", "--board", "sim", "--console", "stdio", "--captures", directory.appendingPathComponent("captures").path,
                             "--state", directory.appendingPathComponent("state").path,
                             "--socket", directory.appendingPathComponent("s.sock").path]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let lines = self.lines
        Thread.detachNewThread { [handle = output.fileHandleForReading] in
            while true {
                let data = handle.availableData  // blocks; empty at the end of output
                if data.isEmpty { break }
                lines.append(data)
            }
            lines.finish()
        }
    }

    /// Sends `line` and returns the first line after it that starts with `prefix`; an `err` reply
    /// first, or nothing within `seconds`, throws.
    @discardableResult
    func send(_ line: String, waitFor prefix: String = "ok", timeout seconds: Double = 30) throws -> String {
        let mark = lines.count
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let reply = lines.since(mark).first(where: { $0.hasPrefix(prefix) || $0.hasPrefix("err") }) {
                guard reply.hasPrefix(prefix) else { throw HardwareError(.invalidArgument, "\(label): \(line): \(reply)") }
                return reply
            }
            usleep(10_000)
        }
        throw HardwareError(.timeout, "\(label): \(line): no \(prefix) within \(seconds) s; last lines: \(lines.since(max(lines.count - 5, 0)))")
    }

    /// `quit`, then waits for the console's end (the process's); one that never ends is stopped.
    func quit() {
        input.fileHandleForWriting.write(Data("quit\n".utf8))
        if !lines.waitForEnd(seconds: 60) { process.terminate(); _ = lines.waitForEnd(seconds: 10) }
    }
}
