import Boards
import Camera
import Foundation
import Hardware
import ManualLoop
import Settings
import SimulatedHardware

/// Brackets of 3, 5 and 9 frames on one simulated IMX708 (exposure and gain delay 2, 4 requests
/// in flight, same format and frame rate), three ways: Tripod's engine; "set controls, then wait
/// until a frame's metadata matches", per frame; "stop, reconfigure, start", per frame. Focus
/// brackets (`auto` steps over 0.5–2 m and 0.2–2 m) two ways: the engine, and "set the lens, wait
/// until a frame's LensPosition says it is there", per step. Sensor time
/// is the simulated clock (ManualEventLoop), so the numbers are exact and repeatable. Then the DNG
/// and JPEG write throughput against plain write+fsync, in the same run.
struct BracketBenchmark: Benchmark {
    static let name = "bracket"
    static let summary = "bracket frames and sensor time: engine vs set-and-wait vs restart per frame; DNG/JPEG writes"

    /// Frames and sensor time one way took for one bracket of `steps` steps.
    struct Cost { var frames: Int; var sensorSeconds: Double; var bracketFrames: Int? = nil; var steps = 0 }

    func run() throws -> BenchmarkReport {
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        for count in [3, 5, 9] {
            let plan = try BracketPlan.evPreset(count: count, stepEV: 1)
            let engine = try measure(plan, way: .engine)
            let wait = try measure(plan, way: .setAndWait)
            let restart = try measure(plan, way: .restart)
            func row(_ name: String, _ c: Cost) -> [String] {
                [name, "\(count)", "\(c.frames)", String(format: "%.2f", Double(c.frames) / Double(count)),
                 c.bracketFrames.map(String.init) ?? "-", String(format: "%.1f", c.sensorSeconds * 1000),
                 String(format: "%.2f", c.sensorSeconds / engine.sensorSeconds),
                 String(format: "%.2f", Double(c.frames) / Double(engine.frames))]
            }
            rows += [row("Tripod engine (back to back, matched by metadata)", engine),
                     row("set controls, wait for matching metadata, per frame", wait),
                     row("stop, reconfigure, start, per frame", restart)]
            metrics["frames_engine_\(count)"] = Double(engine.frames)
            metrics["time_ratio_wait_vs_engine_\(count)"] = wait.sensorSeconds / engine.sensorSeconds
            metrics["time_ratio_restart_vs_engine_\(count)"] = restart.sensorSeconds / engine.sensorSeconds
        }
        rows.append(["-- focus brackets (auto step)", "steps", "sensor frames", "frames/step", "own frames", "sensor ms", "time × engine", "frames × engine"])
        for (name, near, far) in [("0.5m-2m", 2.0, 0.5), ("0.2m-2m", 5.0, 0.5)] {
            let plan = BracketPlan.focus(FocusBracketRequest(near, far, stepDioptres: nil, text: name))
            let engine = try measure(plan, way: .engine), wait = try measure(plan, way: .setAndWait)
            let count = engine.steps
            func row(_ way: String, _ c: Cost) -> [String] {
                [way + " " + name, "\(count)", "\(c.frames)", String(format: "%.2f", Double(c.frames) / Double(count)),
                 c.bracketFrames.map(String.init) ?? "-", String(format: "%.1f", c.sensorSeconds * 1000),
                 String(format: "%.2f", c.sensorSeconds / engine.sensorSeconds), String(format: "%.2f", Double(c.frames) / Double(engine.frames))]
            }
            rows += [row("Tripod engine (lens travel planned in frames, LensPosition matched)", engine),
                     row("set \(SettingsTable.focusLens.key), wait for a frame at that LensPosition, per step", wait)]
            let key = name.replacingOccurrences(of: "-", with: "_").replacingOccurrences(of: ".", with: "")
            metrics["focus_steps_\(key)"] = Double(count)
            metrics["focus_frames_per_step_engine_\(key)"] = Double(engine.frames) / Double(count)
            metrics["focus_frames_per_step_wait_\(key)"] = Double(wait.frames) / Double(count)
            metrics["focus_frames_ratio_wait_vs_engine_\(key)"] = Double(wait.frames) / Double(engine.frames)
        }
        let directory = ProcessInfo.processInfo.environment["TRIPOD_BENCH_DIR"] ?? ".bench/bracket-scratch"
        let m = try measureMediaWrites(frameCount: 3, size: PixelSize(width: 4056, height: 3040), directory: directory)
        func write(_ name: String, _ bytes: Int, _ seconds: [Double], _ plain: [Double]) -> [String] {
            let total = seconds.reduce(0, +), plainTotal = plain.reduce(0, +)
            return [name, "\(seconds.count)", String(format: "%.1f MB", Double(bytes) / 1e6), "", "",
                    String(format: "%.1f", total / Double(seconds.count) * 1000),
                    String(format: "%.2f", total / plainTotal), String(format: "%.1f MB/s vs %.1f MB/s plain",
                        Double(bytes * seconds.count) / 1e6 / total, Double(bytes * plain.count) / 1e6 / plainTotal)]
        }
        rows.append(["-- writes (wall clock, 12 MP)", "frames", "bytes", "", "", "ms/frame", "× plain time", "throughput"])
        rows.append(write("DNG uncompressed: encode + atomic write", m.dngBytesPerFrame, m.dngSeconds, m.dngPlainSeconds))
        rows.append(write("JPEG q92: libjpeg encode + EXIF + atomic write", m.jpegBytesPerFrame, m.jpegSeconds, m.jpegPlainSeconds))
        metrics["dng_mb_per_s"] = m.megabytesPerSecond(m.dngBytesPerFrame, m.dngSeconds)
        metrics["dng_plain_mb_per_s"] = m.megabytesPerSecond(m.dngBytesPerFrame, m.dngPlainSeconds)
        metrics["jpeg_mb_per_s"] = m.megabytesPerSecond(m.jpegBytesPerFrame, m.jpegSeconds)
        metrics["jpeg_plain_mb_per_s"] = m.megabytesPerSecond(m.jpegBytesPerFrame, m.jpegPlainSeconds)
        return BenchmarkReport(
            columns: ["way", "steps", "sensor frames", "frames/step", "own frames", "sensor ms", "time × engine", "frames × engine"],
            rows: rows,
            notes: [
                "simulated IMX708, format 0, exposure delay 2, gain delay 2, 4 requests in flight; EV preset at 1 EV from the metered exposure",
                "sensor frames/time: from the trigger to the completion of the frame that satisfies the last step (simulated clock);",
                "  they include the 4 requests already in flight ahead of the first bracket request (per step for set-and-wait)",
                "own frames: the engine's first bracket frame to its last kept one = steps + pipeline delay (2)",
                "focus: lens from 1 D (the tuning default), simulated lens 1.5 D per frame, auto step 0.30 D; set-and-wait sets",
                "  the held exposure once and \(SettingsTable.focusLens.key) per step, and takes the first frame whose LensPosition and exposure match",
                "restart per frame: costed as the simulated camera models it: configure and start take no time, the pipeline refills,",
                "  and 1 start-up frame is dropped (AWB stays auto); real libcamera adds hundreds of ms of configure/allocate per restart",
                "writes: \(m.size), directory \(m.directory); × plain time = Tripod / plain write+fsync of the same bytes (encode included)",
            ],
            metrics: metrics)
    }

    enum Way { case engine, setAndWait, restart }

    /// A streaming, metered rig on a manual clock; its streaming frames reach `link`'s runner.
    private func rig(_ link: RunnerLink) throws -> (ManualEventLoop, SimulatedCamera, CameraController) {
        var sensor = try SensorDescription.embedded(model: "imx708")
        sensor.exposureDelayFrames = 2
        sensor.gainDelayFrames = 2
        let loop = ManualEventLoop()
        let provider = SimulatedCameraProvider(loop: loop, sensor: sensor, seed: 3)
        let device = try provider.open(id: provider.cameraID)
        guard let camera = device as? SimulatedCamera else { throw CameraError(.notReady, "bench: not a simulated camera") }
        let stage = FrameObserver("bench step") { frame in link.runner?.frameArrived(frame.state) }
        let controller = try CameraController(device: device, sensor: sensor, loop: loop, pipeline: FramePipeline(streaming: [stage]))
        controller.requestsInFlight = 4
        let bound = LoopBound(controller, loop: loop)
        var failure: (any Error)?
        let box = LockedValue<String?>(nil)
        loop.execute { do { try bound.value.startStreaming() } catch { box.withLock { $0 = "\(error)" } } }
        loop.advance(by: .milliseconds(500))
        if let message = box.current { failure = CameraError(.notReady, message) }
        if let failure { throw failure }
        return (loop, camera, controller)
    }

    private func measure(_ plan: BracketPlan, way: Way) throws -> Cost {
        let link = RunnerLink()
        let (loop, camera, controller) = try rig(link)
        let box = LockedValue<Result<Cost, CameraError>?>(nil)
        let bound = LoopBound((camera, controller), loop: loop)
        loop.execute {
            let (camera, controller) = bound.value
            let runner = WayRunner(loop: loop, camera: camera, controller: controller) { _, result in box.withLock { $0 = result } }
            link.runner = runner
            runner.run(plan, way: way)
        }
        while box.current == nil, loop.advance(by: .milliseconds(1)) >= 0, loop.now().nanoseconds < 120_000_000_000 {}
        loop.execute { link.runner = nil }  // lets go of the rig
        loop.advance(by: .milliseconds(1))
        switch box.current {
        case .success(let cost)?: return cost
        case .failure(let error)?: throw error
        case nil: throw CameraError(.notReady, "bench: \(way) did not finish")
        }
    }
}

/// The runner the rig's frame stage hands streaming frames to, once it exists (the rig, and its
/// pipeline, are made first); it also keeps the runner alive until the measurement ends.
/// Loop-confined.
private final class RunnerLink: @unchecked Sendable {
    var runner: WayRunner?
}

/// Runs one way on the loop and reports its cost once.
private final class WayRunner {
    let loop: any EventLoop
    let camera: SimulatedCamera
    let controller: CameraController
    let report: (WayRunner, Result<BracketBenchmark.Cost, CameraError>) -> Void
    var startTime = MonotonicTime(nanoseconds: 0)
    var framesBefore: UInt64 = 0
    var steps: [ResolvedStep] = []
    /// What the runner does now.
    private var progress = Progress.idle

    private enum Progress {
        /// Nothing runs (before `run`, and once a per-frame way is done).
        case idle
        /// The engine runs the bracket; it is kept after its end for its statistics.
        case engine(BracketEngine)
        /// A per-frame way's step waits for a frame whose metadata matches it.
        case awaiting(index: Int, step: ResolvedStep, way: BracketBenchmark.Way)
    }

    init(loop: any EventLoop, camera: SimulatedCamera, controller: CameraController,
         report: @escaping (WayRunner, Result<BracketBenchmark.Cost, CameraError>) -> Void) {
        self.loop = loop; self.camera = camera; self.controller = controller; self.report = report
    }

    /// Frames produced since the start (the counter restarts with each `start`).
    var framesUsed: Int { Int(framesBefore + camera.framesProduced) }

    func done() {
        report(self, .success(BracketBenchmark.Cost(frames: framesUsed - startFrames,
                                                     sensorSeconds: Double((loop.now() - startTime).nanoseconds) / 1e9,
                                                     bracketFrames: engineStatistics?.sensorFramesUsed, steps: steps.count)))
        if case .awaiting = progress { progress = .idle }
    }
    var startFrames = 0

    /// The engine's statistics, for the engine's way.
    private var engineStatistics: BracketEngine.Statistics? {
        if case .engine(let engine) = progress { engine.statistics } else { nil }
    }

    func run(_ plan: BracketPlan, way: BracketBenchmark.Way) {
        startTime = loop.now()
        startFrames = framesUsed
        do {
            let plan = try plan.resolvingFocus(for: controller, maximumFrames: BracketPlan.maximumSteps)
            let engine = try BracketEngine(camera: controller, plan: plan, onFrame: { _ in }, onFinish: { [self] outcome in
                if case .failed(let reason, _) = outcome { report(self, .failure(CameraError(.notReady, reason))) }
                else if way == .engine { done() }
            })
            steps = engine.steps
            if way == .engine {
                progress = .engine(engine)
                try engine.start()
            } else {
                next(0, way: way)
            }
        } catch {
            report(self, .failure(CameraError(.notReady, "\(error)")))
        }
    }

    /// Per-frame ways: set the step (or restart with it), then wait for a frame whose metadata matches.
    private func next(_ index: Int, way: BracketBenchmark.Way) {
        guard index < steps.count else { done(); return }
        let step = steps[index]
        do {
            if way == .restart {
                framesBefore += camera.framesProduced
                controller.stopStreaming()
            }
            let format = controller.activeFormat.format
            let iso = min(max((step.analogueGain * controller.sensor.isoPerGain * 100).rounded() / 100, format.minimumISO), format.maximumISO)
            try controller.setExposure(.custom(durationMicroseconds: step.exposureMicroseconds, iso: iso))
            if let lens = step.lensDioptres { try controller.setFocus(.locked(lensPositionDioptres: lens)) }
            if way == .restart { try controller.startStreaming() }
        } catch {
            report(self, .failure(CameraError(.notReady, "\(error)")))
            return
        }
        progress = .awaiting(index: index, step: step, way: way)
    }

    /// A streaming frame: the step waited for is done when the frame's metadata matches it.
    func frameArrived(_ state: FrameState) {
        guard case .awaiting(let index, let step, let way) = progress else { return }
        let tolerance = BracketMatching.lensTolerance(resolutionDioptres: controller.sensor.lensPositionResolutionDioptres)
        guard let actual = state.exposure,
              BracketMatching.match(actualExposureMicroseconds: actual.durationMicroseconds, actualGain: actual.gain,
                                    actualLensDioptres: state.lensPositionDioptres, lensTolerance: tolerance,
                                    steps: [step], pending: [0], controlInfo: [:]) != nil else { return }
        progress = .idle
        next(index + 1, way: way)
    }
}
