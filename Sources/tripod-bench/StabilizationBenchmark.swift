import Foundation
import Hardware
import Motion
import Settings
import SimulatedHardware
import Stabilization
import Supervisor
import Video

/// Issue 41: the rotation warp measured in the file, not the plan.
///
/// 1. Residual motion: the simulated board in process (manual clock, so nothing is dropped and
///    every run is the same), `format 1920x1080@30`, `sim motion handheld 3 | 10 | 20` and
///    `walking`, `stabilization.video off | standard | cinematic`; each recording is decoded and
///    measured by `tools/bench.d/stabilization_measure.py` (tracked features, an affine field per
///    frame pair: shift, roll, rolling-shutter skew); the unstabilized file is checked against the
///    simulator's true motion (the same profile, rebuilt here from its seed and origin).
/// 2. Cost: the warp alone (`YUVRotationWarp`) on rendered 1080p and 720p frames, one and two
///    threads, and in the same run the reference: the same frames and band homographies through
///    OpenCV's `warpPerspective` (Python), its time and the pixel difference.
/// 3. Real time: `tripod run` recording 1080p30 handheld 10 with each mode (`SimulatedRecordingRun`):
///    frames kept of those the sensor made.
/// `TRIPOD_STABILIZATION_SECONDS` (default 6), `TRIPOD_STABILIZATION_RENDER` (default 960x540: the
/// in-process recordings' frame size), `TRIPOD_STABILIZATION_REALTIME_SECONDS` (default 8; 0 skips),
/// `TRIPOD_STABILIZATION_CASES` (e.g. "handheld 10", default all four), `TRIPOD_STABILIZATION_PARTS`
/// (a comma-separated subset of "residual,orientation,cost,realtime", default all four).
struct StabilizationBenchmark: Benchmark {
    static let name = "stabilization"
    static let summary = "rotation warp: residual motion in the decoded file, cost per frame, OpenCV reference, drops at real time"

    static let cases: [(profile: String, amplitude: Double?)] = [("handheld", 3), ("handheld", 10), ("handheld", 20), ("walking", nil)]
    static let modes = ["off", "standard", "cinematic"]
    static let script = "tools/bench.d/stabilization_measure.py"

    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static var python: String {
        let home = environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        return home + "/tripod/pyenv/bin/python"
    }

    func run() throws -> BenchmarkReport {
        let seconds = Int(Self.environment["TRIPOD_STABILIZATION_SECONDS"] ?? "") ?? 6
        let render = Self.parseSize(Self.environment["TRIPOD_STABILIZATION_RENDER"] ?? "960x540") ?? PixelSize(width: 960, height: 540)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-bench-stab-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var rows: [[String]] = [], notes: [String] = [], metrics: [String: Double] = [:]
        var plotSeries: [(String, [Double])] = []
        // TRIPOD_STABILIZATION_CASES: a comma-separated subset ("handheld 10,walking"), default all.
        let chosen = Self.environment["TRIPOD_STABILIZATION_CASES"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let parts = Self.environment["TRIPOD_STABILIZATION_PARTS"].map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
            ?? ["residual", "orientation", "cost", "realtime"]
        for c in Self.cases where parts.contains("residual") && chosen?.contains(c.profile + (c.amplitude.map { " \(Int($0))" } ?? "")) ?? true {
            let label = c.profile + (c.amplitude.map { " \(Int($0))" } ?? "")
            var off: Measured?
            for mode in Self.modes {
                let load = SimulatedRecordingRun.loadAverage()
                let m = try ResidualRun(profile: c.profile, amplitude: c.amplitude, mode: mode, seconds: seconds, render: render)
                    .run(work: work)
                if mode == "off" { off = m }
                let total = off.map { m.total / max($0.total, 1e-9) } ?? 1, roll = off.map { m.roll / max($0.roll, 1e-9) } ?? 1
                rows.append([label, mode, m.active, String(format: "%.3f", m.total), String(format: "%.3f", m.shift),
                             String(format: "%.4f", m.roll), String(format: "%.4f", m.skew),
                             mode == "off" ? "—" : String(format: "%.0f %%", 100 * (1 - total)),
                             mode == "off" ? "—" : String(format: "%.0f %%", 100 * (1 - roll)),
                             m.marginHits.map { "\($0)/\(m.frames)" } ?? "—", String(format: "%.2f", load)])
                let key = "\(c.profile)\(c.amplitude.map { "_\(Int($0))" } ?? "")_\(mode)"
                metrics["\(key)_total_px"] = m.total
                metrics["\(key)_roll_deg"] = m.roll
                if mode != "off" {
                    metrics["\(key)_reduction"] = 1 - total
                    metrics["\(key)_roll_reduction"] = 1 - roll
                }
                if mode == "off", let truth = m.truthTotal {
                    notes.append(String(format: "%@ off: the simulator's true camera motion %.3f px, roll %.4f °/frame; the measurement's shift differs from the truth by %.3f px RMS, its roll by %.4f ° RMS",
                                        label, truth, m.truthRoll ?? .nan, m.truthShiftError ?? .nan, m.truthRollError ?? .nan))
                }
                if label == "handheld 10" { plotSeries.append((mode, m.series)) }
            }
        }
        notes.append("columns: RMS over frame pairs (after the first second) of the inter-frame motion in the decoded file, video pixels at \(render.width)x\(render.height): total = the fitted field over a 16x9 grid (shift, roll and skew together); shift; roll (°); skew (x, px per px of height); reduction = 1 − mode / off; margin hit = frames whose correction the margin limited (sidecar)")
        notes.append("in process on the manual clock: \(seconds) s per recording of format 1920x1080@30 rendered at \(render.width)x\(render.height), libx264; load = the 1-minute load average at the run's start")
        try plot(plotSeries, work: work, notes: &notes)
        if parts.contains("orientation") {
            let check = try OrientationCheckRun().run()
            rows += check.rows; notes += check.notes; metrics.merge(check.metrics) { $1 }
        }
        if parts.contains("cost") {
            let cost = try WarpCostRun().run(work: work)
            rows += cost.rows; notes += cost.notes; metrics.merge(cost.metrics) { $1 }
        }
        if parts.contains("realtime") {
            let realtime = try realTime(work: work, metrics: &metrics)
            rows += realtime.rows; notes += realtime.notes
        }
        return BenchmarkReport(columns: ["case", "mode", "active", "total px", "shift px", "roll °", "skew", "total vs off", "roll vs off",
                                         "margin hit", "load"], rows: rows, notes: notes, metrics: metrics)
    }

    static func parseSize(_ text: String) -> PixelSize? {
        let parts = text.split(separator: "x").compactMap { Int($0) }
        return parts.count == 2 ? PixelSize(width: parts[0], height: parts[1]) : nil
    }

    /// Runs the measurement script; returns its JSON.
    static func python(_ arguments: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HardwareError(.io, "bench: \(script) \(arguments.first ?? "") failed (\(process.terminationStatus)); run tools/setup for opencv-python-headless")
        }
        guard arguments.count >= 3, arguments[0] != "plot" else { return [:] }
        let data = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    static func writeJSON(_ object: Any, to url: URL) throws {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: url)
    }

    /// The handheld 10 residual over time, off / standard / cinematic, into .bench/ (docs/images takes a copy).
    private func plot(_ series: [(String, [Double])], work: URL, notes: inout [String]) throws {
        guard !series.isEmpty else { return }
        let colours: [String: [Int]] = ["off": [40, 40, 220], "standard": [30, 150, 240], "cinematic": [60, 160, 60]]  // BGR
        let job: [String: Any] = [
            "title": "inter-frame motion in the decoded file, px (handheld 10 deg/s, 1080p30, frame pairs over time)",
            "series": series.map { ["label": $0.0, "values": $0.1, "colour": colours[$0.0] ?? [0, 0, 0]] as [String: Any] },
        ]
        let jobURL = work.appendingPathComponent("plot.json")
        try Self.writeJSON(job, to: jobURL)
        try FileManager.default.createDirectory(atPath: ".bench", withIntermediateDirectories: true)
        _ = try Self.python(["plot", jobURL.path, ".bench/stabilization-residual.png"])
        notes.append("plot: .bench/stabilization-residual.png (handheld 10: off, standard, cinematic)")
    }

    /// Real-time recordings with the release `tripod run` (as `tools/bench simcam` does).
    private func realTime(work: URL, metrics: inout [String: Double]) throws -> (rows: [[String]], notes: [String]) {
        let seconds = Double(Self.environment["TRIPOD_STABILIZATION_REALTIME_SECONDS"] ?? "") ?? 8
        guard seconds > 0 else { return ([], ["real-time recordings skipped (TRIPOD_STABILIZATION_REALTIME_SECONDS=0)"]) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tripod").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return ([], ["real-time recordings skipped: \(binary) is missing (swift build -c release --product tripod)"])
        }
        var rows: [[String]] = [["real time: tripod run, 1080p30 handheld 10", "mode", "kept / expected", "kept %", "dropped (reported)",
                                 "accounted", "", "", "", "", "load"]]
        var notes: [String] = []
        for mode in Self.modes {
            let run = SimulatedRecordingRun(label: "stabilization \(mode)", format: "1920x1080@30", framesPerSecond: 30,
                                            settings: ["sim motion handheld 10", "set \(SettingsTable.stabilizationVideo.key) \(mode)"], recordSeconds: seconds)
            let r = try run.run(binary: binary, work: work)
            let kept = 100 * Double(r.written) / Double(max(r.expected, 1))
            let accounted = r.reportedDropped == r.expected - r.written
            rows.append(["", mode, "\(r.written) / \(r.expected)", String(format: "%.1f", kept), "\(r.reportedDropped)",
                         accounted ? "yes" : "NO", "", "", "", "", String(format: "%.2f → %.2f", r.loadBefore, r.loadAfter)])
            metrics["realtime_\(mode)_kept_percent"] = kept
            metrics["realtime_\(mode)_dropped"] = Double(r.reportedDropped)
            notes.append("real time \(mode): \(String(format: "%.2f", r.sensorSeconds)) s of sensor time, sequence span \(r.sequenceSpan)")
        }
        return (rows, notes)
    }
}

/// What the measurement found in one file.
struct Measured {
    var active: String
    var total: Double, shift: Double, roll: Double, skew: Double
    var truthTotal: Double?, truthRoll: Double?, truthShiftError: Double?, truthRollError: Double?
    var marginHits: Int?
    var frames: Int
    var series: [Double]
}

/// One in-process recording and its measurement.
struct ResidualRun {
    var profile: String
    var amplitude: Double?
    var mode: String
    var seconds: Int
    var render: PixelSize

    func run(work: URL) throws -> Measured {
        let soak = try SoakRun(renderSize: render)
        defer { soak.finish() }
        func send(_ line: String) throws {
            let reply = soak.send(line)
            guard reply.last?.hasPrefix("ok") == true else { throw HardwareError(.invalidArgument, "bench: \(line): \(reply.last ?? "no reply")") }
        }
        for line in ["set \(SettingsTable.displayZebra.key) off", "format 1920x1080@30", "set \(SettingsTable.stabilizationVideo.key) \(mode)"] { try send(line) }
        let origin = soak.loop.now()
        try send("sim motion \(profile)" + (amplitude.map { " \(Int($0))" } ?? ""))
        let active = (soak.send("get \(SettingsTable.stabilizationVideo.key)").last ?? "").split(separator: " ")
            .first { $0.hasPrefix("active=") }.map { String($0.dropFirst(7)) } ?? mode
        func advance(_ milliseconds: Int) {
            for _ in 0..<(milliseconds / 50) {
                soak.loop.advance(by: .milliseconds(50))
                soak.supervisor.waitForRecorder()
                soak.loop.run()
            }
        }
        advance(1500)  // AE, AWB and the tracker settle
        try send("record start")
        advance(seconds * 1000)
        _ = soak.send("record stop")
        advance(1000)
        let captures = soak.directory.appendingPathComponent("captures")
        guard let sidecar = RecordingSoakBenchmark.sidecars(under: captures).first,
              let video = (FileManager.default.enumerator(at: captures, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL })?
                .first(where: { $0.lastPathComponent == sidecar.file }) else {
            throw HardwareError(.notFound, "bench: no recording under \(captures.path)")
        }
        let kept = work.appendingPathComponent("\(profile)-\(amplitude.map { Int($0) } ?? 0)-\(mode).mp4")
        try? FileManager.default.removeItem(at: kept)
        try FileManager.default.copyItem(at: video, to: kept)
        // The geometry the simulator rendered with: the format's crop within the mode's readout.
        let camera = soak.loop.perform { soak.supervisor.camera }
        guard let format = soak.loop.perform({ camera?.activeFormat.format }) else { throw HardwareError(.notFound, "bench: no camera") }
        let sensor = try SensorDescription.embedded(model: "imx708")
        guard let sensorMode = sensor.modes.first(where: { $0.width == format.sensorModeSize.width && $0.height == format.sensorModeSize.height }),
              let lens = sensor.lens?.focalLengthMillimetres, let pitch = sensor.pixelSizeMicrometres else {
            throw HardwareError(.notFound, "bench: the format's sensor mode or optics")
        }
        let readoutNanoseconds = (sensorMode.readoutMilliseconds ?? 1e3 / sensorMode.maximumFps) * 1e6
        let crop = format.sensorCrop, modeCrop = sensorMode.crop
        let exposureNanoseconds = (sidecar.exposure.exposureTimeMicroseconds?.mean ?? 0) * 1000
        let rowsPerVideoRow = Double(crop.height) / Double(render.height)
        let a = exposureNanoseconds / 2 + readoutNanoseconds * Double(crop.y - modeCrop.y) / Double(modeCrop.height)
        let b = readoutNanoseconds * rowsPerVideoRow / Double(modeCrop.height)
        let n = sidecar.framesWritten
        let first = Double(sidecar.firstSensorTimestampNanoseconds), last = Double(sidecar.lastSensorTimestampNanoseconds)
        let frames = (0..<n).map { first + (last - first) * Double($0) / Double(max(n - 1, 1)) }
        let truth = try MotionProfile.named(profile).make(amplitudeDegreesPerSecond: amplitude, seed: 1, origin: origin)
        func terms(_ s: [Sinusoid]) -> [[Double]] { s.map { [$0.amplitude, $0.frequencyHertz, $0.phase] } }
        let job: [String: Any] = [
            "video": kept.path, "width": render.width, "height": render.height, "skip": 30,
            "focal_px": lens * 1000 / pitch * Double(render.width) / Double(crop.width),
            "frames_ns": frames, "row_time_ns": [a, b],
            "profile": ["yaw": terms(truth.yaw), "pitch": terms(truth.pitch), "roll": terms(truth.roll),
                        "pan": truth.panRadiansPerSecond, "origin_ns": Double(origin.nanoseconds)] as [String: Any],
        ]
        let jobURL = work.appendingPathComponent("job-\(mode).json"), resultURL = work.appendingPathComponent("result-\(mode).json")
        try StabilizationBenchmark.writeJSON(job, to: jobURL)
        let result = try StabilizationBenchmark.python(["measure", jobURL.path, resultURL.path])
        let measured = result["measured"] as? [String: Double] ?? [:]
        let truthSummary = result["truth"] as? [String: Double]
        // A stabilized recording's truth is what the camera did, not what the file shows: only off's is compared.
        let isOff = mode == "off"
        return Measured(active: active, total: measured["total_px"] ?? .nan, shift: measured["shift_px"] ?? .nan,
                        roll: measured["roll_deg"] ?? .nan, skew: measured["skew_x"] ?? .nan,
                        truthTotal: isOff ? truthSummary?["total_px"] : nil, truthRoll: isOff ? truthSummary?["roll_deg"] : nil,
                        truthShiftError: isOff ? result["measured_vs_truth_shift_rms_px"] as? Double : nil,
                        truthRollError: isOff ? result["measured_vs_truth_roll_rms_deg"] as? Double : nil,
                        marginHits: sidecar.stabilizedFrames.map { $0.filter(\.marginHit).count },
                        frames: n, series: result["series_total_px"] as? [Double] ?? [])
    }
}
