import Console
import Foundation
import Hardware
import Lifecycle
import TestSupport
import Testing
@testable import Supervisor
@testable import Transports

/// Transports and sessions: stuck clients, floods, several clients in their own modes, quit.
@Suite struct ConsoleTransportTests {
    /// A connected pair of stream sockets; index 0 is the supervisor's end.
    func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw StartupError("socketpair: \(String(cString: strerror(errno)))")
        }
        return (fds[0], fds[1])
    }

    /// Reads what is available without blocking.
    func drain(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n <= 0 { return all }
            all += buffer[0..<n]
        }
    }

    @Test func writerToAClientThatNeverReadsStaysBoundedAndReportsTheLoss() throws {
        let (mine, peer) = try socketPair()
        defer { close(peer) }
        let shared = SharedDescriptor(mine, users: 1)
        let limit = 32 << 10
        let writer = DescriptorWriter(shared: shared, limitBytes: limit)
        let line = String(repeating: "x", count: 99)
        // Far more than the socket buffer plus the queue: every call returns, nothing blocks.
        for _ in 0..<20_000 { writer.write(lines: [line]) }
        #expect(writer.queuedByteCount <= limit)
        // (Whether lines are being dropped right now depends on how far the writer thread got; the
        // account below does not.)
        // The client catches up: it is told how many lines it lost, then gets new output.
        var received = drain(peer)
        // Real-time deadlines are safety nets only: a busy machine runs the writer thread slowly.
        var deadline = Date().addingTimeInterval(60)
        while writer.queuedByteCount > 0 && Date() < deadline { received += drain(peer); usleep(500) }
        received += drain(peer)
        writer.write(lines: ["ok after"])
        deadline = Date().addingTimeInterval(60)
        while !String(decoding: received, as: UTF8.self).contains("ok after") && Date() < deadline {
            received += drain(peer); usleep(500)
        }
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.contains("event console.overflow dropped="))
        #expect(text.hasSuffix("ok after\n"))
        // Nothing is lost silently: every line was either delivered or counted in a notice.
        let lines = text.split(separator: "\n")
        let delivered = lines.filter { $0 == Substring(line) }.count
        let reported = lines.compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }.reduce(0, +)
        #expect(delivered + reported == 20_000, "\(delivered) delivered + \(reported) reported dropped")
        #expect(delivered < 20_000, "a client that never reads loses lines instead of blocking the writer")
        writer.close()
    }

    @Test func aStuckClientNeverStallsTheSupervisorOrOthers() throws {
        let harness = try SimulatedBoardHarness.devices()
        let (mine, peer) = try socketPair()
        defer { close(peer) }
        let writer = DescriptorWriter(shared: SharedDescriptor(mine, users: 1), limitBytes: 16 << 10)
        let stuck = harness.onLoop { $0.attach(name: "stuck", kind: .control, output: writer) }
        let (other, otherOutput) = harness.attach(kind: .control, name: "other")
        for _ in 0..<100 {
            // 60 help replies per read, about 40 KB each time: far beyond the socket buffer.
            harness.send(Array(String(repeating: "help\n", count: 60).utf8), from: stuck, output: RecordingConsoleOutput(),
                         settle: .milliseconds(1))
            let reply = harness.send(Array("get exposure.iso\n".utf8), from: other, output: otherOutput, settle: .milliseconds(1))
            #expect(reply == ["ok exposure.iso=100"])
        }
        #expect(writer.queuedByteCount <= 16 << 10)
        #expect(writer.droppedLineCount > 0)
        writer.close(grace: .milliseconds(1))
    }

    @Test func floodOnAControlClientRunsTheLimitAndSaysWhatWasDropped() throws {
        let harness = try SimulatedBoardHarness.devices()
        let (session, output) = harness.attach(kind: .control)
        let lines = harness.send(Array(String(repeating: "get exposure.iso\n", count: 200).utf8), from: session, output: output)
        #expect(lines.filter { $0 == "ok exposure.iso=100" }.count == ConsoleInputLimits.linesPerRead)
        #expect(lines.last?.hasPrefix("err flood dropped \(200 - ConsoleInputLimits.linesPerRead) of 200 lines") == true)
        // The console carries on.
        #expect(harness.send("get exposure.mode", from: session, output: output) == ["ok exposure.mode=auto"])
        // Garbage counts too: 100 rejected lines give the limit's errors, then one flood error.
        let garbage = harness.send(Array(String(repeating: "\u{1}\n", count: 100).utf8), from: session, output: output)
        #expect(garbage.filter { $0.hasPrefix("err bad-input") }.count == ConsoleInputLimits.linesPerRead)
        #expect(garbage.last?.hasPrefix("err flood") == true)
    }

    @Test func stdioRunsAPipedScriptInFull() throws {
        let harness = try SimulatedBoardHarness.devices()
        let (session, output) = harness.attach(kind: .stdio)
        let lines = harness.send(Array(String(repeating: "get exposure.iso\n", count: 200).utf8), from: session, output: output)
        #expect(lines.count == 200)
        #expect(lines.allSatisfy { $0 == "ok exposure.iso=100" })
    }

    @Test func severalClientsEachInTheirOwnMode() throws {
        let harness = try SimulatedBoardHarness.devices()
        let (a, aOut) = harness.attach(kind: .control, name: "a")
        let (b, bOut) = harness.attach(kind: .serial, name: "b")
        #expect(harness.send("json on", from: a, output: aOut) == [#"{"type":"reply","ok":true,"values":{"json":"on"}}"#])
        #expect(harness.send("get exposure.iso", from: a, output: aOut) == [#"{"type":"reply","ok":true,"values":{"exposure.iso":"100"}}"#])
        #expect(harness.send("get exposure.iso", from: b, output: bOut) == ["ok exposure.iso=100"])
        // A change by one client is seen by the other; events reach both, each in its mode.
        _ = harness.send("set exposure.iso 400", from: b, output: bOut)
        // (The camera applies the new ISO a few frames later; until then `active=` shows the old one.)
        let seen = harness.send("get exposure.iso", from: a, output: aOut)
        #expect(seen.count == 1 && seen[0].hasPrefix(#"{"type":"reply","ok":true,"values":{"exposure.iso":"400""#))
        harness.onLoop { $0.broadcast(ConsoleEvent("storage.low", [("free", "1GB")])) }
        #expect(aOut.take() == [#"{"type":"event","event":"storage.low","values":{"free":"1GB"}}"#])
        #expect(bOut.take() == ["event storage.low free=1GB"])
    }

    @Test func quitOnAClientClosesOnlyThatClient() throws {
        let harness = try SimulatedBoardHarness.devices()
        let (a, aOut) = harness.attach(kind: .control, name: "a")
        let (b, bOut) = harness.attach(kind: .serial, name: "b")
        #expect(harness.send("quit", from: a, output: aOut) == ["ok closed=a"])
        #expect(aOut.closed && a.isClosed)
        #expect(harness.send("status", from: a, output: aOut).isEmpty)
        #expect(harness.supervisor.state == .ready)
        #expect(harness.send("get exposure.mode", from: b, output: bOut) == ["ok exposure.mode=auto"])
    }

    @Test func quitOnStdioStopsAfterWorkInProgressWithStatusZero() throws {
        let harness = try SimulatedBoardHarness.devices()
        harness.onLoop { $0.beginWork("bracket") }
        let (session, output) = harness.attach(kind: .stdio, name: "stdio")
        #expect(harness.send("quit", from: session, output: output) == ["ok state=\"stopping after work in progress\""])
        #expect(harness.supervisor.state == .stopping)
        #expect(harness.supervisor.exitStatus == nil)
        harness.onLoop { $0.endWork("bracket") }
        #expect(harness.supervisor.state == .stopped)
        #expect(harness.supervisor.exitStatus == 0)
    }

    @Test func endOfInputOnStdioStopsTheSupervisor() throws {
        let harness = try SimulatedBoardHarness.devices()
        let (session, _) = harness.attach(kind: .stdio, name: "stdio")
        harness.onLoop { $0.endOfInput(from: session) }
        #expect(harness.supervisor.state == .stopped)
    }

    @Test func endOfInputElsewhereLeavesTheSupervisorRunning() throws {
        let harness = try SimulatedBoardHarness.devices()
        let (session, _) = harness.attach(kind: .control, name: "ctl")
        harness.onLoop { $0.endOfInput(from: session) }
        #expect(harness.supervisor.state == .ready)
    }
}
