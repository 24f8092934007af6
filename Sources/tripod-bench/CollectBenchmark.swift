import Foundation
import Hardware
import TestSupport

/// `tripod collect` on the real clock, one mosquitto, each rig a release `tripod run` process
/// (`CollectBenchGroup`):
/// - N = 4, 8 and 16 `--board sim-small` rigs (`COLLECT_BENCH_SIZES`), 5 shots of JPEG + lossless
///   DNG each: 72 kB a rig, so these rows measure per-request latency and fixed costs;
/// - 4 `--board sim` rigs at full size (`COLLECT_BENCH_FULL_SIZE_RIGS`, 0: none), 3 shots: about
///   19 MB a rig, so this row measures throughput;
/// - then, on that group, r1 records 1080p30 alone (the baseline) and again while the group's shots
///   are collected (each also fetched by curl), and its sidecar's counts are read back.
/// Each shot is collected by a `tripod collect --shot ID` process, then the same URLs are fetched by
/// `curl --parallel --parallel-max 8` in the same run (the reference).
struct CollectBenchmark: Benchmark {
    static let name = "collect"
    static let summary = "tripod collect across 4/8/16 small rigs and 4 full-size rigs vs curl --parallel-max 8 on the same URLs, and a 1080p30 recording on a rig being collected; real clock"

    func run() throws -> BenchmarkReport {
        let environment = ProcessInfo.processInfo.environment
        let sizes = (environment["COLLECT_BENCH_SIZES"] ?? "4,8,16").split(separator: ",").compactMap { Int($0) }
        let fullSize = Int(environment["COLLECT_BENCH_FULL_SIZE_RIGS"] ?? "4") ?? 4
        // As docs/collect.md advises for a fleet's broker: without it, mosquitto's Nagle holds the
        // retained state ~40 ms for the collector's delayed ACK.
        let broker = try Broker(extraConfig: ["allow_anonymous true", "set_tcp_nodelay true"])
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
        var notes: [String] = []
        func measure(_ label: String, _ key: String, _ samples: [CollectBenchGroup.Sample], fromInstant: Bool = true) {
            var row = Self.row(label, samples)
            // Shots taken before the recording: their instants say nothing of this collection.
            if !fromInstant { row[row.count - 2] = "-"; row[row.count - 1] = "-" }
            rows.append(row)
            for (name, value) in Self.metrics(samples) { metrics["\(key)_\(name)"] = value }
        }

        for n in sizes {
            let group = try CollectBenchGroup(name: "collect\(n)", board: "sim-small", count: n, brokerPort: broker.port, key: key)
            defer { group.remove() }
            var samples: [CollectBenchGroup.Sample] = []
            var shots: [(id: String, at: Date)] = []
            for shot in 0..<5 {
                let taken = try group.shoot(reportWithin: 60)
                shots.append(taken)
                samples.append(try group.collect(taken, tripod: tripod, key: key, into: "\(work)/n\(n)-\(shot)"))
            }
            // Each shot once more, curl first this time (the time from the instant is the first's).
            for (index, shot) in shots.enumerated() {
                var again = try group.collect(shot, tripod: tripod, key: key, into: "\(work)/n\(n)-again-\(index)", curlFirst: true)
                again.fromInstant = samples[index].fromInstant
                samples.append(again)
            }
            measure("\(n) sim-small", "n\(n)", samples)
        }

        if fullSize > 0 {
            let group = try CollectBenchGroup(name: "collectfull", board: "sim", count: fullSize, brokerPort: broker.port, key: key)
            defer { group.remove() }
            // Full-resolution stills need the full mode's format (docs/camera-formats.md); the default
            // binned one gives 2304x1296 stills. Back to the default after the shots (rendering 12 MP
            // frames at 14 fps on 4 rigs would leave the 2 cores nothing for the rest).
            let full = group.rigs.allSatisfy { $0.ask("format 4608x2592@14")?.hasPrefix("ok") == true }
            var shots: [(id: String, at: Date)] = []
            for _ in 0..<3 { shots.append(try group.shoot(reportWithin: 180)) }
            for rig in group.rigs { _ = rig.ask("format 2304x1296@30") }
            notes.append(full ? "full-size rigs: shots at 4608x2592 (format 4608x2592@14), then format 2304x1296@30"
                              : "full-size rigs: format 4608x2592@14 refused; shots at the default format")
            // One collection of each shot not counted (the format change settles, and curl learns
            // the URLs); then 3 rounds, curl first in every other one.
            var samples: [CollectBenchGroup.Sample] = []
            for (index, shot) in shots.enumerated() {
                _ = try group.collect(shot, tripod: tripod, key: key, into: "\(work)/full-warm-\(index)")
            }
            for round in 0..<3 {
                for (index, shot) in shots.enumerated() {
                    samples.append(try group.collect(shot, tripod: tripod, key: key, into: "\(work)/full-\(round)-\(index)", curlFirst: round % 2 == 1))
                }
            }
            measure("\(fullSize) sim (full size)", "full\(fullSize)", samples)

            // The recording: alone, then while every shot of the group (r1's too) is collected and
            // curled. The other rigs go to the smallest format meanwhile: the simulated board renders
            // every frame of its format in software, which a real rig's ISP does not.
            for rig in group.rigs.dropFirst() { _ = rig.ask("format 1536x864@30") }
            let seconds = 12.0
            let alone = try CollectRecordingMeasurement.record(on: group.rigs[0], seconds: seconds) {}
            /// Every shot collected and curled back to back while r1 records: far more than a
            /// session's one collection of each shot.
            func collectedWhileRecording(_ tag: String, othersNice: Int32) throws -> (CollectRecordingMeasurement.Result, [CollectBenchGroup.Sample]) {
                var during: [CollectBenchGroup.Sample] = []
                let result = try CollectRecordingMeasurement.record(on: group.rigs[0], seconds: seconds) {
                    let until = Date().addingTimeInterval(seconds)
                    var round = 0
                    repeat {
                        for (index, shot) in shots.enumerated() {
                            during.append(try group.collect(shot, tripod: tripod, key: key, into: "\(work)/rec-\(tag)-\(round)-\(index)",
                                                            curlFirst: round % 2 == 1, othersNice: othersNice))
                        }
                        round += 1
                    } while Date() < until
                }
                return (result, during)
            }
            // Shared: everything at one priority on the 2 cores, as the bench has always measured.
            let (busy, during) = try collectedWhileRecording("shared", othersNice: 0)
            measure("\(fullSize) sim (full size), r1 recording 1080p30", "full\(fullSize)_recording", during, fromInstant: false)
            // Own board: the other rigs, the collector and curl at nice 19, as the other machines
            // they are on a fleet; r1 serves its own files (at its file-serving priority) and
            // records at nice 0.
            for rig in group.rigs.dropFirst() { CollectBenchGroup.renice(rig, to: 19) }
            let (ownBoard, duringOwn) = try collectedWhileRecording("own", othersNice: 19)
            measure("\(fullSize) sim (full size), r1 recording 1080p30, others at nice 19", "full\(fullSize)_recording_own_board", duringOwn,
                    fromInstant: false)
            for (label, result) in [("alone", alone), ("while collected", busy), ("while collected, others at nice 19", ownBoard)] {
                let causes = result.dropped.isEmpty ? "none" : result.dropped.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
                notes.append(String(format: "r1's 1080p30 recording %@: %d frames written of a sequence span of %d over %.1f s of sensor time; dropped: %@ (load %.2f → %.2f)",
                                    label as NSString, result.framesWritten, result.sequenceSpan, result.seconds, causes, result.loadBefore, result.loadAfter))
                let key = label == "alone" ? "recording_alone" : label == "while collected" ? "recording_collected" : "recording_collected_own_board"
                metrics["\(key)_frames_written"] = Double(result.framesWritten)
                metrics["\(key)_sequence_span"] = Double(result.sequenceSpan)
                metrics["\(key)_dropped"] = Double(result.droppedCount)
            }
        }
        let loadAfter = SimulatedRecordingRun.loadAverage()
        return BenchmarkReport(
            columns: ["rigs", "MB/shot", "collect process p50 s", "ready p50 s", "phase p50 s", "curl p50 s", "curl/process p50", "curl/phase p50",
                      "CPU collect/curl s", "instant→checked p50 s", "max s"],
            rows: rows,
            notes: [
                "collect process: the whole tripod collect --shot ID, wall (process start, broker connection and its retained state, each rig's part, the transfers, the checksums, the renames, the manifest); ready: its start until the broker's retained state was in; phase: its summary's seconds (parts, transfers, checks, renames); curl: the whole curl process on the same files (no parts, no checks)",
                "curl/process is the honest ratio (two processes doing the same job, one of them finding the URLs itself); curl/phase leaves out the collector's start and broker, and keeps curl's",
                "CPU: user + system seconds of the collect process and of curl, p50 per shot",
                "instant→checked: from the shot's instant to the collector's exit; the collector starts once the sender's report is written (every reply in)",
                String(format: "load average before %.2f, after %.2f (2 shared cores; the rigs, mosquitto, the collector and curl on them)", loadBefore, loadAfter),
                "the broker: mosquitto with set_tcp_nodelay true (docs/collect.md)",
                "r1 recording, others at nice 19: the other rigs' threads, the collector and curl at nice 19, as the other machines they are on a fleet; r1 at nice 0, its file-serving connections at nice 10 (HTTPDaemon.fileServingNice)",
            ] + notes,
            metrics: metrics)
    }

    static func row(_ label: String, _ samples: [CollectBenchGroup.Sample]) -> [String] {
        let m = metrics(samples)
        return [label, String(format: "%.2f", samples.first?.megabytes ?? 0), String(format: "%.3f", m["process_p50_s"] ?? .nan),
                String(format: "%.3f", m["ready_p50_s"] ?? .nan), String(format: "%.3f", m["phase_p50_s"] ?? .nan),
                String(format: "%.3f", m["curl_p50_s"] ?? .nan), String(format: "%.2f", m["curl_over_process_p50"] ?? .nan),
                String(format: "%.2f", m["curl_over_phase_p50"] ?? .nan),
                String(format: "%.3f/%.3f", m["collect_cpu_p50_s"] ?? .nan, m["curl_cpu_p50_s"] ?? .nan),
                String(format: "%.3f", m["instant_to_checked_p50_s"] ?? .nan), String(format: "%.3f", m["instant_to_checked_max_s"] ?? .nan)]
    }

    static func metrics(_ samples: [CollectBenchGroup.Sample]) -> [String: Double] {
        [
            "process_p50_s": percentile(samples.map(\.process), 50),
            "ready_p50_s": percentile(samples.map(\.ready), 50),
            "phase_p50_s": percentile(samples.map(\.phase), 50),
            "curl_p50_s": percentile(samples.map(\.curl), 50),
            "curl_over_process_p50": percentile(samples.map { $0.curl / $0.process }, 50),
            "curl_over_phase_p50": percentile(samples.map { $0.curl / $0.phase }, 50),
            "collect_cpu_p50_s": percentile(samples.map(\.collectCPU), 50),
            "curl_cpu_p50_s": percentile(samples.map(\.curlCPU), 50),
            "instant_to_checked_p50_s": percentile(samples.map(\.fromInstant), 50),
            "instant_to_checked_max_s": samples.map(\.fromInstant).max() ?? .nan,
            "megabytes_per_shot": samples.first?.megabytes ?? .nan,
            "samples": Double(samples.count),
        ]
    }
}
