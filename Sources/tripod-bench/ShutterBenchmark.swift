import Dispatch
import Foundation
import Hardware
import SimulatedHardware
import Supervisor

/// Shutter lag on the simulated board with the real clock: a driver thread presses the simulated
/// shutter line 1000 times (as the gpiod reader thread would deliver edges, stamped with
/// CLOCK_MONOTONIC); Tripod's path is edge → bounded inbox → event loop → debounce → gesture →
/// action dispatched into a stub capture entry that records the time. The reference, fed by the same
/// presses in the same run, is a 10 ms polling loop (a typical shell-script GPIO poll) that
/// dispatches when it sees the level go high.
struct ShutterBenchmark: Benchmark {
    static let name = "shutter"
    static let summary = "edge-to-dispatch latency, 1000 presses, simulated board, real clock"

    let presses = 1000
    let hold = Duration.milliseconds(15)
    let gap = Duration.milliseconds(15)
    let pollInterval = Duration.milliseconds(10)

    func run() throws -> BenchmarkReport {
        let loop = QueueEventLoop()
        let line = SimulatedInputLine(address: GPIOLineAddress(name: "SHUTTER"))
        let tripodLags = LockedValue<[Double]>([])
        let referenceLags = LockedValue<[Double]>([])
        let lastPressEdge = LockedValue<Int64>(0)

        // Tripod: the controller on a real-clock loop; the stub capture entry records the time.
        let ready = DispatchSemaphore(value: 0)
        let holder = LockedValue<ButtonControllerBox?>(nil)
        loop.execute {
            let box = ButtonControllerBox()
            let controller = ButtonController(configuration: ButtonConfiguration(), loop: loop, shutter: line) { output in
                guard case .perform(let command) = output else { return }
                let dispatched = monotonicNanoseconds()  // the stub capture entry point
                tripodLags.withLock { $0.append(Double(dispatched - command.edgeTimestamp.nanoseconds) / 1e6) }
                box.controller?.captureDidFinish()       // the stub capture completes at once
            }
            box.controller = controller
            controller.start()
            holder.withLock { $0 = box }
            ready.signal()
        }
        ready.wait()

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

        // The driver: presses with a jittered phase against the poll period.
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<presses {
            sleepFor(gap + .microseconds(Int64(generator.next() % 5_000)))
            let edge = monotonicNanoseconds()
            lastPressEdge.withLock { $0 = edge }
            line.drive(true, at: MonotonicTime(nanoseconds: edge))
            sleepFor(hold)
            line.drive(false, at: MonotonicTime(nanoseconds: monotonicNanoseconds()))
        }
        sleepFor(.milliseconds(50))
        stop.withLock { $0 = true }
        pollerDone.wait()
        let drained = DispatchSemaphore(value: 0)
        loop.execute { drained.signal() }
        drained.wait()

        let tripod = tripodLags.current, reference = referenceLags.current
        let tp50 = percentile(tripod, 50), tp99 = percentile(tripod, 99)
        let rp50 = percentile(reference, 50), rp99 = percentile(reference, 99)
        func ms(_ v: Double) -> String { String(format: "%.3f", v) }
        return BenchmarkReport(
            columns: ["path", "presses seen", "p50 ms", "p99 ms", "max ms"],
            rows: [
                ["tripod: edge → debounce → gesture → stub capture entry", "\(tripod.count)/\(presses)",
                 ms(tp50), ms(tp99), ms(tripod.max() ?? .nan)],
                ["reference: 10 ms polling loop (shell-script style)", "\(reference.count)/\(presses)",
                 ms(rp50), ms(rp99), ms(reference.max() ?? .nan)],
                ["ratio reference / tripod", "", String(format: "%.0f×", rp50 / tp50), String(format: "%.0f×", rp99 / tp99), ""],
            ],
            notes: [
                "the bracket queue is NOT wired yet: Tripod's time stops when the action reaches a stub capture entry point, not at the first request queued",
                "simulated shutter line driven from a thread (like the gpiod reader thread), CLOCK_MONOTONIC edge stamps, \(hold.nanoseconds / 1_000_000) ms hold, \(gap.nanoseconds / 1_000_000)+0-5 ms gap, leading-edge debounce 10 ms; a press the poller never sees is missing from its count",
                "the reference does no process spawn per poll (a real gpioget loop would add that); both paths see the same presses in one run",
            ],
            metrics: ["tripod_p50_ms": tp50, "tripod_p99_ms": tp99, "reference_p50_ms": rp50, "reference_p99_ms": rp99,
                      "ratio_p50": rp50 / tp50, "ratio_p99": rp99 / tp99])
    }
}

/// Holds the controller so its own output closure can reach it (loop-confined use only).
private final class ButtonControllerBox: @unchecked Sendable {
    var controller: ButtonController?
}

/// A real-clock EventLoop on a serial dispatch queue (CLOCK_MONOTONIC), for this benchmark.
private final class QueueEventLoop: EventLoop, @unchecked Sendable {
    private let queue = DispatchQueue(label: "tripod.bench.shutter-loop")
    private let key = DispatchSpecificKey<UInt8>()

    init() { queue.setSpecific(key: key, value: 1) }

    func now() -> MonotonicTime { MonotonicTime(nanoseconds: monotonicNanoseconds()) }
    var inEventLoop: Bool { DispatchQueue.getSpecific(key: key) != nil }
    func execute(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    @discardableResult
    func schedule(at deadline: MonotonicTime, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let handle = ScheduledWork()
        let delay = max(0, (deadline - now()).nanoseconds)
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) { if !handle.isCancelled { work() } }
        return handle
    }
}

private func sleepFor(_ duration: Duration) {
    var request = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.nanoseconds % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

