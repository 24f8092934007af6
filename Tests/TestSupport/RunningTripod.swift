import Foundation
import Hardware
import Lifecycle
import Transports

/// A `tripod run` on the simulated board with its stdin held open (end of input would stop it).
public final class RunningTripod: @unchecked Sendable {
    public let process = Process()
    public let stdin = Pipe()
    public let work: String
    public var socket: String { work + "/ctl.sock" }
    public var captures: String { work + "/captures" }
    public var state: String { work + "/state" }
    private let keepsWork: Bool

    /// `work`: an existing directory to run in again (kept afterwards); `environment` is added;
    /// `board` the board to run; `config` lines of a config file it gets (none: no `--config`).
    public init(work existing: String? = nil, environment: [String: String] = [:], board: String = "sim", config: [String] = []) throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let binDirectory = Bundle.main.bundleURL.deletingLastPathComponent()
        // Beside the test bundle (xctest), beside the running executable (tripod-bench, release),
        // or the debug build.
        let candidates = [binDirectory.appendingPathComponent("tripod").path,
                          URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tripod").path,
                          here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/tripod").path]
        guard let tripod = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw StartupError("no tripod executable at \(candidates); swift build --build-tests builds it")
        }
        keepsWork = existing != nil
        work = existing ?? NSTemporaryDirectory() + "tripod-ctl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.executableURL = URL(fileURLWithPath: tripod)
        process.arguments = ["run", "--board", board, "--captures", work + "/captures", "--state", work + "/state",
                             "--socket", socket]
        if !config.isEmpty {
            try (config.joined(separator: "\n") + "\n").write(toFile: work + "/tripod.conf", atomically: true, encoding: .utf8)
            process.arguments? += ["--config", work + "/tripod.conf"]
        }
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Until its control socket answers, however slowly a busy machine starts it (two minutes at
        // most: a safety net), or it exits.
        let socket = self.socket
        _ = waitUntil(seconds: 120) {
            if let probe = Self.connect(socket) { close(probe); return true }
            return !process.isRunning
        }
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        if !keepsWork { try? FileManager.default.removeItem(atPath: work) }
    }

    /// A connected AF_UNIX socket, or nil.
    public static func connect(_ path: String) -> Int32? {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0, var address = try? unixAddress(path) else { return nil }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if ok != 0 { close(fd); return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Waits until `status` names a frame at least `count` (the camera is streaming), not for a
    /// time; false at the deadline.
    @discardableResult
    public func waitForFrames(_ count: Int = 1, seconds: Double = 60) -> Bool {
        waitUntil(seconds: seconds) {
            guard let status = ask("status"), let range = status.range(of: #"\bframe=(\d+)"#, options: .regularExpression),
                  let frame = Int(status[range].dropFirst("frame=".count)) else { return false }
            return frame >= count
        }
    }

    /// Sends `line` on a new connection and returns the first reply line starting with ok/err.
    public func ask(_ line: String) -> String? {
        guard let fd = Self.connect(socket) else { return nil }
        defer { close(fd) }
        Self.send(fd, line + "\n")
        return Self.readReply(fd)
    }

    public static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    public static func readReply(_ fd: Int32) -> String? {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return nil }
            pending += buffer[0..<n]
            while let newline = pending.firstIndex(of: 0x0A) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if text.hasPrefix("ok") || text.hasPrefix("err") { return text }
            }
        }
    }
}
