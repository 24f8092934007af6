import Foundation
import Hardware
import Settings
import SimulatedHardware
import Supervisor
import Video

/// An hour of simulated recording, split into files, on the simulated board in process: camera
/// streaming with its video stream, IMU under handheld motion, viewfinder on, libx264 into
/// fragmented MP4, on the manual clock. Frames are rendered at 320x180 (the soak is about the
/// process, not the pixels). Reports RSS, descriptors and threads at the start and end, files,
/// frames written and dropped, and whether the parts join without a lost or doubled frame.
/// `TRIPOD_RECORD_SOAK_MINUTES` sets the length (default 60), split every 10 minutes.
struct RecordingSoakBenchmark: Benchmark {
    static let name = "record-soak"
    static let summary = "an hour of simulated recording split every 10 min: RSS, fds, threads, frames, continuity"

    func run() throws -> BenchmarkReport {
        let minutes = Int(ProcessInfo.processInfo.environment["TRIPOD_RECORD_SOAK_MINUTES"] ?? "") ?? 60
        let soak = try SoakRun(renderSize: PixelSize(width: 320, height: 180))
        defer { soak.finish() }
        for line in ["set \(SettingsTable.videoSplit.key) 10", "set \(SettingsTable.videoBitrate.key) 1M"] { _ = soak.send(line) }
        let started = soak.send("record start")
        guard started.last?.hasPrefix("ok") == true else {
            throw HardwareError(.invalidArgument, "bench: record start: \(started.last ?? "no reply")")
        }
        func advance(seconds: Int) {
            for _ in 0..<(seconds * 10) {
                soak.loop.advance(by: .milliseconds(100))
                soak.supervisor.waitForRecorder()
                soak.loop.run()
            }
        }
        advance(seconds: 10)  // warm-up: the encoder and the first fragment
        let start = ProcessFigures.now()
        let began = monotonicNanoseconds()
        var samples: [(Int, ProcessFigures)] = [(0, start)]
        var events: [String] = []
        for minute in 1...minutes {
            advance(seconds: 60)
            events += soak.output.take()
            if minute % max(minutes / 6, 1) == 0 { samples.append((minute, ProcessFigures.now())) }
        }
        events += soak.send("record stop")
        advance(seconds: 1)
        events += soak.output.take()
        let seconds = Double(monotonicNanoseconds() - began) / 1e9
        let end = samples.last?.1 ?? ProcessFigures.now()
        let files = events.filter { $0.hasPrefix("event record.file") }
        let stopped = events.first { $0.hasPrefix("event record.stopped") || $0.hasPrefix("event record.failed") } ?? "none"
        func field(_ key: String, _ line: String) -> Int {
            line.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } ?? 0
        }
        let framesInFiles = files.map { field("frames", $0) }.reduce(0, +)
        // The parts' sidecars: each part begins with the frame after the previous part's last.
        let parts = Self.sidecars(under: soak.directory.appendingPathComponent("captures")).sorted { $0.part < $1.part }
        let joins = zip(parts, parts.dropFirst()).map { $1.firstSequence == $0.lastSequence + 1 }
        let joined = !parts.isEmpty && joins.allSatisfy { $0 }
        let written = field("frames", stopped), dropped = field("dropped", stopped)
        var rows = samples.map { n, f in
            ["after \(n) min", String(format: "%.1f", f.residentMegabytes), "\(f.descriptors)", "\(f.threads)"]
        }
        rows.append(["end / start", String(format: "%.3f", end.residentMegabytes / start.residentMegabytes),
                     String(format: "%.3f", Double(end.descriptors) / Double(start.descriptors)),
                     String(format: "%.3f", Double(end.threads) / Double(start.threads))])
        let notes = [
            "recorded \(minutes) min (+10 s warm-up) of simulated time in \(String(format: "%.0f", seconds)) s of wall time",
            "files \(files.count) (split every 10 min); frames written \(written), in the files' sidecars \(framesInFiles), dropped \(dropped)",
            "continuity: the files' frame counts add up to the recording's (\(framesInFiles == written ? "yes" : "NO")); "
                + "each of the \(parts.count) parts starts at the frame after the previous part's last (\(joined ? "yes" : "NO"))",
            "end: \(stopped)",
            "reference: the start figures (end / start = 1.000 is flat)",
        ]
        return BenchmarkReport(
            columns: ["when", "RSS MB", "fds", "threads"], rows: rows, notes: notes,
            metrics: ["minutes": Double(minutes), "files": Double(files.count), "frames": Double(written),
                      "frames_in_files": Double(framesInFiles), "dropped": Double(dropped),
                      "rss_start_mb": start.residentMegabytes, "rss_end_mb": end.residentMegabytes,
                      "fds_start": Double(start.descriptors), "fds_end": Double(end.descriptors),
                      "threads_start": Double(start.threads), "threads_end": Double(end.threads),
                      "parts_joined": joined ? 1 : 0, "wall_seconds": seconds])
    }

    /// Every video sidecar (`VID_*.json`) in the date folders under `captures`.
    static func sidecars(under captures: URL) -> [VideoSidecar] {
        let files = FileManager.default.enumerator(at: captures, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { $0.lastPathComponent.hasPrefix("VID_") && $0.pathExtension == "json" }
            .compactMap { try? JSONDecoder().decode(VideoSidecar.self, from: Data(contentsOf: $0)) }
    }
}
