import Boards
import Foundation
import Hardware
import ManualLoop
import Settings
import SimulatedHardware
import Startup
import Supervisor
import TestSupport
import Transports

/// Many brackets on the simulated board, in process: the camera streaming, the IMU running and the
/// viewfinder on (a display that converts and counts every frame it is shown), on the manual
/// clock, with real files written by the capture store. Reports resident memory, open file
/// descriptors and threads at the start (after a warm-up) and the end, and the brackets completed
/// against those asked for. `TRIPOD_SOAK_BRACKETS` sets the count (default 10,000).
struct SoakBenchmark: Benchmark {
    static let name = "soak"
    static let summary = "10,000 brackets on the simulated board (camera, IMU, viewfinder on): RSS, fds, threads, completed"

    func run() throws -> BenchmarkReport {
        let asked = Int(ProcessInfo.processInfo.environment["TRIPOD_SOAK_BRACKETS"] ?? "") ?? 10_000
        // Frames rendered at 320x180, as in the recording soak: the soak is about the process
        // (memory, descriptors, threads, completion), not the pixels.
        let soak = try SoakRun(renderSize: PixelSize(width: 320, height: 180))
        defer { soak.finish() }
        let warmUp = 20
        for _ in 0..<warmUp { _ = soak.bracket() }
        soak.clearCaptures()
        let start = ProcessFigures.now()
        let began = monotonicNanoseconds()
        // Beside the process figures, the simulated time and the LED's kept changes (both grow with
        // the brackets; the LED's record is bounded), to tell the firmware's memory from the rig's.
        var samples: [(Int, ProcessFigures, Double, Int)] = [(0, start, soak.simulatedSeconds, soak.ledChangesKept)]
        var completed = 0, failures: [String: Int] = [:]
        for i in 1...asked {
            switch soak.bracket() {
            case .none: completed += 1
            case .some(let reason): failures[reason, default: 0] += 1
            }
            if i % 100 == 0 { soak.clearCaptures() }
            if i % max(asked / 10, 1) == 0 { samples.append((i, ProcessFigures.now(), soak.simulatedSeconds, soak.ledChangesKept)) }
        }
        let seconds = Double(monotonicNanoseconds() - began) / 1e9
        let end = samples.last?.1 ?? ProcessFigures.now()
        var rows = samples.map { n, f, simulated, led in
            ["after \(n) brackets", String(format: "%.1f", f.residentMegabytes), "\(f.descriptors)", "\(f.threads)",
             String(format: "%.0f", simulated), "\(led)"]
        }
        rows.append(["end / start", String(format: "%.3f", end.residentMegabytes / start.residentMegabytes),
                     String(format: "%.3f", Double(end.descriptors) / Double(start.descriptors)),
                     String(format: "%.3f", Double(end.threads) / Double(start.threads)), "", ""])
        var notes = ["brackets asked \(asked), completed \(completed), failed \(asked - completed) (after \(warmUp) warm-up brackets)",
                     String(format: "wall time %.1f s (%.1f ms per bracket); simulated time %.0f s; viewfinder frames shown %d",
                            seconds, seconds * 1000 / Double(asked), soak.simulatedSeconds, soak.displayedFrames),
                     "each bracket: `bracket ev 3 1`, \(SettingsTable.captureFormat.key) jpeg, format 0 (1280x720@120 still stream, rendered at 320x180);",
                     "  the captures folder is emptied every 100 brackets (disk), the supervisor is not told",
                     "reference: the start figures (end / start = 1.000 is flat)"]
        for (reason, count) in failures.sorted(by: { $0.value > $1.value }) { notes.append("failed \(count)×: \(reason)") }
        return BenchmarkReport(
            columns: ["when", "RSS MB", "fds", "threads", "simulated s", "LED changes kept"], rows: rows, notes: notes,
            metrics: ["asked": Double(asked), "completed": Double(completed),
                      "rss_start_mb": start.residentMegabytes, "rss_end_mb": end.residentMegabytes,
                      "fds_start": Double(start.descriptors), "fds_end": Double(end.descriptors),
                      "threads_start": Double(start.threads), "threads_end": Double(end.threads),
                      "ms_per_bracket": seconds * 1000 / Double(asked)])
    }
}

/// The process's resident memory, open descriptors and threads (from /proc/self).
struct ProcessFigures {
    var residentMegabytes: Double
    var descriptors: Int
    var threads: Int

    static func now() -> ProcessFigures {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.map(String.init) ?? "") ?? 0
        }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        return ProcessFigures(residentMegabytes: field("VmRSS") / 1024, descriptors: fds, threads: Int(field("Threads")))
    }
}

/// A display that takes every frame (converted to XRGB8888 by the viewfinder thread) and counts it.
final class CountingDisplay: DisplayDevice, @unchecked Sendable {
    let frames = LockedValue(0)
    var name: String { "soak 320x240" }
    var size: PixelSize? { PixelSize(width: 320, height: 240) }
    func present(xrgb8888 pixels: [UInt32], size: PixelSize) throws { frames.withLock { $0 += 1 } }
}

/// The simulated board's supervisor with a console, on the manual clock.
final class SoakRun {
    let loop = ManualEventLoop()
    let directory: URL
    let supervisor: Supervisor
    let session: ConsoleSession
    let output = RecordingConsoleOutput()
    let display = CountingDisplay()
    private let began: MonotonicTime

    /// The simulated camera renders frames at most `renderSize`.
    init(renderSize: PixelSize) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-soak-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let display = self.display
        supervisor = try startSimulatedSupervisor(on: loop, renderSize: renderSize,
                                                  capturesDirectory: directory.appendingPathComponent("captures").path) {
            $0.display = display
        }
        let output = self.output
        session = loop.perform { [supervisor] in supervisor.attach(name: "soak", kind: .local, output: output) }
        began = loop.now()
        loop.advance(by: .milliseconds(500))
        for line in ["set \(SettingsTable.captureFormat.key) jpeg", "sim motion handheld 2", "set \(SettingsTable.displayZebra.key) on"] { _ = send(line) }
    }

    var simulatedSeconds: Double { (loop.now() - began).secondsValue }
    var displayedFrames: Int { display.frames.current }
    /// The simulated LED's record of level changes (bounded: `SimulatedLED.historyLimit`).
    var ledChangesKept: Int { (supervisor.devices.led as? SimulatedLED)?.history.count ?? 0 }

    func send(_ line: String) -> [String] {
        loop.perform { supervisor.run(line: line, from: session) }
        return output.take()
    }

    /// One `bracket ev 3 1` to its end: nil when done, else why it failed. The simulated clock
    /// runs up to 20 s (the frames take a few ms of it; under handheld motion a step may wait for
    /// a calm moment); then the clock stops and the bench waits, in real time, for the capture
    /// store's thread to finish writing (up to 2 minutes), so a loaded machine slows the bench but
    /// never fails a bracket. A bracket still running after that gets simulated time until it ends
    /// (its own time limit), so the next one is not refused as busy.
    func bracket() -> String? {
        var lines = send("bracket ev 3 1")
        if let refused = lines.first(where: { $0.hasPrefix("err") }) { return refused }
        func end() -> String?? {
            if lines.contains(where: { $0.hasPrefix("event bracket.done") }) { return .some(nil) }
            if let failed = lines.first(where: { $0.hasPrefix("event bracket.failed") }) { return .some(Self.reason(failed)) }
            return nil
        }
        for _ in 0..<4000 {
            if let outcome = end() { return outcome }
            loop.advance(by: .milliseconds(5))
            lines += output.take()
        }
        let deadline = monotonicNanoseconds() + 120_000_000_000
        while monotonicNanoseconds() < deadline {
            if let outcome = end() { return outcome }
            usleep(1_000)
            loop.run()
            lines += output.take()
        }
        for _ in 0..<12_000 {
            if let outcome = end() { return "not done within 20 s of simulated time and 2 minutes of writing; then \(outcome ?? "done")" }
            loop.advance(by: .milliseconds(5))
            lines += output.take()
        }
        return "no bracket.done or bracket.failed within 80 s of simulated time"
    }

    private static func reason(_ line: String) -> String {
        guard let r = line.range(of: "reason=") else { return line }
        return String(line[r.upperBound...].prefix(120))
    }

    /// Empties the dated capture folders (their files only).
    func clearCaptures() {
        let root = directory.appendingPathComponent("captures").path
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where !folder.hasPrefix(".") {
            let path = root + "/" + folder
            for file in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                try? FileManager.default.removeItem(atPath: path + "/" + file)
            }
        }
    }

    func finish() {
        loop.perform { supervisor.requestStop(reason: "soak done") }
        loop.advance(by: .seconds(1))
        try? FileManager.default.removeItem(at: directory)
    }
}
