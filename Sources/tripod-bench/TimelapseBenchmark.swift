import Foundation
import Hardware
import Media
import Settings
import TestSupport

/// Interval timing of `timelapse start`, on the real clock: the release `tripod run --board sim`
/// takes 30 shots a second apart (JPEG only), and each shot's sidecar says when it was due
/// (`timelapse.dueWallClockNanoseconds`), when the capture was triggered (`triggerWallClockNanoseconds`) and when its first frame's
/// exposure began (FrameWallClock). The reference, in the same run and on the same machine, is the
/// shell-script intervalometer: a loop that triggers and then sleeps for the interval, whose
/// trigger times are measured against the same due times (start + k × interval).
struct TimelapseBenchmark: Benchmark {
    static let name = "timelapse"
    static let summary = "time-lapse interval timing: |trigger - due| and first exposure - due, 30 shots at 1 s, real clock"

    let shots = 30
    let interval = 1.0

    func run() throws -> BenchmarkReport {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tripod").path
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-bench-timelapse-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let loadBefore = SimulatedRecordingRun.loadAverage()

        // The reference runs beside the supervisor, for the same span.
        let reference = LockedValue<[Double]>([])
        let shots = self.shots, interval = self.interval
        let referenceDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let start = Date()
            var errors: [Double] = []
            for k in 0..<shots {
                let due = start.addingTimeInterval(Double(k) * interval)
                errors.append(abs(Date().timeIntervalSince(due)) * 1000)
                usleep(UInt32(interval * 1e6))  // "capture; sleep 1": the sleep starts after the shot
                _ = (0..<20_000).reduce(0, &+)  // the script's own work between shots, a few µs
            }
            reference.withLock { $0 = errors }
            referenceDone.signal()
        }

        let sidecars = try runTripod(binary: binary, work: work)
        _ = referenceDone.wait(timeout: .now() + 120)
        let loadAfter = SimulatedRecordingRun.loadAverage()

        var trigger: [Double] = [], exposure: [Double] = []
        for sidecar in sidecars {
            guard let due = sidecar.timelapse?.dueTime, let triggered = sidecar.timelapse?.triggerWallClockNanoseconds else { continue }
            trigger.append(abs(Double(triggered) / 1e9 - due.timeIntervalSince1970) * 1000)
            if let wall = sidecar.frames.first?.wallClockNanoseconds {
                exposure.append((Double(wall) / 1e9 - due.timeIntervalSince1970) * 1000)
            }
        }
        guard trigger.count >= shots / 2 else {
            throw HardwareError(.notFound, "timelapse: only \(trigger.count) of \(shots) shots have a sidecar")
        }
        let referenceErrors = reference.current
        let p99 = percentile(trigger, 99), referenceP99 = percentile(referenceErrors, 99)
        func ms(_ v: Double) -> String { String(format: "%.2f", v) }
        return BenchmarkReport(
            columns: ["path", "shots", "p50 ms", "p99 ms", "max ms"],
            rows: [["tripod |trigger - due|", String(trigger.count), ms(percentile(trigger, 50)), ms(p99), ms(trigger.max() ?? .nan)],
                   ["tripod first exposure - due", String(exposure.count), ms(percentile(exposure, 50)), ms(percentile(exposure, 99)),
                    ms(exposure.max() ?? .nan)],
                   ["reference: trigger; sleep 1", String(referenceErrors.count), ms(percentile(referenceErrors, 50)), ms(referenceP99),
                    ms(referenceErrors.max() ?? .nan)]],
            notes: ["p99 |trigger - due|: tripod \(ms(p99)) ms vs the sleep loop's \(ms(referenceP99)) ms (ratio \(String(format: "%.3f", p99 / referenceP99)); lower is better)",
                    "first exposure - due includes the sensor's pipeline delay (requests queued, two frames of exposure delay) at the format's frame rate",
                    "the sleep loop drifts by its own work each interval; tripod computes each shot's time from the start",
                    String(format: "load average before %.2f, after %.2f (2 shared cores)", loadBefore, loadAfter)],
            metrics: ["trigger_p50_ms": percentile(trigger, 50), "trigger_p99_ms": p99,
                      "exposure_p50_ms": percentile(exposure, 50), "exposure_p99_ms": percentile(exposure, 99),
                      "reference_p99_ms": referenceP99, "ratio_p99_to_reference": p99 / referenceP99])
    }

    /// Runs the time-lapse on a `tripod run --board sim` through its stdio console; its sidecars.
    private func runTripod(binary: String, work: URL) throws -> [BracketSidecar] {
        let captures = work.appendingPathComponent("captures")
        let tripod = try SimulatedTripodProcess(binary: binary, directory: work, label: "timelapse")
        defer { if tripod.process.isRunning { tripod.quit() } }
        func send(_ line: String, waitFor prefix: String = "ok", timeout seconds: Double = 30) throws {
            try tripod.send(line, waitFor: prefix, timeout: seconds)
        }
        try send("status", timeout: 60)
        try send("set \(SettingsTable.captureFormat.key) jpeg")
        usleep(1_000_000)  // AE settles
        try send("timelapse start every \(Int(interval))s count \(shots)")
        try send("", waitFor: "event timelapse.stopped", timeout: Double(shots) * interval + 60)
        tripod.quit()
        var sidecars: [BracketSidecar] = []
        let fm = FileManager.default
        for folder in (try? fm.contentsOfDirectory(atPath: captures.path)) ?? [] where !folder.hasPrefix(".") {
            let path = captures.path + "/" + folder
            for name in (try? fm.contentsOfDirectory(atPath: path)) ?? [] where name.hasSuffix(".json") {
                if let data = fm.contents(atPath: path + "/" + name), let s = try? BracketSidecar.decode(Array(data)) { sidecars.append(s) }
            }
        }
        return sidecars
    }
}
