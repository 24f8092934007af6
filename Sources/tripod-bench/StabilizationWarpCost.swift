import Foundation
import Hardware
import ManualLoop
import Motion
import SimulatedHardware
import Stabilization
import Video

/// The warp's cost per frame and the OpenCV reference (`tools/bench stabilization`, part 2): frames
/// rendered by the simulated camera under handheld 10 °/s at 1920x1080 and 1280x720, cinematic
/// band homographies from the true motion, each frame warped by `YUVRotationWarp` on one and on
/// two threads (median of all frames), then the same frames and homographies through OpenCV.
struct WarpCostRun {
    static let frames = 24
    static let compared = 8

    func run(work: URL) throws -> (rows: [[String]], notes: [String], metrics: [String: Double]) {
        var rows: [[String]] = [["warp cost per frame", "size", "Tripod 1 thread (CPU)", "Tripod 2 threads (wall)", "OpenCV 1 thread (CPU)",
                                 "OpenCV 2 threads (wall)", "OpenCV ÷ Tripod (1 / 2)", "mean |diff|", "max |diff|", "luma > 1 level", "load"]]
        var notes: [String] = [], metrics: [String: Double] = [:]
        for (size, label) in [(PixelSize(width: 1920, height: 1080), "1080p30"), (PixelSize(width: 1280, height: 720), "720p60")] {
            let load = SimulatedRecordingRun.loadAverage()
            let r = try measure(size: size, work: work)
            let ratio1 = r.opencv1 / max(r.tripod1, 1e-9), ratio2 = r.opencv2 / max(r.tripod2, 1e-9)
            rows.append(["", label, String(format: "%.2f ms CPU", r.tripod1), String(format: "%.2f ms", r.tripod2),
                         String(format: "%.2f ms", r.opencv1), String(format: "%.2f ms", r.opencv2),
                         String(format: "%.2f / %.2f", ratio1, ratio2), String(format: "%.3f", r.meanDiff), "\(r.maxDiff)",
                         String(format: "%.4f %%", 100 * r.lumaOver1), String(format: "%.2f", load)])
            let budget = label == "1080p30" ? 1000.0 / 30 : 1000.0 / 60
            notes.append(String(format: "%@: the warp takes %.1f %% of a frame period on one thread (%.1f ms of CPU of %.1f)", label,
                                100 * r.tripod1 / budget, r.tripod1, budget))
            let a76 = (low: r.tripod1 * Self.cortexA76Factor.low, high: r.tripod1 * Self.cortexA76Factor.high)
            notes.append(String(format: "%@ on one Cortex-A76 core (Pi 5), estimated: %.0f–%.0f ms per frame (%.0f–%.0f %% of its period)", label,
                                a76.low, a76.high, 100 * a76.low / budget, 100 * a76.high / budget))
            metrics["warp_\(label)_ms_cortex_a76_estimate_high"] = a76.high
            metrics["warp_\(label)_ms_1_thread"] = r.tripod1
            metrics["simulated_camera_\(label)_render_ms_cpu"] = r.renderCPU
            notes.append(String(format: "%@: the simulated camera itself spends %.1f ms of CPU (all its threads) drawing and handing over each handheld YUV420 frame (%.0f %% of a period; on the board it shares the cores with the encoder and the warp)",
                                label, r.renderCPU, 100 * r.renderCPU / budget))
            metrics["warp_\(label)_ms_2_threads"] = r.tripod2
            metrics["opencv_\(label)_ms_1_thread"] = r.opencv1
            metrics["opencv_\(label)_ms_2_threads"] = r.opencv2
            metrics["opencv_over_tripod_\(label)_1_thread"] = ratio1
            metrics["reference_\(label)_mean_abs_diff"] = r.meanDiff
            metrics["reference_\(label)_max_abs_diff"] = Double(r.maxDiff)
        }
        notes.append("cost: \(Self.frames) frames per size rendered by the simulated camera (handheld 10), cinematic homographies from the true motion, \(WarpGeometry(size: PixelSize(width: 1920, height: 1080), focalLengthPixels: 1, margin: 0, lineNanoseconds: 0).bandRows)-row bands; medians. Reference: OpenCV \("warpPerspective") (INTER_LINEAR, BORDER_REPLICATE, one call per band and plane) on the first \(Self.compared) frames; the difference excludes the outer 2 px")
        return (rows, notes, metrics)
    }

    /// A Cortex-A76 core's time for this kernel ÷ this machine's, estimated: per sample two 16-bit
    /// loads of tap pairs and two stores to a scratch line (scalar), then the blend of 16 samples at
    /// once in 16-bit lanes (128-bit vectors here as in NEON; two float divides per 16 samples) over
    /// rows that stay in L1/L2 (a 16-row band of 1080p luma is ~30 KiB), so it scales with
    /// per-clock load/integer throughput and clock: an A76 (4-wide,
    /// 2 loads a cycle, 2.4 GHz on the Pi 5) does ~0.6–0.75 of a Sapphire Rapids core's work per
    /// clock (6-wide, 3 loads) and this VM's cores run 2.1–3 GHz. Not measured on an A76.
    /// (2.1 GHz / 2.4 GHz ÷ 0.75 = 1.2 to 3 GHz / 2.4 GHz ÷ 0.6 = 2.1.)
    static let cortexA76Factor = (low: 1.2, high: 2.1)

    struct Result { var tripod1, tripod2, opencv1, opencv2, meanDiff: Double; var maxDiff: Int; var lumaOver1: Double; var renderCPU: Double }
    final class Log: @unchecked Sendable { var completed: [CompletedRequest] = [] }

    private func measure(size: PixelSize, work: URL) throws -> Result {
        let loop = ManualEventLoop()
        let sensor = try SensorDescription.embedded(model: "imx708")
        let truth = MotionProfile.handheld.make(amplitudeDegreesPerSecond: 10, seed: 1, origin: loop.now())
        let provider = SimulatedCameraProvider(loop: loop, sensor: sensor, motion: truth, seed: 1)
        guard let camera = try provider.open(id: provider.cameraID) as? SimulatedCamera else {
            throw HardwareError(.notFound, "bench: no simulated camera")
        }
        let log = Log()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { log.completed.append(c) } }
        _ = try camera.configure([StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: size)])
        try camera.start(controls: [ControlName.exposureTime: .int32(8000), ControlName.analogueGain: .float(2)])
        let renderStart = allThreadsCPUNanoseconds()
        for cookie in 1...(Self.frames + 20) {
            try camera.queueRequest(CaptureRequest(cookie: UInt64(cookie), roles: [.videoRecording]))
            loop.advance(by: .milliseconds(34))
        }
        camera.stop()
        let lens = sensor.lens?.focalLengthMillimetres ?? 4.74, pitch = sensor.pixelSizeMicrometres ?? 1.4
        let mode = sensor.modes.first { $0.crop.width == 3072 } ?? sensor.modes[0]
        let cropWidth = Double(log.completed.first.flatMap { c -> PixelRect? in
            if case .rectangle(let r) = c.metadata[ControlName.scalerCrop] { return r } else { return nil }
        }?.width ?? mode.crop.width)
        let geometry = WarpGeometry(size: size, focalLengthPixels: lens * 1000 / pitch * Double(size.width) / cropWidth, margin: 0,
                                    lineNanoseconds: (mode.readoutMilliseconds ?? 10) * 1e6 / Double(size.height))
        let stabilizer = RecordingStabilizer(planner: try RotationPathPlanner(mode: .cinematic), geometry: { _ in geometry },
                                             orientationAt: { truth.orientation(at: $0) })
        var warped: [VideoFrame] = []
        for completed in log.completed where completed.isComplete {
            guard let buffer = completed.buffers[.videoRecording] else { continue }
            let frame = try VideoFrame(copying: buffer, sequence: completed.sequence, sensorTimestamp: completed.sensorTimestamp)
            warped += stabilizer.push(frame)
        }
        warped += stabilizer.flush()
        // Frames are drawn when first read (the copy above); the planning beside it is small.
        let renderCPU = Double(allThreadsCPUNanoseconds() - renderStart) / 1e6 / Double(max(log.completed.count, 1))
        var one: [Double] = [], two: [Double] = [], jobs: [[String: Any]] = []
        var output = [UInt8](repeating: 0, count: VideoFrame.byteCount(size: size, stride: size.width))
        for (index, frame) in warped.prefix(Self.frames).enumerated() {
            guard let warp = frame.warp as? YUVRotationWarp else { continue }
            for threads in [1, 2] {
                let timed = YUVRotationWarp(geometry: warp.geometry, bands: warp.bands, threads: threads)
                // One thread: this thread's CPU time (what the warp costs, whatever else runs);
                // two: the wall time (the cores are shared with the rest of the machine).
                let start = threads == 1 ? threadCPUNanoseconds() : monotonicNanoseconds()
                frame.withUnsafeBytes { source in
                    output.withUnsafeMutableBytes { target in
                        guard let s = source.baseAddress, let t = target.baseAddress else { return }
                        timed.warp(source: s, sourceStride: frame.stride, into: t, targetStride: size.width, size: size)
                    }
                }
                let ms = Double((threads == 1 ? threadCPUNanoseconds() : monotonicNanoseconds()) - start) / 1e6
                if threads == 1 { one.append(ms) } else { two.append(ms) }
            }
            guard index < Self.compared else { continue }
            let source = work.appendingPathComponent("src-\(size.width)-\(index).yuv"), tripod = work.appendingPathComponent("out-\(size.width)-\(index).yuv")
            try frame.withUnsafeBytes { try Data($0.prefix(output.count)).write(to: source) }
            try Data(output).write(to: tripod)
            jobs.append(["source": source.path, "tripod": tripod.path,
                         "bands": warp.bands.map { [[$0.row0.x, $0.row0.y, $0.row0.z], [$0.row1.x, $0.row1.y, $0.row1.z], [$0.row2.x, $0.row2.y, $0.row2.z]] }])
        }
        let jobURL = work.appendingPathComponent("reference-\(size.width).json"), resultURL = work.appendingPathComponent("reference-result-\(size.width).json")
        try StabilizationBenchmark.writeJSON(["width": size.width, "height": size.height, "band_rows": geometry.bandRows, "frames": jobs,
                                              "threads": [1, 2]] as [String: Any], to: jobURL)
        let reference = try StabilizationBenchmark.python(["reference", jobURL.path, resultURL.path])
        let r1 = reference["1"] as? [String: Any] ?? [:], r2 = reference["2"] as? [String: Any] ?? [:]
        return Result(tripod1: percentile(one, 50), tripod2: percentile(two, 50),
                      opencv1: r1["median_ms"] as? Double ?? .nan, opencv2: r2["median_ms"] as? Double ?? .nan,
                      meanDiff: r1["mean_abs_diff"] as? Double ?? .nan, maxDiff: r1["max_abs_diff"] as? Int ?? -1,
                      lumaOver1: r1["share_luma_over_1"] as? Double ?? .nan, renderCPU: renderCPU)
    }
}

/// This process's CPU time, all threads, nanoseconds (CLOCK_PROCESS_CPUTIME_ID).
func allThreadsCPUNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// This thread's CPU time, nanoseconds (CLOCK_THREAD_CPUTIME_ID).
func threadCPUNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
