import Foundation
import Hardware
import Syscalls
import Testing
@testable import Supervisor
@testable import Settings
@testable import Recording
@testable import Controls
@testable import Capture

/// The short version of `tools/bench soak`: brackets back to back on the simulated board (camera
/// streaming, IMU running, shaking), every one completes, and what the loop holds, the open
/// descriptors and the threads stay flat.
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

    @Test func fortyBracketsInARowAllCompleteAndTheLoopStaysFlat() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.milliseconds(500))
        #expect(board.reply("set capture.format jpeg") == "ok capture.format=jpeg")
        #expect(board.reply("sim motion handheld 2").hasPrefix("ok"))
        #expect(board.reply("set stabilization.lens on") == "ok stabilization.lens=on")
        var completed = 0
        var pending: [Int] = []
        var descriptors: [Int] = [], threads: [Int] = [], ours: [Int] = []
        for i in 0..<40 {
            #expect(board.reply("bracket ev 3 1").hasPrefix("ok bracket=started"))
            var end: String?
            for _ in 0..<2000 where end == nil {
                board.advance(.milliseconds(10))
                end = board.output.lines.first { $0.hasPrefix("event bracket.done") || $0.hasPrefix("event bracket.failed") }
            }
            if end?.hasPrefix("event bracket.done") == true { completed += 1 } else { Issue.record("bracket \(i + 1): \(end ?? "no end")") }
            board.advance(.milliseconds(50))
            pending.append(board.loop.pendingWorkCount)
            descriptors.append(Self.openDescriptors())
            threads.append(Self.threads())
            ours.append(Self.descriptors(under: board.directory.path))
            _ = board.output.take()
        }
        #expect(completed == 40)
        #expect(board.supervisor.captureService?.running == nil)
        // The loop's pending work after each bracket: no timer or handed-over work piles up.
        let early = pending.prefix(5).max() ?? 0, late = pending.suffix(5).max() ?? 0
        #expect(late <= early + 2, "pending work grew: \(pending)")
        // Descriptors and threads: the fewest over the last 10 brackets against the most over
        // brackets 6-15 (after warm-up; the dispatch pool settles), so other tests running beside
        // this one raise the baseline, not the end. A leak of one per bracket grows by ~25.
        let fdBase = descriptors[5..<15].max() ?? 0, fdEnd = descriptors.suffix(10).min() ?? 0
        #expect(fdEnd <= fdBase + 4, "open descriptors grew: \(descriptors)")
        let threadBase = threads[5..<15].max() ?? 0, threadEnd = threads.suffix(10).min() ?? 0
        // Threads get more slack: suites beside this one start encoders and supervisors with
        // threads of their own at any time (one run saw 49 → 53 that way); a leak of one per
        // bracket would still be +25.
        #expect(threadEnd <= threadBase + 10, "threads grew: \(threads)")
        // The files the board itself has open (captures, state) do not pile up either.
        #expect((ours.suffix(10).min() ?? 0) <= (ours[5..<15].max() ?? 0), "descriptors on the board's files grew: \(ours)")
        print("SOAK fds \(descriptors.first ?? 0)->\(descriptors.last ?? 0), threads \(threads.first ?? 0)->\(threads.last ?? 0), "
              + "board files \(ours.max() ?? 0) at most")
    }
}
