import Foundation
import Hardware
import TestSupport

/// `tripod collect` on the real clock: N release `tripod run --board sim-small` rigs (N = 4 and 8
/// by default; `COLLECT_BENCH_SIZES=4,8,16` for more), each serving its remote on 127.0.0.1 with
/// the collection key, one mosquitto. For each N, `shots` shots of JPEG + lossless DNG (`fleet
/// shot in 2s capture`); each is collected by a `tripod collect --shot ID` process, then the same
/// URLs are fetched by `curl --parallel --parallel-max 8` in the same run (the reference). Measured:
/// each one's wall time, their ratio, and the time from the shot's instant to the collector's last
/// file checked (its exit).
struct CollectBenchmark: Benchmark {
    static let name = "collect"
    static let summary = "tripod collect of fleet shots across 4 and 8 rigs vs curl --parallel-max 8 on the same URLs; real clock"

    let shots = 5

    func run() throws -> BenchmarkReport {
        let sizes = (ProcessInfo.processInfo.environment["COLLECT_BENCH_SIZES"] ?? "4,8").split(separator: ",").compactMap { Int($0) }
        let broker = try Broker()
        let work = NSTemporaryDirectory() + "tripod-collect-bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let key = work + "/key"
        try (String(repeating: "5a", count: 32) + "\n").write(toFile: key, atomically: true, encoding: .utf8)
        chmod(key, 0o600)
        let tripod = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tripod").path
        let loadBefore = SimulatedRecordingRun.loadAverage()
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        for n in sizes {
            let group = "collect\(n)"
            var rigs: [RunningTripod] = []
            for i in 1...n {
                rigs.append(try RunningTripod(board: "sim-small", config: [
                    "fleet.broker = mqtt://127.0.0.1:\(broker.port)", "fleet.group = \(group)", "fleet.rig = r\(i)",
                    // JPEG + lossless DNG: the defaults.
                    "remote.listen = 127.0.0.1:0", "remote.collect = \(key)",
                ]))
            }
            defer { for rig in rigs { try? FileManager.default.removeItem(atPath: rig.work) } }
            let sender = rigs[0]
            guard waitUntil(seconds: 90, { Int(SimulatedBoardField.value("online", in: sender.ask("fleet status") ?? "") ?? "") == n }) else {
                throw HardwareError(.timeout, "collect: the sender does not see \(n) rigs online")
            }
            let remotes = rigs.compactMap { SimulatedBoardField.value("remote", in: $0.ask("status") ?? "") }
            guard remotes.count == n else { throw HardwareError(.timeout, "collect: not every rig serves its remote") }
            var collector: [Double] = [], phase: [Double] = [], reference: [Double] = [], fromInstant: [Double] = [], megabytes: [Double] = []
            for shot in 0..<shots {
                let reply = sender.ask("fleet shot in 2s capture") ?? "none"
                guard reply.hasPrefix("ok"), let id = SimulatedBoardField.value("shot", in: reply),
                      let at = SimulatedBoardField.value("at", in: reply).flatMap(FleetTime.parse) else {
                    throw HardwareError(.invalidArgument, "collect: fleet shot: \(reply)")
                }
                guard waitUntil(seconds: 40, { FleetBenchmark.report(id, under: sender.captures) != nil }) else {
                    throw HardwareError(.timeout, "collect: no report of \(id)")
                }
                let into = "\(work)/n\(n)-\(shot)"
                let started = Date()
                let (status, output) = Self.run(tripod, ["collect", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--group", group, "--into", into,
                                               "--key", key, "--shot", id, "--deadline", "60"])
                let ended = Date()
                guard status == 0 else { throw HardwareError(.invalidArgument, "collect: tripod collect --shot \(id) ended with \(status)") }
                collector.append(ended.timeIntervalSince(started))
                let summary = output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                    .last { $0["type"] as? String == "summary" }
                phase.append((summary?["seconds"] as? Double) ?? .nan)
                fromInstant.append(ended.timeIntervalSince(at))
                // The same files, by curl, from the manifest's paths, with each rig's own remote token
                // (the collection key is never a bearer secret: its holder signs each request).
                let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(into)/\(id)/manifest.json"))) as? [String: Any]
                let entries = (manifest?["rigs"] as? [String: [String: Any]]) ?? [:]
                var arguments = ["-s", "--parallel", "--parallel-max", "8"]
                var bytes = 0
                for (rig, entry) in entries {
                    guard let index = Int(rig.dropFirst()), index >= 1, index <= n,
                          let token = SimulatedBoardField.value("token", in: rigs[index - 1].ask("remote token") ?? "") else { continue }
                    arguments += (arguments.count > 4 ? ["--next"] : []) + ["--fail", "-H", "Authorization: Bearer " + token]
                    for file in (entry["files"] as? [[String: Any]]) ?? [] {
                        guard let path = file["rigPath"] as? String, let name = file["name"] as? String else { continue }
                        bytes += (file["bytes"] as? Int) ?? 0
                        arguments += ["-o", "\(into)/curl/\(rig)/\(name)", "--create-dirs", "\(remotes[index - 1])/captures/\(path)"]
                    }
                }
                let curlStarted = Date()
                let (curlStatus, _) = Self.run("/usr/bin/curl", arguments)
                guard curlStatus == 0 else { throw HardwareError(.invalidArgument, "collect: curl ended with \(curlStatus)") }
                reference.append(Date().timeIntervalSince(curlStarted))
                megabytes.append(Double(bytes) / 1e6)
                try? FileManager.default.removeItem(atPath: into)
                usleep(300_000)
            }
            let ratios = zip(reference, collector).map { $0 / $1 }
            let phaseRatios = zip(reference, phase).map { $0 / $1 }
            rows.append(["\(n)", String(format: "%.2f", megabytes.first ?? 0), String(format: "%.3f", percentile(collector, 50)),
                         String(format: "%.3f", percentile(phase, 50)),
                         String(format: "%.3f", percentile(reference, 50)), String(format: "%.2f", percentile(ratios, 50)),
                         String(format: "%.2f", percentile(phaseRatios, 50)), String(format: "%.3f", percentile(fromInstant, 50)),
                         String(format: "%.3f", fromInstant.max() ?? .nan)])
            metrics["n\(n)_collect_p50_s"] = percentile(collector, 50)
            metrics["n\(n)_curl_p50_s"] = percentile(reference, 50)
            metrics["n\(n)_ratio_p50"] = percentile(ratios, 50)
            metrics["n\(n)_collection_phase_p50_s"] = percentile(phase, 50)
            metrics["n\(n)_phase_ratio_p50"] = percentile(phaseRatios, 50)
            metrics["n\(n)_instant_to_checked_max_s"] = fromInstant.max() ?? .nan
            rigs.removeAll()
        }
        let loadAfter = SimulatedRecordingRun.loadAverage()
        return BenchmarkReport(columns: ["rigs", "MB/shot", "collect process p50 s", "collection phase p50 s", "curl p50 s", "curl/process p50", "curl/phase p50",
                                         "instant→checked p50 s", "instant→checked max s"],
                               rows: rows, notes: [
                                   "collect process: the whole tripod collect --shot ID (start, broker connection, report, parts, transfers, checksums, manifest); collection phase: its summary's seconds (parts, transfers, checksums, renames); curl: the same files, --parallel-max 8, no checks",
                                   "instant→checked: from the shot's instant to the collector's exit; the collector starts once the sender's report is written (every reply in)",
                                   String(format: "load average before %.2f, after %.2f (2 shared cores; the rigs, mosquitto, the collector and curl on them)", loadBefore, loadAfter),
                               ], metrics: metrics)
    }

    /// Runs `executable` with `arguments`; its exit status and standard output.
    static func run(_ executable: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return (-1, "") }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
