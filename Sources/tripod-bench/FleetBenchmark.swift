import Foundation
import Hardware
import Media
import Boards
import Fleet
import Settings
import TestSupport

/// A fleet's shots on the real clock: N = 1, 4, 8 and 16 release `tripod run --board sim-small`
/// rigs, each its own process, on one mosquitto on 127.0.0.1. For each N, `fleet shot in 2s
/// capture` from rig r1, `shots` times with the rigs' frames running free, then as many with frame
/// sync (`video.fps 30`; r1 `fleet.sync server`, the others `client`, over UDP on a loopback group
/// of the bench's own, board `camera.sync`). Each shot's skew is the spread of the rigs' first-exposure
/// offsets in its SHOT_<id>.json; the reply time is from the instant to the report (every reply in);
/// broker traffic is every message on `tripod/<group>/#` from the command to the report, counted by a
/// subscriber of the bench's own. The reference, in the same run on the same rigs, is what a script
/// does without the fleet: `capture` sent to each rig in turn over its control socket.
struct FleetBenchmark: Benchmark {
    static let name = "fleet"
    static let summary = "fleet shots across 1, 4, 8 and 16 rigs on one broker, without and with frame sync, vs capture sent to each in turn; real clock"

    let sizes = [1, 4, 8, 16]
    let shots = 5

    struct Shots {
        var skewsMilliseconds: [Double] = []
        var replySeconds: [Double] = []
        var completed: [Int] = []
        var messages: [Int] = []
        var bytes: [Int] = []
    }

    func run() throws -> BenchmarkReport {
        let broker = try Broker()
        let counter = try BrokerTraffic(port: broker.port)
        let loadBefore = SimulatedRecordingRun.loadAverage()
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        var notes: [String] = []
        func ms(_ v: Double) -> String { v.isNaN ? "-" : String(format: "%.3f", v) }
        for n in sizes {
            let group = "bench\(n)"
            let board = try Self.boardFile(sync: FrameSyncAddress(group: "239.255.91.\(n)", port: UInt16(31_000 + Int(getpid()) % 20_000 + n),
                                                                  interface: "127.0.0.1"))
            defer { try? FileManager.default.removeItem(atPath: board) }
            var running: [RunningTripod] = []
            defer { for rig in running { try? FileManager.default.removeItem(atPath: rig.work) } }
            for i in 1...n {
                running.append(try RunningTripod(board: board, config: ["\(SettingsTable.fleetBroker.key) = mqtt://127.0.0.1:\(broker.port)",
                                                                        "\(SettingsTable.fleetGroup.key) = \(group)", "\(SettingsTable.fleetRig.key) = r\(i)",
                                                                        "\(SettingsTable.captureFormat.key) = jpeg", "\(SettingsTable.videoFPS.key) = 30"]))
            }
            let sender = running[0]
            guard waitUntil(seconds: 90, { Int(SimulatedBoardField.value("online", in: sender.ask("fleet status") ?? "") ?? "") == n }) else {
                throw HardwareError(.timeout, "fleet: the sender does not see \(n) rigs online: \(sender.ask("fleet status") ?? "none")")
            }
            guard waitUntil(seconds: 60, { running.allSatisfy { SimulatedBoardField.value("frame", in: $0.ask("status") ?? "") != nil } }) else {
                throw HardwareError(.timeout, "fleet: not every rig's camera streams")
            }
            let free = try shoot(sender, rigs: n, group: group, counter: counter)
            for (i, rig) in running.enumerated() { _ = rig.ask("set \(SettingsTable.fleetSync.key) \(i == 0 ? "server" : "client")") }
            guard waitUntil(seconds: 90, { running.allSatisfy { SimulatedBoardField.value("sync.ready", in: $0.ask("status") ?? "") == "yes" } }) else {
                throw HardwareError(.timeout, "fleet: frame sync not ready on every rig: \(running.map { $0.ask("status") ?? "none" })")
            }
            let alignments = running.dropFirst().compactMap { SimulatedBoardField.value("sync.alignment.us", in: $0.ask("status") ?? "").flatMap(Double.init) }
            let synced = try shoot(sender, rigs: n, group: group, counter: counter)
            var reference: [Double] = []
            if n > 1 {
                for _ in 0..<shots {
                    let before = running.map { Self.sidecarNames($0.captures) }
                    for rig in running { _ = rig.ask("capture") }
                    var firsts: [Double] = []
                    _ = waitUntil(seconds: 30) {
                        firsts = zip(running, before).compactMap { rig, old in Self.newestFirstExposure(rig.captures, excluding: old) }
                        return firsts.count == n
                    }
                    if let low = firsts.min(), let high = firsts.max(), firsts.count == n { reference.append(high - low) }
                    usleep(300_000)
                }
            }
            for (label, result) in [("free-running", free), ("frame sync", synced)] {
                rows.append(["\(n)", label, "\(result.completed.map(String.init).joined(separator: ","))",
                             ms(percentile(result.replySeconds, 50) * 1000), ms(percentile(result.replySeconds, 99) * 1000),
                             ms(percentile(result.skewsMilliseconds, 99)), ms(result.skewsMilliseconds.max() ?? .nan),
                             String(format: "%.0f", percentile(result.messages.map(Double.init), 50)),
                             String(format: "%.0f", percentile(result.bytes.map(Double.init), 50))])
                let key = label == "frame sync" ? "sync" : "free"
                metrics["n\(n)_\(key)_skew_max_ms"] = result.skewsMilliseconds.max() ?? .nan
                metrics["n\(n)_\(key)_reply_p99_ms"] = percentile(result.replySeconds, 99) * 1000
                metrics["n\(n)_\(key)_completed_min"] = Double(result.completed.min() ?? 0)
                metrics["n\(n)_\(key)_messages_p50"] = percentile(result.messages.map(Double.init), 50)
                metrics["n\(n)_\(key)_bytes_p50"] = percentile(result.bytes.map(Double.init), 50)
            }
            if !reference.isEmpty {
                rows.append(["\(n)", "reference: capture to each in turn", "\(reference.count) of \(shots)", "-", "-",
                             ms(percentile(reference, 99)), ms(reference.max() ?? .nan), "-", "-"])
                metrics["n\(n)_reference_skew_max_ms"] = reference.max() ?? .nan
                let ratio = (synced.skewsMilliseconds.max() ?? .nan) / (reference.max() ?? .nan)
                metrics["n\(n)_sync_to_reference_skew_max_ratio"] = ratio
                notes.append(String(format: "N=%d: skew max with frame sync %.3f ms vs capture to each in turn %.3f ms (ratio %.4f); clients' measured alignment %@ µs",
                                    n, synced.skewsMilliseconds.max() ?? .nan, reference.max() ?? .nan, ratio,
                                    alignments.map { String(format: "%.0f", $0) }.joined(separator: ",")))
            }
            running.removeAll()  // stops the rigs before the next N
        }
        let loadAfter = SimulatedRecordingRun.loadAverage()
        notes += [
            "skew: the spread of the rigs' first-exposure times in a shot (SHOT_<id>.json offsets; reference: the sidecars' FrameWallClock); p99 of \(shots) shots is their largest",
            "reply: from the shot's instant to its report (every rig's reply in, the sender's own capture included); the instant is 2 s after the command",
            "broker: messages and bytes (payloads) on tripod/<group>/# from the command to the report: the command, each rig's fleet.armed event, reply, bracket events and status",
            "free-running frames: a shot's skew is up to one frame (sim-small's 30 fps here: 33.3 ms); frame sync lines the frames up, so every rig takes the same frame",
            String(format: "load average before %.2f, after %.2f (2 shared cores; up to 16 rigs and mosquitto on them)", loadBefore, loadAfter),
        ]
        return BenchmarkReport(columns: ["rigs", "frames", "completed per shot", "reply p50 ms", "reply p99 ms", "skew p99 ms", "skew max ms",
                                         "broker msgs/shot", "broker bytes/shot"],
                               rows: rows, notes: notes, metrics: metrics)
    }

    /// `shots` shots from `sender`, each waited for to its report.
    func shoot(_ sender: RunningTripod, rigs: Int, group: String, counter: BrokerTraffic) throws -> Shots {
        var result = Shots()
        for _ in 0..<shots {
            counter.reset()
            let reply = sender.ask("fleet shot in 2s capture") ?? "none"
            guard reply.hasPrefix("ok"), let id = SimulatedBoardField.value("shot", in: reply),
                  let at = SimulatedBoardField.value("at", in: reply).flatMap(FleetTime.parse) else {
                throw HardwareError(.invalidArgument, "fleet: fleet shot: \(reply)")
            }
            var report: [String: Any]?
            _ = waitUntil(seconds: 40) { report = Self.report(id, under: sender.captures); return report != nil }
            let done = Date()
            guard let report, let rigsEntry = report["rigs"] as? [String: Any] else { throw HardwareError(.timeout, "fleet: no SHOT_\(id).json") }
            let entries = rigsEntry.values.compactMap { $0 as? [String: Any] }
            let offsets = entries.compactMap { $0["offsetMicroseconds"] as? Double }
            result.completed.append(entries.filter { $0["status"] as? String == "complete" }.count)
            if let low = offsets.min(), let high = offsets.max() { result.skewsMilliseconds.append((high - low) / 1000) }
            result.replySeconds.append(done.timeIntervalSince(at))
            let traffic = counter.count(prefix: "tripod/\(group)/")
            result.messages.append(traffic.messages)
            result.bytes.append(traffic.bytes)
            usleep(300_000)
        }
        return result
    }

    /// sim-small with frame sync on `sync`, written to a temporary board file.
    static func boardFile(sync: FrameSyncAddress) throws -> String {
        var board = try BoardCatalog.standard().board("sim-small")
        board.camera.sync = sync
        let path = NSTemporaryDirectory() + "tripod-bench-fleet-\(getpid())-\(sync.port).json"
        try JSONEncoder().encode(board).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The report SHOT_<id>.json anywhere under the captures, parsed.
    static func report(_ id: String, under captures: String) -> [String: Any]? {
        for path in files(under: captures) where path.hasSuffix("/SHOT_\(id).json") {
            if let data = FileManager.default.contents(atPath: path),
               let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] { return object }
        }
        return nil
    }

    static func files(under root: String) -> [String] {
        let fm = FileManager.default
        var out: [String] = []
        for folder in (try? fm.contentsOfDirectory(atPath: root)) ?? [] where !folder.hasPrefix(".") {
            let path = root + "/" + folder
            if folder.hasSuffix(".json") { out.append(path); continue }
            for name in (try? fm.contentsOfDirectory(atPath: path)) ?? [] where name.hasSuffix(".json") { out.append(path + "/" + name) }
        }
        return out
    }

    static func sidecarNames(_ captures: String) -> Set<String> {
        Set(files(under: captures).filter { !$0.contains("/SHOT_") })
    }

    /// The first frame's FrameWallClock (ms) of a sidecar not in `excluding`, once it is complete.
    static func newestFirstExposure(_ captures: String, excluding old: Set<String>) -> Double? {
        for path in sidecarNames(captures).subtracting(old) {
            guard let data = FileManager.default.contents(atPath: path), let sidecar = try? BracketSidecar.decode(Array(data)),
                  sidecar.result.status == .complete, let wall = sidecar.frames.first?.wallClockNanoseconds else { continue }
            return Double(wall) / 1e6
        }
        return nil
    }
}

/// `key=value` out of a console reply line.
enum SimulatedBoardField {
    static func value(_ key: String, in line: String) -> String? {
        line.split(separator: " ").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }
}

/// RFC 3339 times as a shot's reply gives them.
enum FleetTime {
    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

/// Every message on the broker, counted by topic prefix (payload bytes), for a shot's traffic.
final class BrokerTraffic: @unchecked Sendable {
    private let seen = LockedValue<[(topic: String, bytes: Int)]>([])
    private let connected = LockedValue(false)
    private let client: MosquittoClient

    init(port: Int) throws {
        let seen = self.seen, connected = self.connected
        client = try MosquittoClient(clientID: "bench-traffic-\(getpid())", cleanSession: true) { event in
            switch event {
            case .connected(code: 0): connected.withLock { $0 = true }
            case .message(let topic, let payload, _): seen.withLock { $0.append((topic, payload.count)) }
            default: break
            }
        }
        try client.connect(host: "127.0.0.1", port: port, keepaliveSeconds: 10)
        try client.startLoop()
        guard waitUntil(seconds: 30, { connected.current }) else { throw HardwareError(.timeout, "fleet bench: the traffic counter did not connect") }
        try client.subscribe(topic: "tripod/#", qos: 0)
    }

    deinit { client.disconnect() }

    func reset() { seen.withLock { $0 = [] } }

    func count(prefix: String) -> (messages: Int, bytes: Int) {
        let list = seen.current.filter { $0.topic.hasPrefix(prefix) }
        return (list.count, list.reduce(0) { $0 + $1.bytes })
    }
}
