import Foundation
import Hardware
import Testing
import TestSupport
import Video

/// A real `tripod run` on the simulated board recording on its real clock while this process
/// keeps every core busy: however many frames the load costs, the file's PTS steps are whole
/// frame durations and the recording reports exactly the frames missing from its sequence.
/// The verdict is the invariant, never a count, so it holds at any load.
@Suite(.serialized) struct LoadedRecordingCadenceTests {
    /// Threads spinning until `stop` (two per core).
    final class CPUHogs: @unchecked Sendable {
        private let running = LockedValue(true)
        private var threads: [Thread] = []

        init() {
            for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount) {
                let thread = Thread { [running] in
                    var x: UInt64 = 1
                    while running.withLock({ $0 }) {
                        for _ in 0..<100_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                    }
                    if x == 0 { print("") }  // keeps the loop
                }
                thread.start()
                threads.append(thread)
            }
        }

        func stop() { running.withLock { $0 = false } }
    }

    /// The child process, for the watchdog's thread.
    struct Child: @unchecked Sendable {
        let process: Process
        func endIfRunning() { if process.isRunning { process.terminate() } }
    }

    static func tripodBinary() throws -> String {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("tripod").path,
                          here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/tripod").path]
        guard let tripod = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw HardwareError(.notFound, "no tripod executable at \(candidates); swift build --build-tests builds it")
        }
        return tripod
    }

    @Test func aRecordingUnderLoadReportsEveryLostFrameAndKeepsWholeFrameSteps() throws {
        let work = NSTemporaryDirectory() + "tripod-loaded-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.tripodBinary())
        process.arguments = ["run", "--board", "sim", "--console", "stdio", "--captures", work + "/captures",
                             "--state", work + "/state", "--socket", work + "/ctl.sock"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        let lines = ConsoleLines()
        let reader = Thread { [handle = output.fileHandleForReading] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lines.append(data)
            }
        }
        reader.start()
        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }
        /// The first line from `mark` on with `prefix`, waiting up to `seconds`.
        func line(from mark: Int, _ prefix: String, seconds: Double = 120) -> String? {
            var found: String?
            _ = waitUntil(seconds: seconds, every: .milliseconds(50)) {
                found = lines.since(mark).first { $0.hasPrefix(prefix) }
                return found != nil
            }
            return found
        }

        send("format 1280x720@30")
        send("sim motion handheld 5")
        _ = line(from: 0, "ok motion")
        let hogs = CPUHogs()
        defer { hogs.stop() }
        send("record start")
        _ = line(from: 0, "ok recording")
        // Until the file has frames, however slowly the loaded machine writes them.
        _ = waitUntil(seconds: 120, every: .milliseconds(500)) {
            let mark = lines.count
            send("status")
            let status = line(from: mark, "ok state") ?? ""
            guard let frames = status.split(separator: " ").first(where: { $0.hasPrefix("recording.frames=") }),
                  let count = Int(frames.dropFirst("recording.frames=".count)) else { return false }
            return count >= 20
        }
        let mark = lines.count
        send("record stop")
        let stopped = try #require(line(from: mark, "event record.stopped"), "\(lines.since(0))")
        hogs.stop()
        send("quit")
        let child = Child(process: process)
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { child.endIfRunning() }  // never hang the suite
        process.waitUntilExit()
        let transcript = lines.since(0).joined(separator: "\n")

        let files = (try? FileManager.default.subpathsOfDirectory(atPath: work + "/captures")) ?? []
        let folder = try #require(files.first { $0.hasSuffix(".json") && $0.contains("VID_") }, "\(files) \(transcript)")
        let sidecar = try JSONDecoder().decode(VideoSidecar.self, from: Data(contentsOf: URL(fileURLWithPath: work + "/captures/" + folder)))
        let timecodes = try String(contentsOfFile: work + "/captures/" + folder.replacingOccurrences(of: ".json", with: ".timecodes.txt"),
                                   encoding: .utf8)
        let pts = timecodes.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { Double($0) }.map { Int64(($0 * 1000).rounded()) }  // µs
        try #require(pts.count >= 2, "\(stopped)")
        let steps = zip(pts, pts.dropFirst()).map { $1 - $0 }
        // Each step is a whole number of the mode's frame durations (1/30 s): a loaded machine may
        // write no two neighbouring frames at all, so the unit is the mode's, not the smallest step.
        let frame: Double = 1e6 / sidecar.format.captureFramesPerSecond
        #expect(abs(frame - 1e6 / 30) < 1, "the recording's mode is \(sidecar.format.captureFramesPerSecond) fps")
        let frameSteps = steps.map { Int((Double($0) / frame).rounded()) }
        let offWhole = zip(steps, frameSteps).filter { step, count in count < 1 || abs(Double(step) - Double(count) * frame) >= frame / 100 }
        #expect(offWhole.isEmpty, "steps that are not whole frame durations (µs, frames): \(offWhole)")
        let skippedInFile = frameSteps.map { $0 - 1 }.reduce(0, +)
        // Frames the encoder's queue dropped after the last frame it wrote (it was full when the
        // recording stopped) are lost too, but no gap in the file shows them: they lie past its last
        // sequence. The span runs over every frame the recording saw, written or dropped.
        let droppedSequences = sidecar.droppedFrames.map(\.sequence)
        let first = min(sidecar.firstSequence, droppedSequences.min() ?? sidecar.firstSequence)
        let last = max(sidecar.lastSequence, droppedSequences.max() ?? sidecar.lastSequence)
        let span = Int(last - first) + 1
        let insideFile = droppedSequences.filter { $0 > sidecar.firstSequence && $0 < sidecar.lastSequence }.count
        print("under load: \(sidecar.framesWritten) of \(span) frames written, \(sidecar.droppedFrames.count) dropped (\(insideFile) inside the file)")
        #expect(sidecar.framesWritten == pts.count)
        #expect(Set(droppedSequences).count == droppedSequences.count, "a frame is listed as dropped twice")
        #expect(sidecar.droppedFrames.count == span - sidecar.framesWritten)
        #expect(insideFile == skippedInFile)
        #expect(stopped.contains("frames=\(sidecar.framesWritten) ") && stopped.contains("dropped=\(sidecar.droppedFrames.count) "))
    }
}
