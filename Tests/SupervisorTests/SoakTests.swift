import Foundation
import Glibc
import Hardware
import Testing
import TestSupport
@testable import Supervisor

/// The environment variable that turns `soakChild` on: the file it writes its samples to.
private let soakResultVariable = "TRIPOD_TEST_SOAK_RESULT"

/// What the soak measured after each bracket, in the process that ran only the soak.
private struct SoakSamples: Codable {
    var completed = 0
    var failures: [String] = []
    var captureRunning = false
    var pending: [Int] = [], descriptors: [Int] = [], threads: [Int] = [], ours: [Int] = []
}

/// The short version of `tools/bench soak`: brackets back to back on the simulated board (camera
/// streaming, IMU running, shaking), every one completes, and what the loop holds, the open
/// descriptors and the threads stay flat. The brackets run in a child test process of their own
/// (`soakChild`), so the descriptors and threads counted are the soak's, not those of the suites
/// Swift Testing runs beside it.
@Suite(.serialized) struct SoakTests {
    /// Open descriptors of this process (/proc/self/fd, less the one listing it).
    static func openDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 1) - 1
    }

    /// Descriptors of this process open on files under `directory` (the board's captures and state).
    static func descriptors(under directory: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd))?.hasPrefix(directory) == true
        }.count
    }

    /// The process's threads (`Threads:` in /proc/self/status).
    static func threads() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
        return line.flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// The counters see this process: a file it opens, a thread it starts.
    @Test func theProcessCountersReadThisProcess() throws {
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/status"))
        defer { try? handle.close() }
        let listed = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        #expect(listed.contains(String(handle.fileDescriptor)) && Self.openDescriptors() >= 3)
        let release = DispatchSemaphore(value: 0), running = DispatchSemaphore(value: 0)
        let thread = Thread { running.signal(); release.wait() }
        thread.start()
        running.wait()
        #expect(Self.threads() >= 2, "the main thread and the one just started")
        release.signal()
    }

    /// The soak itself: 40 brackets on the simulated board, sampled after each one.
    private static func runSoak() throws -> SoakSamples {
        let board = try SimulatedBoardHarness()
        board.advance(.milliseconds(500))
        var samples = SoakSamples()
        for line in ["set capture.format jpeg", "sim motion handheld 2", "set stabilization.lens on"] {
            let reply = board.reply(line)
            if !reply.hasPrefix("ok") { samples.failures.append("\(line): \(reply)") }
        }
        for i in 0..<40 {
            let started = board.reply("bracket ev 3 1")
            if !started.hasPrefix("ok bracket=started") { samples.failures.append("bracket \(i + 1): \(started)") }
            var end: String?
            for _ in 0..<2000 where end == nil {
                board.advance(.milliseconds(10))
                end = board.output.lines.first { $0.hasPrefix("event bracket.done") || $0.hasPrefix("event bracket.failed") }
            }
            if end?.hasPrefix("event bracket.done") == true { samples.completed += 1 } else {
                samples.failures.append("bracket \(i + 1): \(end ?? "no end")")
            }
            board.advance(.milliseconds(50))
            samples.pending.append(board.loop.pendingWorkCount)
            samples.descriptors.append(Self.openDescriptors())
            samples.threads.append(Self.threads())
            samples.ours.append(Self.descriptors(under: board.directory.path))
            _ = board.output.take()
        }
        samples.captureRunning = board.supervisor.captureService.running != nil
        return samples
    }

    /// The child's side of `fortyBracketsInARowAllCompleteAndTheLoopStaysFlat` (skipped in a normal
    /// test run): runs the soak and writes its samples as JSON.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[soakResultVariable] != nil))
    func soakChild() throws {
        let path = try #require(ProcessInfo.processInfo.environment[soakResultVariable])
        try JSONEncoder().encode(try Self.runSoak()).write(to: URL(fileURLWithPath: path))
    }

    @Test func fortyBracketsInARowAllCompleteAndTheLoopStaysFlat() throws {
        let result = NSTemporaryDirectory() + "tripod-soak-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: result) }
        let child = try startTestChild(filter: "soakChild", setting: soakResultVariable, to: result)
        // A safety net, not a verdict on speed: a soak stuck for 10 minutes is killed and reported.
        _ = waitUntil(seconds: 600) { !child.isRunning }
        if child.isRunning {
            Glibc.kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            Issue.record("the soak did not finish within 10 minutes")
            return
        }
        #expect(child.terminationReason == .exit && child.terminationStatus == 0, "the soak's process: \(child.terminationStatus)")
        let samples = try JSONDecoder().decode(SoakSamples.self, from: Data(contentsOf: URL(fileURLWithPath: result)))
        #expect(samples.failures.isEmpty, "\(samples.failures)")
        #expect(samples.completed == 40)
        #expect(!samples.captureRunning)
        let (pending, descriptors, threads, ours) = (samples.pending, samples.descriptors, samples.threads, samples.ours)
        try #require(pending.count == 40 && descriptors.count == 40 && threads.count == 40 && ours.count == 40)
        // The loop's pending work after each bracket: no timer or handed-over work piles up.
        let early = pending.prefix(5).max() ?? 0, late = pending.suffix(5).max() ?? 0
        #expect(late <= early + 2, "pending work grew: \(pending)")
        // Descriptors and threads of the soak's own process: the fewest over the last 10 brackets
        // against the most over brackets 6-15 (after warm-up; the dispatch pool settles). A leak of
        // one per bracket grows by ~25; the slack is for the pools' own coming and going.
        let fdBase = descriptors[5..<15].max() ?? 0, fdEnd = descriptors.suffix(10).min() ?? 0
        #expect(fdEnd <= fdBase + 4, "open descriptors grew: \(descriptors)")
        let threadBase = threads[5..<15].max() ?? 0, threadEnd = threads.suffix(10).min() ?? 0
        #expect(threadEnd <= threadBase + 4, "threads grew: \(threads)")
        // The files the board itself has open (captures, state) do not pile up either.
        #expect((ours.suffix(10).min() ?? 0) <= (ours[5..<15].max() ?? 0), "descriptors on the board's files grew: \(ours)")
        print("SOAK fds \(descriptors.first ?? 0)->\(descriptors.last ?? 0), threads \(threads.first ?? 0)->\(threads.last ?? 0), "
              + "board files \(ours.max() ?? 0) at most")
    }
}
