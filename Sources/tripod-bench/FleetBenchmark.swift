import Foundation
import Hardware
import Media
import TestSupport

/// How closely a fleet's rigs expose one shot, on the real clock: four release `tripod run --board
/// sim-small` rigs on one mosquitto on 127.0.0.1. `fleet shot in 2s capture` from one rig, five
/// times; each shot's skew is the spread of the rigs' first-exposure offsets in its SHOT_<id>.json.
/// The reference, in the same run on the same rigs, is what a script does without Tripod's fleet:
/// `capture` sent to each rig in turn over its control socket (as over ssh), its skew the spread of
/// the rigs' first frames' FrameWallClock. Both are bounded below by the cameras' free-running frame
/// phase (one frame at the format's rate; frame sync is not built).
struct FleetBenchmark: Benchmark {
    static let name = "fleet"
    static let summary = "fleet shot skew across 4 rigs on one broker vs capture sent to each in turn, real clock"

    let rigs = 4
    let shots = 5

    func run() throws -> BenchmarkReport {
        let broker = try Broker()
        let loadBefore = SimulatedRecordingRun.loadAverage()
        var running: [RunningTripod] = []
        defer { for rig in running { try? FileManager.default.removeItem(atPath: rig.work) } }
        for i in 1...rigs {
            running.append(try RunningTripod(board: "sim-small", config: ["fleet.broker = mqtt://127.0.0.1:\(broker.port)",
                                                                          "fleet.group = bench", "fleet.rig = r\(i)",
                                                                          "capture.format = jpeg"]))
        }
        let sender = running[0]
        let rigCount = rigs
        guard waitUntil(seconds: 60, { Int(SimulatedBoardField.value("online", in: sender.ask("fleet status") ?? "") ?? "") == rigCount }) else {
            throw HardwareError(.timeout, "fleet: the sender does not see \(rigs) rigs online: \(sender.ask("fleet status") ?? "none")")
        }
        var fleetSkews: [Double] = [], answered: [Int] = []
        for _ in 0..<shots {
            let reply = sender.ask("fleet shot in 2s capture") ?? "none"
            guard reply.hasPrefix("ok"), let id = SimulatedBoardField.value("shot", in: reply) else {
                throw HardwareError(.invalidArgument, "fleet: fleet shot: \(reply)")
            }
            var report: [String: Any]?
            _ = waitUntil(seconds: 30) { report = Self.report(id, under: sender.captures); return report != nil }
            guard let report, let rigsEntry = report["rigs"] as? [String: Any] else { throw HardwareError(.timeout, "fleet: no SHOT_\(id).json") }
            let offsets = rigsEntry.values.compactMap { ($0 as? [String: Any])?["offsetMicroseconds"] as? Double }
            answered.append(offsets.count)
            if let low = offsets.min(), let high = offsets.max(), offsets.count >= 2 { fleetSkews.append((high - low) / 1000) }
        }
        var referenceSkews: [Double] = []
        for _ in 0..<shots {
            let before = running.map { Self.sidecarNames($0.captures) }
            for rig in running { _ = rig.ask("capture") }
            var firsts: [Double] = []
            _ = waitUntil(seconds: 30) {
                firsts = zip(running, before).compactMap { rig, old in Self.newestFirstExposure(rig.captures, excluding: old) }
                return firsts.count == rigCount
            }
            if let low = firsts.min(), let high = firsts.max(), firsts.count >= 2 { referenceSkews.append(high - low) }
            usleep(500_000)
        }
        let loadAfter = SimulatedRecordingRun.loadAverage()
        func ms(_ v: Double) -> String { String(format: "%.2f", v) }
        let ratio = percentile(fleetSkews, 50) / percentile(referenceSkews, 50)
        return BenchmarkReport(
            columns: ["path", "shots", "rigs answered", "skew p50 ms", "skew max ms"],
            rows: [["fleet shot in 2s capture", String(fleetSkews.count), answered.map(String.init).joined(separator: ","),
                    ms(percentile(fleetSkews, 50)), ms(fleetSkews.max() ?? .nan)],
                   ["reference: capture to each rig in turn", String(referenceSkews.count), "\(rigs) each",
                    ms(percentile(referenceSkews, 50)), ms(referenceSkews.max() ?? .nan)]],
            notes: [String(format: "skew p50: fleet shot %.2f ms vs one-by-one %.2f ms (ratio %.3f; lower is better)",
                           percentile(fleetSkews, 50), percentile(referenceSkews, 50), ratio),
                    "skew: the spread of the rigs' first-exposure times (fleet: SHOT_<id>.json offsets; reference: the sidecars' FrameWallClock)",
                    "the rigs run free: their frames are not aligned (no frame sync), so a shot's skew is up to one frame at sim-small's format",
                    String(format: "load average before %.2f, after %.2f (2 shared cores, %d rigs and mosquitto on them)", loadBefore, loadAfter, rigs)],
            metrics: ["fleet_skew_p50_ms": percentile(fleetSkews, 50), "fleet_skew_max_ms": fleetSkews.max() ?? .nan,
                      "reference_skew_p50_ms": percentile(referenceSkews, 50), "ratio_p50_to_reference": ratio])
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
