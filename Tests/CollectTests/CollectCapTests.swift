import Foundation
import Hardware
import Testing
import TestSupport
@testable import Fleet
@testable import FleetConsole
import Media

/// The transfer caps (docs/collect.md): at most `--parallel` requests at once across the fleet and
/// at most 2 to one rig, counted where they arrive: at stand-in rigs (`CountingRigServer`) that
/// hold each request until the collector has filled its cap, so a collector that went over it
/// would be seen over it.
@Suite(.serialized) struct CollectCapTests {
    @Test(arguments: [3, 8]) func atMostParallelRequestsAtOnceAndTwoPerRig(parallel: Int) throws {
        let fleet = try CollectFleet(names: [])
        defer { fleet.stop() }
        let shot = "f1-1777636805250"
        let gauge = ConcurrencyGauge(cap: parallel)
        var servers: [CountingRigServer] = []
        defer { servers.forEach { $0.stop() } }
        for n in 1...6 {
            let server = try CountingRigServer(rig: "f\(n)", shot: shot, gauge: gauge)
            servers.append(server)
            try fleet.observer.publish("tripod/g/f\(n)/state", "online", retain: true)
            try fleet.observer.publish("tripod/g/f\(n)/status", #"{"type":"reply","ok":true,"values":{"remote":"http://127.0.0.1:\#(server.port)"}}"#,
                                       retain: true)
        }
        // The broker holds them once the observer has them back.
        #expect(waitUntil { fleet.observer.messages.filter { $0.topic.hasSuffix("/status") }.count == 6 })
        let into = fleet.work + "/out"
        let run = try CollectRun(CollectRun.arguments(fleet, into: into, ["--shot", shot] + (parallel == 8 ? [] : ["--parallel", "\(parallel)"])))
        #expect(run.finish() == 0, "\(run.stderr)")
        for server in servers {
            for (path, bytes) in server.files {
                #expect(FileManager.default.contents(atPath: "\(into)/\(shot)/\(server.rig)/\((path as NSString).lastPathComponent)") == Data(bytes))
            }
        }
        // Every part and file was asked once: 6 x (1 part, the sidecar and 4 files).
        #expect(gauge.requests == 36, "\(gauge.requests) requests")
        #expect(gauge.maximum == parallel, "at most \(gauge.maximum) requests at once")
        #expect(gauge.maximumPerRig == 2, "at most \(gauge.maximumPerRig) requests at once to one rig")
    }
}

/// Requests being answered at once, across stand-in rigs: the most seen in all and to one rig.
final class ConcurrencyGauge: @unchecked Sendable {
    let cap: Int
    private let condition = NSCondition()
    private var current = 0
    private var perRig: [String: Int] = [:]
    private(set) var maximum = 0
    private(set) var maximumPerRig = 0
    private(set) var requests = 0

    init(cap: Int) { self.cap = cap }

    /// A request arrived at `rig`: counted, then held until `cap` requests are in at once (or 1 s
    /// passed: only the test's speed depends on that), then 50 ms more, so that a request the
    /// collector started beyond its cap would be counted with the others.
    func begin(_ rig: String) {
        condition.lock()
        current += 1
        requests += 1
        perRig[rig, default: 0] += 1
        maximum = max(maximum, current)
        maximumPerRig = max(maximumPerRig, perRig[rig] ?? 0)
        condition.broadcast()
        let until = Date().addingTimeInterval(1)
        while current < cap && Date() < until { _ = condition.wait(until: until) }
        condition.unlock()
        usleep(50_000)
    }

    func end(_ rig: String) {
        condition.lock()
        current -= 1
        perRig[rig, default: 0] -= 1
        condition.unlock()
    }
}

/// A stand-in for a rig's remote, HTTP/1.1 with keep-alive on 127.0.0.1: it answers `GET
/// /api/shots/<shot>` with a part naming a sidecar and 4 files (with their SHA-256), and `GET
/// /captures/<path>` with their bytes; every request goes through the gauge. Signatures are not
/// checked (the remote's own tests do).
final class CountingRigServer: @unchecked Sendable {
    let rig: String
    let port: Int
    /// Path below the captures → content: the sidecar and the 4 files.
    let files: [String: [UInt8]]
    private let part: [UInt8]
    private let listener: Int32
    private let stopping = LockedValue(false)
    private let gauge: ConcurrencyGauge

    init(rig: String, shot: String, gauge: ConcurrencyGauge) throws {
        self.rig = rig
        self.gauge = gauge
        var files: [String: [UInt8]] = [:]
        for name in ["TRP_1.json", "TRP_1_01.dng", "TRP_1_01.jpg", "TRP_1_02.dng", "TRP_1_02.jpg"] {
            files["d/" + name] = (0..<(2000 + name.count)).map { _ in UInt8.random(in: 0...255) }
        }
        self.files = files
        func entry(_ path: String) throws -> String {
            let bytes = files[path] ?? []
            return #"{"path":"\#(path)","bytes":\#(bytes.count),"sha256":"\#(try SHA256.hexDigest(bytes))"}"#
        }
        let listed = try files.keys.filter { !$0.hasSuffix(".json") }.sorted().map(entry).joined(separator: ",")
        part = Array(#"{"shot":"\#(shot)","status":"complete","sidecar":\#(try entry("d/TRP_1.json")),"files":[\#(listed)],"clock":"synced"}"#.utf8)

        let made = try loopbackListener(backlog: 64)
        listener = made.fd
        port = made.port
        Thread.detachNewThread { [self] in accepting() }
    }

    func stop() {
        stopping.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func accepting() {
        while !stopping.current {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            Thread.detachNewThread { [self] in serve(connection) }
        }
        close(listener)
    }

    /// One connection: request after request until the collector closes it.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            while !String(decoding: pending, as: UTF8.self).contains("\r\n\r\n") {
                let n = read(connection, &buffer, buffer.count)
                guard n > 0 else { return }
                pending += buffer[0..<n]
            }
            let text = String(decoding: pending, as: UTF8.self)
            let head = text.components(separatedBy: "\r\n\r\n")[0]
            pending = Array(pending.dropFirst(head.utf8.count + 4))
            let words = head.components(separatedBy: "\r\n")[0].split(separator: " ")
            let path = words.count > 1 ? String(words[1]) : ""
            gauge.begin(rig)
            let body: [UInt8]?
            if path.hasPrefix("/api/shots/") { body = part } else if path.hasPrefix("/captures/") { body = files[String(path.dropFirst(10))] } else { body = nil }
            let answer = Array("HTTP/1.1 \(body == nil ? "404 Not Found" : "200 OK")\r\nContent-Length: \(body?.count ?? 0)\r\n\r\n".utf8) + (body ?? [])
            // Out of the count before the answer goes: once it is written the collector may start
            // its next request, and that one's `begin` (on another connection's thread) could
            // come before an `end` made after the write, counting one more than were in at once.
            gauge.end(rig)
            var written = 0
            while written < answer.count {
                let n = answer[written...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                written += n
            }
            guard written == answer.count else { return }
        }
    }
}
