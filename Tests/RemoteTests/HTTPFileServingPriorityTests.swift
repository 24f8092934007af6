import Foundation
import Syscalls
import Testing
@testable import Remote

/// A connection that has served a file runs at `HTTPDaemon.fileServingNice` from then on, so that
/// a rig being collected keeps its sensor's and encoder's cadence; other connections, and the
/// daemon's own threads, keep the process's priority.
@Suite struct HTTPFileServingPriorityTests {
    /// The `nice=N` line a `/nice` request answers with, from the bytes of one connection.
    private func nices(in bytes: [UInt8]) -> [Int32] {
        String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
            .compactMap { $0.hasPrefix("nice=") ? Int32($0.dropFirst(5)) : nil }
    }

    @Test func theThreadThatSendsAFileRunsLowerAndOthersDoNot() throws {
        let base = ThreadPriority.callingThreadNice
        let path = NSTemporaryDirectory() + "tripod-priority-\(UUID().uuidString)"
        try Data(repeating: 0x5a, count: 256 << 10).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = try HTTPDaemon(address: "127.0.0.1", port: 0, limits: HTTPLimits()) { request in
            if request.path == "/file" {
                let fd = open(path, O_RDONLY)
                return fd < 0 ? .text(500, "open") : .file(status: 200, descriptor: fd, offset: 0, length: 256 << 10, headers: [])
            }
            return .text(200, "nice=\(ThreadPriority.callingThreadNice)")
        }
        defer { daemon.stop() }
        let client = HTTPTestClient(port: daemon.port)

        // Before any file: a connection's thread has the process's priority.
        #expect(nices(in: client.request("GET", "/nice")?.body ?? []) == [base])

        // One connection: a file, then (pipelined on the same connection and thread) its nice.
        let fd = try #require(client.connect())
        defer { close(fd) }
        client.send(fd, Array("GET /file HTTP/1.1\r\nHost: x\r\n\r\nGET /nice HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let both = client.readAll(fd)
        #expect(both.count > 256 << 10, "the file and the second answer came back")
        #expect(nices(in: both) == [max(base, HTTPDaemon.fileServingNice)])

        // A new connection after it is not lowered: only that connection's thread was.
        #expect(nices(in: client.request("GET", "/nice")?.body ?? []) == [base])
        #expect(ThreadPriority.callingThreadNice == base, "the caller's own thread is untouched")
    }
}
