import Dispatch
import Foundation
import Hardware
import LinuxHardware
import Logging
import SimulatedHardware
import Startup
import Supervisor
import Controls
import Settings
import Transports

/// Shutter lag through the real path, on the simulated board with the real clock: a supervisor
/// (`TripodMain.prepare`, as `tripod run --board sim` builds it) runs on a `PosixEventLoop` thread
/// with a prepared still stream; the driver presses the simulated shutter line 1000 times (edges
/// stamped with CLOCK_MONOTONIC on the driving thread, as the gpiod reader thread delivers them),
/// waits for each press's `bracket.done`, and reads the lag the capture service recorded for it:
/// press edge → first bracket request queued. The reference, fed by the same presses in the same
/// run, is a 10 ms polling loop (a typical shell-script GPIO poll); its end point is the moment it
/// sees the level go high.
struct ShutterBenchmark: Benchmark {
    static let name = "shutter"
    static let summary = "edge-to-first-request latency, 1000 presses, simulated board, real clock"

    let presses = 1000
    let hold = Duration.milliseconds(15)
    let gap = Duration.milliseconds(15)
    let pollInterval = Duration.milliseconds(10)
    /// The highest-fps format of the simulated IMX708, so each single capture ends in a few ms.
    let format = "1536x864@120"
    let pressTimeout = Duration.seconds(5)

    func run() throws -> BenchmarkReport {
        let began = monotonicNanoseconds()
        let loadBefore = loadAverage()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-bench-shutter-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let rig = ShutterRig()
        defer { rig.shutDown() }
        let line = try rig.startSupervisor(work: work, setup: ["set \(SettingsTable.captureFormat.key) jpeg", "format \(format)", "prepare"])
        let tap = rig.tap
        let referenceLags = LockedValue<[Double]>([])
        let lastPressEdge = LockedValue<Int64>(0)

        // Reference: a thread polling the level every 10 ms.
        let stop = LockedValue(false)
        let pollerDone = DispatchSemaphore(value: 0)
        let interval = pollInterval
        Thread.detachNewThread {
            var previous = false
            while !stop.current {
                let level = (try? line.read()) ?? false
                if level && !previous {
                    let seen = monotonicNanoseconds()
                    let edge = lastPressEdge.current
                    referenceLags.withLock { $0.append(Double(seen - edge) / 1e6) }
                }
                previous = level
                sleepFor(interval)
            }
            pollerDone.signal()
        }
        defer { stop.withLock { $0 = true }; pollerDone.wait() }

        // The driver: one press at a time, a jittered phase against the poll period, and the next
        // press only after the capture service has finished the previous bracket.
        var generator = SeededGenerator(seed: 7)
        var edges: [Int64] = []
        for index in 0..<presses {
            sleepFor(gap + .microseconds(Int64(generator.next() % 5_000)))
            let edge = rig.loop.now()
            lastPressEdge.withLock { $0 = edge.nanoseconds }
            edges.append(edge.nanoseconds)
            line.drive(true, at: edge)
            sleepFor(hold)
            line.drive(false, at: rig.loop.now())
            guard tap.bracketEnded.wait(timeout: .now() + .nanoseconds(Int(pressTimeout.nanoseconds))) == .success else {
                throw ShutterBenchError("press \(index + 1): no bracket.done or bracket.failed within \(pressTimeout); log: \(rig.warnings.current.suffix(3))")
            }
        }
        sleepFor(.milliseconds(30))  // the poller's last look
        let seconds = Double(monotonicNanoseconds() - began) / 1e9
        let loadAfter = loadAverage()
        let jpegFiles = countFiles(under: work.appendingPathComponent("captures"), extensions: ["jpg", "jpeg"])

        // Each outcome must carry the lag of its own press: the edge the capture service recorded is
        // the one the driver stamped, and the service counted exactly one lag per press.
        let outcomes = tap.outcomes.current
        var tripod: [Double] = []
        var mismatched = 0
        for (index, outcome) in outcomes.enumerated() {
            guard let lag = outcome.lag, index < edges.count, lag.edgeNanoseconds == edges[index],
                  outcome.lagCount == index + 1 else { mismatched += 1; continue }
            tripod.append(lag.milliseconds)
        }
        let failed = outcomes.filter(\.failed).count, queued = tap.queuedOrRejected.current
        let reference = referenceLags.current
        let tp50 = percentile(tripod, 50), tp99 = percentile(tripod, 99), tmax = tripod.max() ?? .nan
        let rp50 = percentile(reference, 50), rp99 = percentile(reference, 99), rmax = reference.max() ?? .nan
        func ms(_ v: Double) -> String { String(format: "%.3f", v) }
        func ratio(_ r: Double, _ t: Double) -> String { String(format: "%.1f×", r / t) }
        return BenchmarkReport(
            columns: ["path", "presses measured", "p50 ms", "p99 ms", "max ms"],
            rows: [
                ["tripod: edge → inbox → loop → debounce → gesture → capture service → first request queued",
                 "\(tripod.count)/\(presses)", ms(tp50), ms(tp99), ms(tmax)],
                ["reference: 10 ms polling loop sees the level (shell-script style)", "\(reference.count)/\(presses)",
                 ms(rp50), ms(rp99), ms(rmax)],
                ["ratio reference / tripod", "", ratio(rp50, tp50), ratio(rp99, tp99), ratio(rmax, tmax)],
            ],
            notes: [
                "real path: supervisor from TripodMain.prepare on board sim, PosixEventLoop on its own thread (CLOCK_MONOTONIC), "
                    + "button press → capture (single frame), \(SettingsTable.captureFormat.key) jpeg, format \(format) (highest fps), prepared still stream",
                "tripod lag = the capture service's ShutterLag: press edge timestamp → the bracket engine's first request queued; "
                    + "read after each bracket.done, checked to carry the press's own edge (\(mismatched) mismatched or missing)",
                "brackets: \(outcomes.count - failed) done, \(failed) failed, \(jpegFiles) JPEG files on disk; presses queued/rejected by the busy gate: \(queued) (each press waits for the previous bracket)",
                "simulated shutter line driven from the benchmark thread (like the gpiod reader thread), \(hold.nanoseconds / 1_000_000) ms hold, "
                    + "\(gap.nanoseconds / 1_000_000)+0-5 ms gap after each bracket ends, leading-edge debounce 10 ms",
                "reference end point = the poll that sees the level high (it queues nothing, so it flatters the reference); "
                    + "no process spawn per poll (a real gpioget loop adds that); both see the same presses in one run",
                "machine load: 2 shared cores running other builds; load average \(loadBefore) before, \(loadAfter) after; "
                    + "the tails (p99, max) are mostly scheduler delay under that load, not Tripod's work",
                String(format: "wall time %.1f s for %d presses", seconds, presses),
            ],
            metrics: ["tripod_p50_ms": tp50, "tripod_p99_ms": tp99, "tripod_max_ms": tmax,
                      "reference_p50_ms": rp50, "reference_p99_ms": rp99, "reference_max_ms": rmax,
                      "ratio_p50": rp50 / tp50, "ratio_p99": rp99 / tp99,
                      "presses_measured": Double(tripod.count), "brackets_failed": Double(failed), "wall_seconds": seconds])
    }

    /// Files under `directory` whose extension is one of `extensions` (the captures written).
    private func countFiles(under directory: URL, extensions: Set<String>) -> Int {
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return 0 }
        return files.compactMap { $0 as? URL }.filter { extensions.contains($0.pathExtension.lowercased()) }.count
    }

    /// The 1, 5 and 15 minute load averages from /proc/loadavg ("?" where unreadable).
    private func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// A supervisor on the simulated board, running on a real-clock loop thread, with a console client
/// that reports each bracket's end and the shutter lag recorded for it.
private final class ShutterRig: @unchecked Sendable {
    let loop = PosixEventLoop()
    let tap: BracketTap
    let warnings = LockedValue<[String]>([])
    /// Loop-confined after start.
    private var supervisor: Supervisor?
    private var flush: (() -> Void)?
    private let loopExited = DispatchSemaphore(value: 0)
    /// Signalled when the supervisor has stopped.
    private let supervisorStopped = DispatchSemaphore(value: 0)

    /// Starts the loop thread.
    init() {
        tap = BracketTap(loop: loop)
        let loop = self.loop, exited = loopExited
        Thread.detachNewThread {
            loop.run()
            exited.signal()
        }
    }

    /// Builds and starts the supervisor on the loop and runs `setup` on its console; returns the
    /// simulated shutter line.
    func startSupervisor(work: URL, setup: [String]) throws -> SimulatedInputLine {
        var arguments = RunArguments()
        arguments.board = "sim"
        arguments.captures = work.appendingPathComponent("captures").path
        arguments.state = work.appendingPathComponent("state").path
        arguments.socket = work.appendingPathComponent("control.sock").path
        let result = LockedValue<Result<SimulatedInputLine, ShutterBenchError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let warnings = self.warnings
        let log = Logger(withPriorityPrefix: false, minimum: .warning) { line in warnings.withLock { $0.append(line) } }
        loop.execute { [self, arguments] in
            result.withLock { $0 = Result { () throws(ShutterBenchError) in try self.start(arguments, log: log, setup: setup) } }
            ready.signal()
        }
        guard ready.wait(timeout: .now() + 30) == .success else { throw ShutterBenchError("the supervisor did not start within 30 s") }
        switch result.current {
        case .success(let line)?: return line
        case .failure(let error)?: throw error
        case nil: throw ShutterBenchError("the supervisor did not start")
        }
    }

    /// On the loop: builds and starts the supervisor, attaches the tap, runs the setup commands.
    private func start(_ arguments: RunArguments, log: Logger, setup: [String]) throws(ShutterBenchError) -> SimulatedInputLine {
        let prepared: TripodMain.PreparedRun
        let stopped = supervisorStopped
        do { prepared = try TripodMain.prepare(arguments, loop: loop, log: log, notifier: NullServiceNotifier()) { _ in stopped.signal() } }
        catch { throw ShutterBenchError("prepare: \(error.message)") }
        let supervisor = prepared.supervisor
        self.supervisor = supervisor
        flush = prepared.flush
        do { try supervisor.start() } catch { throw ShutterBenchError("start: \(error.message)") }
        guard let line = supervisor.devices.shutter as? SimulatedInputLine else {
            throw ShutterBenchError("board sim has no simulated shutter line")
        }
        tap.supervisor = supervisor
        let session = supervisor.attach(name: "bench", kind: .local, output: tap)
        for command in setup {
            tap.replies = []
            supervisor.run(line: command, from: session)
            guard let last = tap.replies.last, last.hasPrefix("ok") else {
                throw ShutterBenchError("\(command): \(tap.replies.joined(separator: " | "))")
            }
        }
        return line
    }

    /// Stops the supervisor (after the bracket in progress), then the loop and its thread.
    func shutDown() {
        let stopped = supervisorStopped
        loop.execute { [self] in
            guard let supervisor else { stopped.signal(); return }
            supervisor.requestStop(reason: "benchmark done")
        }
        _ = stopped.wait(timeout: .now() + 10)
        let flushed = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            flush?()
            flush = nil
            supervisor = nil
            tap.supervisor = nil
            flushed.signal()
        }
        _ = flushed.wait(timeout: .now() + 5)
        loop.stop()
        _ = loopExited.wait(timeout: .now() + 5)
    }
}

/// The benchmark's console client. `write` runs on the loop: on each bracket's end it records the
/// capture service's newest lag and lag count, then signals the driver once the loop has finished
/// the current work (so the capture service is idle again when the next press arrives).
private final class BracketTap: ConsoleOutput, @unchecked Sendable {
    struct Outcome: Sendable {
        var failed: Bool
        var lag: ShutterLag?
        var lagCount: Int
    }

    let loop: any EventLoop
    /// Loop-confined.
    var supervisor: Supervisor?
    /// Replies to the setup commands (loop-confined).
    var replies: [String] = []
    let outcomes = LockedValue<[Outcome]>([])
    let queuedOrRejected = LockedValue(0)
    let bracketEnded = DispatchSemaphore(value: 0)

    init(loop: any EventLoop) { self.loop = loop }

    func write(lines: [String]) {
        for line in lines {
            if line.hasPrefix("event bracket.done ") || line.hasPrefix("event bracket.failed ") {
                let lags = supervisor?.shutterLags
                let outcome = Outcome(failed: line.hasPrefix("event bracket.failed "), lag: lags?.last, lagCount: lags?.count ?? 0)
                outcomes.withLock { $0.append(outcome) }
                let ended = bracketEnded
                loop.execute { ended.signal() }
            } else if line.hasPrefix("event button.queued ") || line.hasPrefix("event button.rejected ") {
                queuedOrRejected.withLock { $0 += 1 }
            } else if !line.hasPrefix("event ") {
                replies.append(line)
            }
        }
    }

    func close() {}
}

private struct ShutterBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

private func sleepFor(_ duration: Duration) {
    var request = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.nanoseconds % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
