import Boards
import Camera
import Foundation
import Hardware
import ManualLoop
import Settings
import SimulatedHardware

/// The simulated IMX708 rendering full-size frames of its test chart, against the real camera
/// (the reference: real time). One row per stream set: frames rendered per CPU second over the
/// rate the real camera delivers them (60 fps for 1080p, the full mode's 14.35 fps for 12 MP raw);
/// above 1 the simulation keeps up. Then real-time recordings on the simulated board
/// (`SimulatedRecordingRun`): frames kept of those expected, and the drops reported.
struct SimulatedCameraBenchmark: Benchmark {
    static let name = "simcam"
    static let summary = "simulated camera: full-size frames per second vs the real camera's rate (x real time)"

    private struct Case {
        var label: String
        var streams: [StreamConfiguration]
        var targetFps: Double
        var frames: Int
        var motion: String = "still"
        /// The handheld profile's RMS rate, degrees per second; nil for its default.
        var amplitudeDegreesPerSecond: Double? = nil
        /// `sim scene` words: the chart by default; `object spin 60` is drawn afresh every frame.
        var scene: [String] = ["even"]
    }

    func run() throws -> BenchmarkReport {
        let hd = PixelSize(width: 1920, height: 1080), finder = PixelSize(width: 640, height: 360)
        let cases = [
            Case(label: "1920x1080 BGR888", streams: [StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: hd)],
                 targetFps: 60, frames: 120),
            Case(label: "1920x1080 XRGB8888", streams: [StreamConfiguration(role: .viewfinder, pixelFormat: .xrgb8888, size: hd)],
                 targetFps: 60, frames: 120),
            Case(label: "1920x1080 YUV420 video + 640x360 XRGB8888 viewfinder",
                 streams: [StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: hd),
                           StreamConfiguration(role: .viewfinder, pixelFormat: .xrgb8888, size: finder)],
                 targetFps: 60, frames: 120),
            Case(label: "same, handheld (motion blur + skew per frame)",
                 streams: [StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: hd),
                           StreamConfiguration(role: .viewfinder, pixelFormat: .xrgb8888, size: finder)],
                 targetFps: 60, frames: 60, motion: "handheld"),
            // What a 1080p30 recording under `sim motion handheld 10` draws: every row through its own rotation.
            Case(label: "1920x1080 YUV420 video, handheld 10", streams: [StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: hd)],
                 targetFps: 30, frames: 60, motion: "handheld", amplitudeDegreesPerSecond: 10),
            Case(label: "4608x2592 SRGGB10 raw", streams: [StreamConfiguration(role: .raw, pixelFormat: PixelFormat("SRGGB10"),
                                                                               size: PixelSize(width: 4608, height: 2592))],
                 targetFps: 14.35, frames: 30),
            // sim scene object (docs/photogrammetry.md): spinning, so every frame is ray cast again
            // (a still object on a still rig is drawn once per stream, then costs what the chart does).
            Case(label: "object scene spin 60, 1152x648 BGR888 (the ring test's still)",
                 streams: [StreamConfiguration(role: .stillCapture, pixelFormat: .bgr888, size: PixelSize(width: 1152, height: 648))],
                 targetFps: 30, frames: 20, scene: ["object", "spin", "60"]),
            Case(label: "object scene spin 60, 384x216 BGR888 viewfinder (sim-small's size)",
                 streams: [StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 384, height: 216))],
                 targetFps: 30, frames: 60, scene: ["object", "spin", "60"]),
            Case(label: "object scene spin 60, 1152x648 BGR888 viewfinder (streaming: a 384-wide ray grid)",
                 streams: [StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 1152, height: 648))],
                 targetFps: 30, frames: 60, scene: ["object", "spin", "60"]),
            Case(label: "object scene still, 1920x1080 BGR888 (drawn once, cached)", streams: [StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: hd)],
                 targetFps: 60, frames: 60, scene: ["object"]),
        ]
        var rows: [[String]] = [["real camera (reference)", "-", "-", "-", "-", "-", "1.00"]]
        var metrics: [String: Double] = [:]
        // TRIPOD_SIMCAM_CASES: a comma-separated subset of the cases' indices (from 0), default all;
        // TRIPOD_SIMCAM_RECORDINGS=0 skips the real-time recordings.
        let environment = ProcessInfo.processInfo.environment
        let chosen = environment["TRIPOD_SIMCAM_CASES"].map { Set($0.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }) }
        for (index, c) in cases.enumerated() where chosen?.contains(index) ?? true {
            let (cpuFps, wallFps, firstSeconds) = try measure(c)
            let ratio = cpuFps / c.targetFps
            rows.append([c.label, String(format: "%.2f", c.targetFps), String(format: "%.1f", cpuFps), String(format: "%.1f", 1000 / cpuFps),
                         String(format: "%.1f", wallFps), String(format: "%.2f", firstSeconds), String(format: "%.2f", ratio)])
            metrics["cpu_ms_per_frame_\(index)"] = 1000 / cpuFps
            metrics["x_real_time_\(index)"] = ratio
            metrics["cpu_fps_\(index)"] = cpuFps
            metrics["wall_fps_\(index)"] = wallFps
        }
        var notes = ["sim fps excludes configure and the first frame, which sample the chart into the cache (their time is shown)",
                     "x real time = frames per CPU second of the whole process (every thread: frames are drawn in row bands on "
                         + "every core; not counting time other processes take on a shared machine) / real fps; wall fps beside it",
                     "every frame gets exposure, shot+read noise, clipping and the ISP or raw quantisation; "
                         + "handheld adds motion blur and rolling-shutter skew",
                     "object scene: a pinhole ray cast of sim scene object, one ray a pixel (streaming roles: a grid at most 384 wide); setup includes drawing the "
                         + "scene's textures once per process"]
        if environment["TRIPOD_SIMCAM_RECORDINGS"] != "0" {
            let (recordingRows, recordingNotes) = try recordings(metrics: &metrics)
            rows += recordingRows
            notes += recordingNotes
        }
        return BenchmarkReport(columns: ["streams", "real fps", "sim fps (CPU)", "CPU ms per frame", "sim fps (wall)", "setup s",
                                         "x real time"], rows: rows, notes: notes, metrics: metrics)
    }

    /// Real-time recordings on the simulated board (`SimulatedRecordingRun`): frames kept of those
    /// the sensor made, and whether the reported drops account for the rest.
    private func recordings(metrics: inout [String: Double]) throws -> (rows: [[String]], notes: [String]) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tripod").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return ([], ["recordings skipped: \(binary) is missing (swift build -c release --product tripod)"])
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-bench-simcam-\(getpid())")
        defer { try? FileManager.default.removeItem(at: work) }
        let handheld = ["sim motion handheld 10"]
        let runs = [
            SimulatedRecordingRun(label: "record 1080p30 handheld 10, cinematic", format: "1920x1080@30", framesPerSecond: 30,
                                  settings: handheld + ["set \(SettingsTable.stabilizationVideo.key) cinematic"], recordSeconds: 6.5),
            // The IMX708's 1080p tops out at 56.02 fps (its 2x2 binned mode): the nearest to 1080p60.
            SimulatedRecordingRun(label: "record 1080p56 handheld 10", format: "1920x1080@56", framesPerSecond: 56,
                                  settings: handheld + ["set \(SettingsTable.videoFPS.key) 56"], recordSeconds: 6.5),
            SimulatedRecordingRun(label: "record 720p120 handheld 10", format: "1280x720@120", framesPerSecond: 120,
                                  settings: handheld + ["set \(SettingsTable.videoFPS.key) 120"], recordSeconds: 6.5),
        ]
        var rows: [[String]] = [["recording (real time, tripod run)", SettingsTable.videoFPS.key, "kept / expected", "kept %", "dropped", "dropped = expected - kept"]]
        var notes: [String] = []
        for run in runs {
            let r = try run.run(binary: binary, work: work)
            let kept = 100 * Double(r.written) / Double(max(r.expected, 1))
            let accounted = r.reportedDropped == r.expected - r.written && r.expected == r.sequenceSpan
            rows.append([run.label, String(format: "%.0f", run.framesPerSecond), "\(r.written) / \(r.expected)",
                         String(format: "%.1f", kept), "\(r.reportedDropped)", accounted ? "yes" : "NO"])
            notes.append("\(run.label): \(String(format: "%.2f", r.sensorSeconds)) s of sensor time, sequence span \(r.sequenceSpan), "
                         + "load average \(String(format: "%.2f", r.loadBefore)) before, \(String(format: "%.2f", r.loadAfter)) at the end")
            let key = run.format.replacingOccurrences(of: "@", with: "_")
            metrics["record_\(key)_kept_percent"] = kept
            metrics["record_\(key)_written"] = Double(r.written)
            metrics["record_\(key)_expected"] = Double(r.expected)
            metrics["record_\(key)_dropped"] = Double(r.reportedDropped)
            metrics["record_\(key)_accounted"] = accounted ? 1 : 0
        }
        notes.append("recordings: the release tripod run --board sim on its real clock, driven through stdio: format, settings, "
                     + "1.5 s to settle, record start, 6.5 s, record stop; expected = the sensor's frames from the first frame's "
                     + "timestamp to the last (span × fps + 1, which must equal the sequence span), kept = frames written, "
                     + "dropped = what record.stopped reports")
        return (rows, notes)
    }

    /// Frames per CPU second and per wall second after the first, and the wall time of configure
    /// plus the first frame.
    private func measure(_ c: Case) throws -> (Double, Double, Double) {
        let loop = ManualEventLoop()
        let motion: any MotionTruth = c.motion == "still" ? StillMotion()
            : MotionProfile.handheld.make(amplitudeDegreesPerSecond: c.amplitudeDegreesPerSecond, seed: 5, origin: loop.now())
        let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"), motion: motion,
                                               scene: try SimulatedScene().parsed(c.scene))
        guard let camera = try provider.open(id: provider.cameraID) as? SimulatedCamera else {
            throw HardwareError(.other, "simcam: the provider did not return a SimulatedCamera")
        }
        var completed = 0
        let counter = Counter()
        camera.setEventHandler { event in
            guard case .requestCompleted(let completed) = event else { return }
            // Frames are drawn when read: read every stream, as a consumer would.
            for buffer in completed.buffers.values { _ = buffer.withUnsafeBytes { $0.first } }
            counter.count += 1
        }
        let start = monotonicNanoseconds()
        _ = try camera.configure(c.streams)  // samples the chart for each stream
        try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(8000),
                                    ControlName.analogueGain: .float(2), ControlName.awbEnable: .bool(false),
                                    ControlName.colourGains: .floatArray([2.2, 1.7])])
        let roles = c.streams.map(\.role)
        func frame() throws {
            try camera.queueRequest(CaptureRequest(cookie: UInt64(completed), roles: roles))
            let before = counter.count
            while counter.count == before { loop.advance(by: .milliseconds(5)) }
            completed += 1
        }
        try frame()
        let first = Double(monotonicNanoseconds() - start) / 1e9
        let timed = monotonicNanoseconds(), cpu = processCPUNanoseconds()
        for _ in 0..<c.frames { try frame() }
        let wall = Double(monotonicNanoseconds() - timed) / 1e9
        let cpuSeconds = Double(processCPUNanoseconds() - cpu) / 1e9
        camera.stop()
        return (Double(c.frames) / cpuSeconds, Double(c.frames) / wall, first)
    }

    /// CPU time of the whole process, every thread (CLOCK_PROCESS_CPUTIME_ID), nanoseconds: frames
    /// are drawn in bands on Dispatch's workers too.
    private func processCPUNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// Completions counted by the camera's handler (called on the loop's thread).
private final class Counter: @unchecked Sendable {
    var count = 0
}
