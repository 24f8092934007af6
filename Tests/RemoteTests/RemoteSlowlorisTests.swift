import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Remote

/// Slowloris: connections that trickle a request head, a byte at a time, from other loopback
/// addresses (127.0.0.2, 127.0.0.3). The owner is still answered, and every trickler is cut at the
/// head deadline (HTTPLimits.headDeadline), however often its bytes come.
@Suite(.serialized) struct RemoteSlowlorisTests {
    /// Connections that each sent a request line and then send one header byte every `interval`;
    /// a thread watches each for its close (the server's end).
    final class Tricklers: Sendable {
        struct Connection { let fd: Int32; let opened: ContinuousClock.Instant; var closed: ContinuousClock.Instant? }
        private let state = Mutex<[Connection]>([])
        private let stopping = Atomic<Bool>(false)
        private let finished = DispatchSemaphore(value: 0)
        let interval: Duration

        init(interval: Duration) { self.interval = interval }

        /// Opens `count` connections from `source` to `port` and sends each `start` (by default a
        /// request line and half a header; the trickle goes on from there).
        func open(_ count: Int, from source: String, port: Int, start: String = "GET /api/status HTTP/1.1\r\nHost: x\r\nX-Slow: ") {
            let client = HTTPTestClient(port: port)
            for _ in 0..<count {
                // Before connect: the server's accept, where its deadline starts, comes after.
                let opened = ContinuousClock.now
                guard let fd = client.connect(timeoutSeconds: 1, from: source) else { continue }
                client.send(fd, Array(start.utf8))
                state.withLock { $0.append(Connection(fd: fd, opened: opened, closed: nil)) }
            }
        }

        /// Starts the trickle: a byte to each open connection every `interval`, and a look for
        /// closes every 50 ms.
        func start() {
            let thread = Thread { [self] in
                var lastByte = ContinuousClock.now
                while !stopping.load(ordering: .relaxed) {
                    let sendNow = ContinuousClock.now - lastByte >= interval
                    if sendNow { lastByte = .now }
                    state.withLock { connections in
                        for i in connections.indices where connections[i].closed == nil {
                            var probe = pollfd(fd: connections[i].fd, events: Int16(POLLIN), revents: 0)
                            // Readable on a trickler means the server's end: an error answer or the close.
                            if poll(&probe, 1, 0) > 0 { connections[i].closed = .now; continue }
                            if sendNow {
                                var byte = UInt8(ascii: "a")
                                if Glibc.send(connections[i].fd, &byte, 1, Int32(MSG_NOSIGNAL)) != 1 { connections[i].closed = .now }
                            }
                        }
                    }
                    usleep(50_000)  // deliberate real time: the tricklers' cadence (a byte every `interval`)
                }
                finished.signal()
            }
            thread.start()
        }

        /// Connections still open (not seen closed).
        var openCount: Int { state.withLock { $0.filter { $0.closed == nil }.count } }
        var count: Int { state.withLock { $0.count } }
        /// When the first of them began to connect: no deadline (from an accept after it) can have
        /// cut any before this plus the deadline.
        var firstOpened: ContinuousClock.Instant? { state.withLock { $0.map(\.opened).min() } }
        /// Each closed connection's life, from its connect to the close seen.
        var lifetimes: [Duration] { state.withLock { $0.compactMap { c in c.closed.map { $0 - c.opened } } } }

        /// Waits until every connection was seen closed, or `within`, then stops: each closed
        /// one's life in seconds, shortest first.
        func stopOnceAllCut(within: Duration) -> [Double] {
            _ = waitUntil(seconds: within.secondsValue) { openCount == 0 }
            stop()
            return lifetimes.map(\.secondsValue).sorted()
        }

        func stop() {
            stopping.store(true, ordering: .relaxed)
            finished.wait()
            state.withLock { $0.forEach { close($0.fd) } }
        }
    }

    /// The resident memory (VmRSS) and threads of a process, from /proc.
    static func residentKiB(_ pid: Int32) -> (kib: Int, threads: Int)? {
        // Read to the end: /proc files report a size of 0.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/status"), let data = try? handle.readToEnd() else { return nil }
        try? handle.close()
        let text = String(decoding: data, as: UTF8.self)
        func field(_ name: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { Int($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") }
        }
        guard let rss = field("VmRSS"), let threads = field("Threads") else { return nil }
        return (rss, threads)
    }

    /// Finding 5 of issue 37: 40 connections from two other addresses, a header byte every 2 s
    /// each, held the owner's `/api/status` until curl gave up. Now the owner is answered while all
    /// 40 are held (within 1 s on a quiet machine: printed, not judged, so a busy machine cannot
    /// fail it), and each trickler is cut at the 10 s head deadline.
    @Test func fortyTricklersFromTwoAddressesLeaveTheOwnerAnsweredAndAreCutAtTheDeadline() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        let pid = remote.tripod.process.processIdentifier
        // Warmed up (the preview's first frames, the first requests' allocations) before measuring.
        for _ in 0..<5 { #expect(http.request("GET", "/api/status", headers: [remote.bearer])?.status == 200) }
        usleep(1_000_000)  // deliberate real time: the memory settles before it is measured (printed, not judged)
        let before = Self.residentKiB(pid)
        let crowd = Tricklers(interval: .seconds(2))
        crowd.open(20, from: "127.0.0.2", port: remote.port)
        crowd.open(20, from: "127.0.0.3", port: remote.port)
        crowd.start()
        defer { crowd.stop() }
        let crowdOpened = crowd.firstOpened ?? .now
        #expect(crowd.count == 40, "40 tricklers connected")
        usleep(500_000)  // deliberate real time: the crowd trickles a while before the memory is measured
        let during = Self.residentKiB(pid)
        // The owner, five times half a second apart, while the crowd trickles. All 40 are held at
        // each request before the deadline (10 s from the first trickler's connect) could have cut
        // any: however slowly the 40 connected on a loaded machine, none was cut before.
        var answers: [Double] = []
        for _ in 0..<5 {
            if ContinuousClock.now - crowdOpened < .seconds(10) {
                #expect(crowd.openCount == 40, "the server holds all 40 tricklers")
            }
            let started = ContinuousClock.now
            let status = http.request("GET", "/api/status", headers: [remote.bearer], timeoutSeconds: 5)
            let took = (ContinuousClock.now - started).secondsValue
            #expect(status?.status == 200, "the owner's request: \(status?.status ?? 0)")
            // The figure (well under 1 s on a quiet machine) is measured and printed, and written in
            // docs/security.md; the verdict is that it is answered at all, which 906549f never did.
            answers.append(took)
            usleep(500_000)  // deliberate real time: the owner asks half a second apart while the crowd trickles
        }
        // Every trickler is cut at the deadline (from its accept), not before; none lives on.
        _ = waitUntil(seconds: 20) { crowd.openCount == 0 }
        let lives = crowd.lifetimes.map(\.secondsValue).sorted()
        #expect(lives.count == 40, "\(40 - lives.count) tricklers still open")
        #expect((lives.first ?? 0) >= 10, "cut at \(lives.first ?? 0) s, before the 10 s deadline")
        #expect((lives.last ?? 99) < 20, "cut at \(lives.last ?? 99) s")
        #expect(http.request("GET", "/api/status", headers: [remote.bearer])?.status == 200)
        let memory = before.flatMap { b in during.map { d in "RSS \(b.kib) -> \(d.kib) KiB (\((d.kib - b.kib) / 40) KiB per connection), threads \(b.threads) -> \(d.threads)" } } ?? "no /proc"
        print("slowloris: owner answered in \(answers.map { String(format: "%.3f", $0) }.joined(separator: " ")) s; "
              + "tricklers lived \(String(format: "%.2f", lives.first ?? 0))–\(String(format: "%.2f", lives.last ?? 0)) s; \(memory)")
    }

    /// A stream body that sends a byte every 100 ms for `seconds`.
    final class Ticks: HTTPStreamBody, Sendable {
        let end: ContinuousClock.Instant
        init(seconds: Int) { end = .now + .seconds(seconds) }
        func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
            guard ContinuousClock.now < end else { return nil }
            usleep(100_000)  // deliberate real time: a slow body, one byte every 100 ms
            buffer[0] = UInt8(ascii: "t")
            return 1
        }
        func finished() {}
    }

    /// The deadline itself, on a daemon with a 1 s deadline and a 30 s idle timeout: a head
    /// trickled a byte every 200 ms is cut after 1 s, as is the next head trickled on a kept-alive
    /// connection after its first request; a stream past its head goes on.
    @Test func aTrickledHeadIsCutAtTheDeadlineAndAStreamPastItsHeadIsNot() throws {
        var limits = HTTPLimits()
        limits.headDeadline = .seconds(1)
        limits.idleTimeoutSeconds = 30
        let daemon = try HTTPDaemon(address: "127.0.0.1", port: 0, limits: limits) { request in
            request.path == "/ticks" ? .stream(contentType: "text/plain", headers: [], body: Ticks(seconds: 3)) : .text(200, "hello")
        }
        defer { daemon.stop() }
        let http = HTTPTestClient(port: daemon.port)

        let crowd = Tricklers(interval: .milliseconds(200))
        crowd.open(3, from: "127.0.0.2", port: daemon.port)
        crowd.start()
        // A kept-alive connection: one whole request, then a head trickled after it.
        let keptAlive = http.connect(timeoutSeconds: 10)
        var afterFirst: ContinuousClock.Instant?
        var secondHeadCut: Double?
        if let fd = keptAlive {
            // Before the request: its end, where the next head's deadline starts, comes after.
            afterFirst = .now
            http.send(fd, Array("GET /one HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            #expect(n > 0 && String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).contains("hello"))
            http.send(fd, Array("GET /two HTTP/1.1\r\nHo".utf8))
            for _ in 0..<40 {
                var byte = UInt8(ascii: "s")
                if Glibc.send(fd, &byte, 1, Int32(MSG_NOSIGNAL)) != 1 { break }
                var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&probe, 1, 200) > 0 { break }
            }
            secondHeadCut = afterFirst.map { (ContinuousClock.now - $0).secondsValue }
            close(fd)
        }
        // A stream: its head is complete, so it runs its 3 s, past the 1 s deadline.
        var streamed = 0
        var streamLasted = 0.0
        if let fd = http.connect(timeoutSeconds: 10) {
            let started = ContinuousClock.now
            http.send(fd, Array("GET /ticks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            let data = http.readAll(fd)
            streamed = HTTPTestClient.headEnd(data).map { data[($0 + 4)...].filter { $0 == UInt8(ascii: "t") }.count } ?? 0
            streamLasted = (ContinuousClock.now - started).secondsValue
            close(fd)
        }
        let lives = crowd.stopOnceAllCut(within: .seconds(10))
        #expect(lives.count == 3, "every trickler cut")
        #expect((lives.first ?? 0) >= 1 && (lives.last ?? 99) < 5, "lifetimes \(lives)")
        #expect(secondHeadCut.map { $0 >= 1 && $0 < 5 } == true, "the kept-alive connection's second head cut after \(secondHeadCut ?? -1) s")
        #expect(streamLasted >= 2.5 && streamed >= 10, "the stream ran \(streamLasted) s, \(streamed) ticks")
        #expect(daemon.deadlines.cutCount == 4)
        #expect(http.request("GET", "/")?.text == "hello\n")
    }

    /// A whole head and then a body trickled a byte every 200 ms (a POST of 4096 bytes, the most a
    /// body may have): the request is not in at the deadline, so it is cut there, before any
    /// token was looked at, as a trickled head is. Without it such a peer held a connection for
    /// hours (4096 bytes, each resetting the idle timeout).
    @Test func aTrickledBodyIsCutAtTheDeadline() throws {
        var limits = HTTPLimits()
        limits.headDeadline = .seconds(1)
        limits.idleTimeoutSeconds = 30
        let daemon = try HTTPDaemon(address: "127.0.0.1", port: 0, limits: limits) { _ in .text(200, "hello") }
        defer { daemon.stop() }
        let crowd = Tricklers(interval: .milliseconds(200))
        crowd.open(2, from: "127.0.0.2", port: daemon.port, start: "POST /api/command HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n\r\n")
        crowd.start()
        let lives = crowd.stopOnceAllCut(within: .seconds(10))
        #expect(lives.count == 2, "every body trickler cut")
        #expect((lives.first ?? 0) >= 1 && (lives.last ?? 99) < 5, "lifetimes \(lives)")
        #expect(daemon.deadlines.cutCount == 2)
        // A whole POST is answered as before.
        #expect(HTTPTestClient(port: daemon.port).request("POST", "/", body: Array("status".utf8))?.text == "hello\n")
    }
}
