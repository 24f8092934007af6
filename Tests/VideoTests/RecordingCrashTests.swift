import Foundation
import Glibc
import Hardware
import LinuxHardware
import ManualLoop
import SimulatedHardware
import Testing
import TestSupport
@testable import Video

/// The environment variable that turns `recorderChild` on: the directory it records into.
private let recorderDirectoryVariable = "TRIPOD_VIDEO_CRASH_DIRECTORY"

/// `kill -9` of a real process in the middle of a recording leaves a fragmented MP4 that plays up
/// to its last fragment, with the sensor's timestamps.
@Suite struct RecordingCrashTests {
    /// Frame i's SensorTimestamp in the child.
    static func time(_ i: Int) -> MonotonicTime { MonotonicTime(nanoseconds: 3_000_000_000 + Int64(i) * 33_333_333) }

    /// The child side: records synthetic frames until killed. Runs only in the child process that
    /// `killNineMidRecordingLeavesAPlayableFragmentedMP4` starts.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[recorderDirectoryVariable] != nil))
    func recorderChild() throws {
        let directory = try #require(ProcessInfo.processInfo.environment[recorderDirectoryVariable])
        let service = RecordingService(storage: try PosixStorage(root: directory), loop: ManualEventLoop()) { _ in }
        try service.configure(VideoSettings())
        try service.start(RecordingRequest(id: "CRASH", folder: "d"))
        var i = 0
        while true {  // until SIGKILL
            service.submit(try makeFrame(UInt64(i), at: Self.time(i)))
            service.drain()
            i += 1
        }
    }

    @Test func killNineMidRecordingLeavesAPlayableFragmentedMP4() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let child = try startTestChild(filter: "recorderChild", setting: recorderDirectoryVariable, to: directory)

        // Wait (short polls, 60 s at most) until several fragments are on disk, then kill.
        let file = directory + "/d/CRASH.mp4"
        func size() -> Int { (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0 }
        _ = waitUntil { size() >= 400_000 }
        Glibc.kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL)
        #expect(size() >= 400_000)

        let read = try probe(file)
        #expect(read.codec == "h264" && read.width == 320)
        // Every fragment on disk reads back (a kill inside a fragment's write may tear the last).
        #expect(read.framePTS.count >= 60)
        #expect(read.framePTS == (0..<read.framePTS.count).map { (Self.time($0) - Self.time(0)).nanoseconds / 1000 })
        // No sidecar: the process never got to stop.
        #expect(!FileManager.default.fileExists(atPath: directory + "/d/CRASH.json"))
    }
}
