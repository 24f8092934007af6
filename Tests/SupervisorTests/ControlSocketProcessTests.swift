import Foundation
import Testing
import Hardware
@testable import Supervisor
@testable import Transports

/// The control socket against a real `tripod run` process: clients that hang up, and too many clients.
@Suite(.serialized) struct ControlSocketProcessTests {
    /// A `tripod run` on the simulated board with its stdin held open (end of input would stop it).
    final class RunningTripod: @unchecked Sendable {
        let process = Process()
        let stdin = Pipe()
        let work: String
        var socket: String { work + "/ctl.sock" }
        var captures: String { work + "/captures" }
        private let keepsWork: Bool

        /// `work`: an existing directory to run in again (kept afterwards); `environment` is added.
        init(work existing: String? = nil, environment: [String: String] = [:]) throws {
            let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            let binDirectory = Bundle.main.bundleURL.deletingLastPathComponent()
            let candidates = [binDirectory.appendingPathComponent("tripod").path,
                              here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/tripod").path]
            guard let tripod = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw StartupError("no tripod executable at \(candidates); swift build --build-tests builds it")
            }
            keepsWork = existing != nil
            work = existing ?? NSTemporaryDirectory() + "tripod-ctl-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.executableURL = URL(fileURLWithPath: tripod)
            process.arguments = ["run", "--board", "sim", "--captures", work + "/captures", "--state", work + "/state",
                                 "--socket", socket]
            process.standardInput = stdin
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<200 {
                if let probe = Self.connect(socket) { close(probe); break }
                usleep(50_000)
            }
        }

        deinit {
            if process.isRunning { process.terminate(); process.waitUntilExit() }
            if !keepsWork { try? FileManager.default.removeItem(atPath: work) }
        }

        /// A connected AF_UNIX socket, or nil.
        static func connect(_ path: String) -> Int32? {
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

        /// Sends `line` on a new connection and returns the first reply line starting with ok/err.
        func ask(_ line: String) -> String? {
            guard let fd = Self.connect(socket) else { return nil }
            defer { close(fd) }
            Self.send(fd, line + "\n")
            return Self.readReply(fd)
        }

        static func send(_ fd: Int32, _ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        static func readReply(_ fd: Int32) -> String? {
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

    /// A client that sends commands and hangs up before reading the replies killed the supervisor
    /// with SIGPIPE (status 141).
    @Test func clientsThatHangUpBeforeTheRepliesDoNotKillTheSupervisor() throws {
        let tripod = try RunningTripod()
        let first = tripod.ask("status")
        #expect(first?.hasPrefix("ok") == true, "\(first ?? "nil")")
        for _ in 0..<20 {
            guard let fd = RunningTripod.connect(tripod.socket) else { Issue.record("cannot connect"); return }
            RunningTripod.send(fd, String(repeating: "help\nformats\nstatus\n", count: 20))
            // Reset on close (SO_LINGER 0): the replies meet a socket that is gone.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(fd)
        }
        // The supervisor still works through the replies to the clients that left (1200 lines): a
        // busy machine makes that slow, not wrong. Ask until it answers, while it runs (each ask
        // waits 10 s; two minutes at most).
        var status: String?
        let deadline = Date().addingTimeInterval(120)
        while status?.hasPrefix("ok") != true && tripod.process.isRunning && Date() < deadline { status = tripod.ask("status") }
        #expect(tripod.process.isRunning, "exit status \(tripod.process.isRunning ? 0 : tripod.process.terminationStatus)")
        #expect(status?.hasPrefix("ok") == true, "\(status ?? "nil")")
        tripod.process.terminate()
        tripod.process.waitUntilExit()
        #expect(tripod.process.terminationReason == .exit && tripod.process.terminationStatus == 0)
    }

    /// Each client costs two threads, and there was no limit.
    @Test func theNinthClientIsRefusedClearlyAndASlotFreesWhenOneLeaves() throws {
        let tripod = try RunningTripod()
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        // Eight clients held at once. A connection that went before them (the start-up probe, an
        // earlier ask) frees its slot once the supervisor has seen it leave, which a busy machine
        // makes late: a busy refusal of one of the eight is asked again until then (a minute at most).
        let holdDeadline = Date().addingTimeInterval(60)
        while held.count < 8 {
            guard let fd = RunningTripod.connect(tripod.socket) else { Issue.record("cannot connect"); return }
            RunningTripod.send(fd, "status\n")
            let reply = RunningTripod.readReply(fd)
            if reply?.hasPrefix("ok") == true { held.append(fd); continue }
            close(fd)
            guard reply?.hasPrefix("err busy") == true, Date() < holdDeadline else {
                Issue.record("client \(held.count + 1) of 8: \(reply ?? "nil")"); return
            }
            usleep(20_000)
        }
        let refused = tripod.ask("status")
        #expect(refused?.hasPrefix("err busy 8 control clients are connected") == true, "\(refused ?? "nil")")
        close(held.removeLast())
        // The slot frees once the supervisor has seen the client leave: ask until then (a minute at
        // most, so a busy machine is not a failure).
        var answered: String?
        let deadline = Date().addingTimeInterval(60)
        while answered?.hasPrefix("ok") != true && Date() < deadline {
            usleep(100_000)
            answered = tripod.ask("status")
        }
        #expect(answered?.hasPrefix("ok") == true, "\(answered ?? "nil")")
    }
}
