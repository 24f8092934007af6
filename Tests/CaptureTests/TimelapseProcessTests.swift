import Foundation
import Media
import Testing
import TestSupport

/// A time-lapse in a real `tripod run` killed with `kill -9`, then started again on the same state
/// and captures: it resumes by itself, and no shot number is used twice. Real time; every wait has
/// a generous deadline that is a safety net, not a verdict on speed.
@Suite(.serialized) struct TimelapseProcessTests {
    /// The time-lapse shot numbers of the sidecars on disk.
    static func shotNumbers(_ captures: String) -> [Int] {
        let fm = FileManager.default
        var numbers: [Int] = []
        for folder in (try? fm.contentsOfDirectory(atPath: captures)) ?? [] where !folder.hasPrefix(".") {
            for name in (try? fm.contentsOfDirectory(atPath: captures + "/" + folder)) ?? [] where name.hasSuffix(".json") {
                if let data = fm.contents(atPath: captures + "/" + folder + "/" + name),
                   let shot = (try? BracketSidecar.decode(Array(data)))?.timelapse?.shot { numbers.append(shot) }
            }
        }
        return numbers.sorted()
    }

    static func taken(_ tripod: RunningTripod) -> Int {
        Int(SimulatedBoardHarness.field("taken", in: tripod.ask("timelapse status") ?? "") ?? "") ?? -1
    }

    @Test func aTimelapseKilledWithKillNineResumesWithItsNumberingIntact() throws {
        let first = try RunningTripod()
        let work = first.work
        defer { try? FileManager.default.removeItem(atPath: work) }
        #expect(first.ask("set capture.format jpeg")?.hasPrefix("ok") == true)
        #expect(first.waitForFrames(), "the camera never streamed")
        let started = first.ask("timelapse start every 1s") ?? "none"
        #expect(started.hasPrefix("ok timelapse=started"), "\(started)")
        _ = waitUntil(seconds: 120, every: .milliseconds(200)) { Self.taken(first) >= 3 }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let before = Self.shotNumbers(first.captures)
        #expect(before.count >= 3, "\(before)")
        #expect(FileManager.default.fileExists(atPath: first.state + "/timelapse.json"))

        let second = try RunningTripod(work: work)
        var status = ""
        _ = waitUntil(seconds: 120, every: .milliseconds(200)) {
            status = second.ask("timelapse status") ?? ""
            return Self.shotNumbers(second.captures).count >= before.count + 2
        }
        #expect(status.hasPrefix("ok timelapse=running"), "resumed by itself: \(status)")
        let after = Self.shotNumbers(second.captures)
        #expect(after.count >= before.count + 2, "\(after)")
        #expect(Set(after).count == after.count, "no shot number twice: \(after)")
        #expect(Array(after.prefix(before.count)) == before, "the shots before the kill keep their numbers")
        let resumed = after.dropFirst(before.count)
        #expect(resumed.allSatisfy { $0 > (before.last ?? 0) }, "numbers go on after the restart: \(after)")
        _ = second.ask("timelapse stop")
    }
}
