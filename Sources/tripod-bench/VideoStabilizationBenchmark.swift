import Foundation
import Hardware
import Settings
import SimulatedHardware
import Supervisor

/// Video stabilization measured in the recorded file: the simulated board under handheld motion
/// (the scene moves across the sensor as the rig turns), recorded at 1920x1080@30 (rendered at
/// 960x540) with video stabilization off, standard and cinematic. Each file is decoded with
/// ffmpeg; the global shift between consecutive frames is found by block matching a central
/// window; the residual motion per frame is reported, with the ratio to `off` (the reference, in
/// the same run).
struct VideoStabilizationBenchmark: Benchmark {
    static let name = "video-stabilization"
    static let summary = "residual inter-frame motion in recorded video under handheld motion: off, standard, cinematic"

    /// Decoded frames are scaled to this width for matching; shifts are reported in video pixels.
    static let analysisWidth = 960

    func run() throws -> BenchmarkReport {
        let seconds = Int(ProcessInfo.processInfo.environment["TRIPOD_STABILIZATION_SECONDS"] ?? "") ?? 8
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        var reference: Double?
        var notes: [String] = []
        for mode in ["off", "standard", "cinematic"] {
            let (file, active, size) = try record(mode: mode, seconds: seconds)
            let shifts = try Self.interFrameShifts(file: file, videoSize: size)
            // Skip the first second: the planner's filter settles.
            let settled = Array(shifts.dropFirst(30))
            let magnitudes = settled.map { ($0.x * $0.x + $0.y * $0.y).squareRoot() }.sorted()
            let mean = magnitudes.reduce(0, +) / Double(max(magnitudes.count, 1))
            let p95 = magnitudes.isEmpty ? 0 : magnitudes[min(magnitudes.count - 1, Int(Double(magnitudes.count) * 0.95))]
            if mode == "off" { reference = mean }
            let ratio = reference.map { $0 > 0 ? mean / $0 : 0 } ?? 1
            rows.append([mode, active, String(format: "%.2f", mean), String(format: "%.2f", p95), String(format: "%.3f", ratio), "\(magnitudes.count)"])
            metrics["\(mode)_mean_px"] = mean
            metrics["\(mode)_p95_px"] = p95
            metrics["\(mode)_ratio"] = ratio
        }
        notes.append("simulated board, `sim motion handheld`, format 3 (1920x1080, up to 56 fps) at \(SettingsTable.videoFPS.key) 30, \(seconds) s per mode")
        notes.append("shift between consecutive decoded frames: block matching of the central half, search ±\(Self.searchRadius) px at \(Self.analysisWidth) px wide, in video pixels")
        notes.append("reference: the same recording with stabilization off; ratio = mean residual / off's")
        return BenchmarkReport(columns: ["mode", "active", "mean px/frame", "p95 px/frame", "ratio to off", "frames"],
                               rows: rows, notes: notes, metrics: metrics)
    }

    /// Records `seconds` with `stabilization.video mode`; returns the file, the active mode and the video size.
    private func record(mode: String, seconds: Int) throws -> (String, String, PixelSize) {
        let soak = try SoakRun(renderSize: PixelSize(width: 960, height: 540))
        defer { soak.finish() }
        for line in ["set \(SettingsTable.displayZebra.key) off", "format 3", "sim motion handheld \(Self.amplitude)", "set \(SettingsTable.stabilizationVideo.key) \(mode)"] {
            let reply = soak.send(line)
            guard reply.last?.hasPrefix("ok") == true else {
                throw HardwareError(.invalidArgument, "bench: \(line): \(reply.last ?? "no reply")")
            }
        }
        let active = soak.send("get \(SettingsTable.stabilizationVideo.key)").last ?? ""
        let started = soak.send("record start")
        guard let reply = started.last, reply.hasPrefix("ok"),
              let file = reply.split(separator: " ").first(where: { $0.hasPrefix("file=") })?.dropFirst(5) else {
            throw HardwareError(.invalidArgument, "bench: record start: \(started.last ?? "no reply")")
        }
        for _ in 0..<(seconds * 20) {
            soak.loop.advance(by: .milliseconds(50))
            soak.supervisor.waitForRecorder()
            soak.loop.run()
        }
        _ = soak.send("record stop")
        for _ in 0..<10 {
            soak.loop.advance(by: .milliseconds(50))
            soak.supervisor.waitForRecorder()
            soak.loop.run()
        }
        let path = soak.directory.appendingPathComponent("captures").appendingPathComponent(String(file)).path
        // The file outlives the run's directory: copy it out.
        let kept = NSTemporaryDirectory() + "tripod-stabilization-\(mode).mp4"
        try? FileManager.default.removeItem(atPath: kept)
        try FileManager.default.copyItem(atPath: path, toPath: kept)
        let activeMode = active.split(separator: " ").first { $0.hasPrefix("active=") }.map { String($0.dropFirst(7)) } ?? mode
        return (kept, activeMode, PixelSize(width: 960, height: 540))
    }

    static let searchRadius = 16
    /// `sim motion handheld` amplitude, °/s.
    static var amplitude: Double { Double(ProcessInfo.processInfo.environment["TRIPOD_STABILIZATION_AMPLITUDE"] ?? "") ?? 4 }

    /// The shift (video pixels) of each frame against the one before, by exhaustive block matching
    /// (sum of absolute differences) of the central half of grey frames decoded by ffmpeg.
    static func interFrameShifts(file: String, videoSize: PixelSize) throws -> [(x: Double, y: Double)] {
        let w = analysisWidth, h = analysisWidth * videoSize.height / videoSize.width
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-i", file, "-vf", "scale=\(w):\(h)", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = [UInt8](out.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HardwareError(.io, "bench: ffmpeg could not decode \(file)") }
        let frameBytes = w * h
        let frames = data.count / frameBytes
        let scale = Double(videoSize.width) / Double(w)
        var shifts: [(x: Double, y: Double)] = []
        let r = searchRadius
        let x0 = w / 4, x1 = 3 * w / 4, y0 = h / 4, y1 = 3 * h / 4
        for f in 1..<max(frames, 1) {
            let previous = (f - 1) * frameBytes, current = f * frameBytes
            var best = (sad: Int.max, dx: 0, dy: 0)
            for dy in -r...r {
                for dx in -r...r {
                    var sad = 0
                    var y = y0
                    while y < y1 {
                        let a = previous + y * w, b = current + (y + dy) * w + dx
                        var x = x0
                        while x < x1 { sad += abs(Int(data[a + x]) - Int(data[b + x])); x += 2 }
                        y += 2
                    }
                    if sad < best.sad { best = (sad, dx, dy) }
                }
            }
            shifts.append((Double(best.dx) * scale, Double(best.dy) * scale))
        }
        return shifts
    }
}
