import Foundation
import Testing
import TestSupport
@testable import Remote

/// The head deadline's table without a server or a clock to wait on: `reap(now:)` is given the
/// instant, and the shutdowns go through the Syscalls seam (FaultInjectingSyscalls logs them).
@Suite struct HeadDeadlinesUnitTests {
    /// A connected Unix socket pair: the server's end (in the table) and the peer's.
    static func pair() throws -> (server: Int32, peer: Int32) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.EMFILE) }
        return (fds[0], fds[1])
    }

    /// True when the peer's end reads the end of the stream now (its server end was shut down).
    static func sawEnd(_ peer: Int32) -> Bool {
        var probe = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
        guard poll(&probe, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return read(peer, &byte, 1) == 0
    }

    @Test func onlyHeadsPastTheDeadlineAreShutDownOnceAndNeverClosed() throws {
        let syscalls = FaultInjectingSyscalls()
        let deadlines = HeadDeadlines(deadline: .seconds(10), syscalls: syscalls)
        // 1 awaits its head; 2 is being served (a stream); 3 ended a request and awaits the next
        // head; 4 was closed by libmicrohttpd.
        let sockets = try (1...4).map { _ in try Self.pair() }
        defer { sockets.forEach { close($0.server); close($0.peer) } }
        for (i, socket) in sockets.enumerated() { deadlines.opened(UInt(i + 1), socket: socket.server) }
        deadlines.requestArrived(2)
        deadlines.requestArrived(3)
        deadlines.requestEnded(3)
        deadlines.closed(4)
        // An entry without a socket is never kept.
        deadlines.opened(5, socket: -1)

        deadlines.reap(now: .now)
        #expect(deadlines.cutCount == 0)
        #expect(syscalls.log.isEmpty, "\(syscalls.log)")

        deadlines.reap(now: .now + .seconds(11))
        #expect(deadlines.cutCount == 2)
        #expect(Set(syscalls.log) == ["shutdown fd \(sockets[0].server)", "shutdown fd \(sockets[2].server)"], "\(syscalls.log)")
        #expect(sockets.map { Self.sawEnd($0.peer) } == [true, false, true, false])
        #expect(syscalls.count(.close) == 0, "libmicrohttpd closes, never the reaper")

        // Cut once: libmicrohttpd closes it soon and reports the close.
        deadlines.reap(now: .now + .seconds(30))
        #expect(deadlines.cutCount == 2 && syscalls.count(.shutdown) == 2)
        // The stream's connection ends its request: its next head runs against the deadline.
        deadlines.requestEnded(2)
        deadlines.reap(now: .now + .seconds(11))
        #expect(deadlines.cutCount == 3 && Self.sawEnd(sockets[1].peer))
    }

    /// A shutdown that fails (the peer already gone) is counted as a cut and changes nothing else.
    @Test func aFailedShutdownIsLeftToLibmicrohttpd() throws {
        let syscalls = FaultInjectingSyscalls.failing(.shutdown, ENOTCONN)
        let deadlines = HeadDeadlines(deadline: .seconds(1), syscalls: syscalls)
        let socket = try Self.pair()
        defer { close(socket.server); close(socket.peer) }
        deadlines.opened(1, socket: socket.server)
        deadlines.reap(now: .now + .seconds(2))
        #expect(deadlines.cutCount == 1 && syscalls.count(.shutdown) == 1)
    }
}
