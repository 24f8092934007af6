import Console
import Foundation
import TestSupport
import Testing
@testable import Fleet
@testable import FleetConsole

/// The shot's words, the sender's collection and report, and the group's topics (no broker).
@Suite struct FleetShotUnitTests {
    let now = FleetCommandMessage.parseTime("2026-05-01T10:00:00.000Z")!
    let utc = TimeZone(identifier: "UTC")!

    @Test func durationsAndTimesOfDay() {
        #expect(ShotRequest.duration("2s") == 2)
        #expect(ShotRequest.duration("1.5s") == 1.5)
        #expect(ShotRequest.duration("800ms") == 0.8)
        for bad in ["2", "-1s", "s", "abcs", "2 s", "nanms"] { #expect(ShotRequest.duration(bad) == nil, "\(bad)") }
        #expect(ShotRequest.timeToday("12:00:05.250", now: now, timeZone: utc) == FleetCommandMessage.parseTime("2026-05-01T12:00:05.250Z"))
        #expect(ShotRequest.timeToday("09:30:00", now: now, timeZone: utc) == FleetCommandMessage.parseTime("2026-05-01T09:30:00.000Z"))
        let paris = TimeZone(identifier: "Europe/Paris")!  // UTC+2 in May
        #expect(ShotRequest.timeToday("12:00:05", now: now, timeZone: paris) == FleetCommandMessage.parseTime("2026-05-01T10:00:05.000Z"))
        for bad in ["25:00:00", "12:00", "12:60:00", "12:00:05.2500", "1:00:00", "12:00:05.", "12:00:xx"] {
            #expect(ShotRequest.timeToday(bad, now: now, timeZone: utc) == nil, "\(bad)")
        }
    }

    @Test func aShotsWordsAreCheckedAndBadInstantsRefusedInWords() throws {
        let shot = try ShotRequest.parse(["in", "2s", "bracket", "ev", "3", "1"], now: now, timeZone: utc)
        #expect(shot.instant == now.addingTimeInterval(2))
        #expect(shot.action == ["bracket", "ev", "3", "1"])
        let at = try ShotRequest.parse(["at", "10:00:01.500", "capture"], now: now, timeZone: utc)
        #expect(at.instant == now.addingTimeInterval(1.5))
        func refusal(_ words: [String]) -> ConsoleError? {
            do throws(ConsoleError) { _ = try ShotRequest.parse(words, now: now, timeZone: utc); return nil } catch { return error }
        }
        let past = try #require(refusal(["at", "09:59:59", "capture"]))
        #expect(past.code == .outOfRange && past.message.contains("in the past") && past.message.contains("the earliest that would work is 2026-05-01T10:00:00.500Z"), "\(past.message)")
        let soon = try #require(refusal(["in", "200ms", "capture"]))
        #expect(soon.code == .outOfRange && soon.message.contains("too soon"), "\(soon.message)")
        #expect(refusal(["in", "3601s", "capture"])?.code == .outOfRange)
        #expect(refusal(["in", "2s"])?.code == .usage)
        #expect(refusal(["soon", "2s", "capture"])?.code == .usage)
        #expect(refusal(["in", "2x", "capture"])?.code == .badValue)
        #expect(refusal(["at", "noon", "capture"])?.code == .badValue)
        #expect(refusal(["in", "2s", "capture", "now"])?.code == .usage)
        #expect(refusal(["in", "2s", "bracket"])?.code == .usage)
        #expect(refusal(["in", "2s", "record", "start"]) == nil)
        #expect(refusal(["in", "2s", "record", "stop"]) == nil)
        #expect(refusal(["in", "2s", "record", "pause"])?.code == .usage)
        #expect(refusal(["in", "2s", "record"])?.code == .usage)
        // The instant is in whole milliseconds, as every rig reads it from the command.
        #expect(try ShotRequest.parse(["in", "1.0004s", "capture"], now: now, timeZone: utc).instant == now.addingTimeInterval(1))
        #expect(FleetCommandMessage.isArm("fleet arm x 2026-05-01T10:00:02.000Z capture"))
        #expect(FleetCommandMessage.isArm("FLEET Arm x"))
        #expect(!FleetCommandMessage.isArm("fleet status"))
        #expect(!FleetCommandMessage.isArm("capture"))
    }

    @Test func theReportNamesMissingFailedAndUntrustedRigsAndTheSkew() throws {
        var shot = ShotCollection(id: "a-1", instant: now, action: ["capture"], sender: "a", group: "g",
                                  asked: ["a", "b", "c"], known: ["a", "b", "c", "d"])
        shot.answers["a"] = ShotAnswer(ok: true, values: ["status": "complete", "offset.us": "100.0", "clock": "synchronised",
                                                         "sidecar": "2026-05-01/TRP_000007.json",
                                                         "files": "2026-05-01/TRP_000007_01.dng,2026-05-01/TRP_000007_01.jpg"])
        shot.answers["b"] = ShotAnswer(ok: true, values: ["status": "complete", "offset.us": "600.5", "clock": "unsynchronised",
                                                         "clock.error.us": "16000000"])
        let refused: ShotAnswer? = ShotAnswer.parse(Array(#"{"id":"a-1","type":"reply","ok":false,"code":"busy","message":"a bracket is running"}"#.utf8), id: "a-1")
        let answer = try #require(refused)
        shot.answers["c"] = answer
        #expect(ShotAnswer.parse(Array(#"{"id":"other","type":"reply","ok":true,"values":{}}"#.utf8), id: "a-1") == nil)
        #expect(shot.missing == ["d"])
        #expect(shot.failed == ["c"])
        #expect(shot.untrusted == ["b"])
        #expect(shot.maximumSkewMicroseconds == 500.5)
        #expect(shot.senderFolder == "2026-05-01")
        #expect(shot.reportName == "SHOT_a-1.json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(shot.report())) as? [String: Any])
        #expect(report["asked"] as? [String] == ["a", "b", "c"])
        #expect(report["answered"] as? [String] == ["a", "b", "c"])
        #expect(report["missing"] as? [String] == ["d"])
        #expect(report["offlineWhenSent"] as? [String] == ["d"])
        #expect(report["maximumSkewMicroseconds"] as? Double == 500.5)
        #expect(report["target"] as? String == "2026-05-01T10:00:00.000Z")
        let rigs = try #require(report["rigs"] as? [String: [String: Any]])
        #expect(rigs["a"]?["files"] as? [String] == ["2026-05-01/TRP_000007_01.dng", "2026-05-01/TRP_000007_01.jpg"])
        #expect(rigs["a"]?["trusted"] as? Bool == true)
        #expect(rigs["b"]?["trusted"] as? Bool == false)
        #expect(rigs["b"]?["clockErrorMicroseconds"] as? Int == 16_000_000)
        #expect(rigs["c"]?["status"] as? String == "refused")
        #expect((rigs["c"]?["reason"] as? String)?.contains("a bracket is running") == true)
        #expect(rigs["d"]?["status"] as? String == "missing")
        let summary = Dictionary(uniqueKeysWithValues: shot.summary(report: "2026-05-01/SHOT_a-1.json"))
        #expect(summary["missing"] == "d" && summary["failed"] == "c" && summary["untrusted"] == "b" && summary["skew.us"] == "500.5")
        #expect(summary["answered"] == "3" && summary["asked"] == "3")
    }

    @Test func theGroupsRigTopicsAreRecognised() {
        let topics = FleetTopics(group: "studio", rig: "cam01")
        #expect(topics.everyRigReply == "tripod/studio/+/reply")
        #expect(topics.rigAndKind(of: "tripod/studio/cam07/state")! == ("cam07", "state"))
        #expect(topics.rigAndKind(of: "tripod/studio/cam07/reply")! == ("cam07", "reply"))
        #expect(topics.rigAndKind(of: "tripod/studio/cam07/report")! == ("cam07", "report"))
        #expect(topics.rigAndKind(of: "tripod/other/cam07/state") == nil)
        #expect(topics.rigAndKind(of: "tripod/studio/cam07/events") == nil)
        #expect(topics.rigAndKind(of: "tripod/studio/cmd") == nil)
        #expect(topics.rigAndKind(of: "tripod/studio//state") == nil)
    }

    /// A synced shot's instant is a whole ms at or after the asked one, within half a ms of a
    /// frame's middle, and the first such: for every phase of the grid against the asked instant
    /// (30 fps and 120 fps, 1 µs steps over a frame at 30 fps, 7 µs at 120 fps).
    @Test func aSyncedShotIsMovedToTheFirstWholeMillisecondNearAFramesMiddle() {
        let asked: Int64 = 1_796_576_737_000_000_000
        for (frame, step) in [(Int64(33_333_000), Int64(1_000)), (Int64(8_333_000), Int64(7_000))] {
            let half = frame / 2
            var phase: Int64 = 0
            while phase < frame {
                let grid = SyncedFrameGrid(frameStartWallClockNanoseconds: asked - 5 * frame + phase, frameNanoseconds: frame)
                let moved = grid.midFrame(atOrAfter: asked)
                // Distance from `t` to the nearest frame middle of the grid.
                func offMiddle(_ t: Int64) -> Int64 {
                    let r = ((t - grid.frameStartWallClockNanoseconds - half) % frame + frame) % frame
                    return min(r, frame - r)
                }
                #expect(moved >= asked && moved % 1_000_000 == 0, "phase \(phase): \(moved)")
                #expect(offMiddle(moved) <= 500_000, "phase \(phase): \(offMiddle(moved)) ns from a frame's middle")
                var earlier = (asked + 999_999) / 1_000_000 * 1_000_000
                while earlier < moved {
                    #expect(offMiddle(earlier) > 500_000, "phase \(phase): \(earlier) comes first")
                    earlier += 1_000_000
                }
                phase += step
            }
        }
    }
}
