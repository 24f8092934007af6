import Foundation
import Hardware
import Testing
import TestSupport
@testable import Supervisor

/// Triggers on the simulated board, on the manual clock (docs/triggers.md): motion in the
/// picture starts a recording whose first frame is exactly `video.prerecord × video.fps` frames
/// before the frame the object entered; light ramps, noise and a handheld rig never trigger.
@Suite(.serialized) struct TriggerSupervisorTests {
    /// The events among `lines` named `name`.
    static func events(_ name: String, in lines: [String]) -> [String] { lines.filter { $0.hasPrefix("event \(name) ") } }

    @Test func aTriggeredRecordingBeginsExactlyThePrerollBeforeTheEntryFrame() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set video.prerecord 1") == "ok video.prerecord=1")
        #expect(h.reply("set trigger.action record 2") == "ok trigger.action=\"record 2\"")
        #expect(h.reply("set trigger.motion on") == "ok trigger.motion=on")
        h.advance(.seconds(3))  // the background learns, the pre-roll fills
        #expect(Self.events("trigger.motion", in: h.output.take()).isEmpty, "nothing moved yet")
        let crossed = h.reply("sim object cross 0.5 0.3")
        let entry = try #require(SimulatedBoardHarness.field("enters.sequence", in: crossed).flatMap { UInt64($0) }, "\(crossed)")
        h.advance(.milliseconds(300))
        var lines = h.output.take()
        let motion = try #require(Self.events("trigger.motion", in: lines).first, "\(lines)")
        #expect(SimulatedBoardHarness.field("sequence", in: motion) == String(entry), "the object is seen in the frame it enters: \(motion)")
        let fired = try #require(Self.events("trigger.fired", in: lines).first, "\(lines)")
        #expect(SimulatedBoardHarness.field("sequence", in: fired) == String(entry))
        #expect(SimulatedBoardHarness.field("preroll.frames", in: fired) == "30")
        let file = try #require(SimulatedBoardHarness.field("file", in: fired))
        // It walks for 2 s (0.5 widths/s), then the recording ends 2 s after the last motion.
        h.advance(.seconds(6))
        h.supervisor.waitForRecorder()
        h.advance(.milliseconds(100))
        lines = h.output.take()
        let stopped = try #require(Self.events("record.stopped", in: lines).first, "\(lines)")
        #expect(SimulatedBoardHarness.field("dropped", in: stopped) == "0")
        let path = h.captured(file)
        let sidecarURL = URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("json")
        let sidecar = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sidecarURL)) as? [String: Any])
        let trigger = try #require(sidecar["trigger"] as? [String: Any], "\(sidecar)")
        #expect(trigger["source"] as? String == "motion")
        #expect((trigger["sequence"] as? NSNumber)?.uint64Value == entry)
        #expect((trigger["sensorTimestampNanoseconds"] as? NSNumber)?.int64Value ?? 0 > 0)
        // Exact to the frame: firstSequence = trigger.sequence − video.prerecord × video.fps.
        #expect((sidecar["firstSequence"] as? NSNumber)?.uint64Value == entry - 30, "\(sidecar["firstSequence"] ?? "none")")
        // The file holds every frame from there on, the first a keyframe at PTS 0.
        let video = try probe(path)
        let frames = try #require(sidecar["framesWritten"] as? Int)
        #expect(video.framePTS.count == frames)
        #expect(video.framePTS.first == 0)
        let last = try #require((sidecar["lastSequence"] as? NSNumber)?.uint64Value)
        #expect(Int(last - (entry - 30)) + 1 == frames, "no gap")
        // The object left about 2 s after entering; the recording ran 2 s past the last motion.
        let seconds = Double(video.framePTS.last ?? 0) / 1e6
        #expect(seconds > 1 + 1.5 + 2 && seconds < 1 + 2 + 2.1, "\(seconds) s")
    }

    /// The simulated board's PIR line (board `gpio.pir`, `sim pir`): its rising edge is a trigger
    /// whose frame is the newest one; a recording counts its pre-roll back from it; the cooldown holds.
    @Test func aPIREdgeStartsARecordingFromTheNewestFrameAndTheCooldownHolds() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set video.prerecord 0.5") == "ok video.prerecord=0.5")
        #expect(h.reply("set trigger.action record 1") == "ok trigger.action=\"record 1\"")
        #expect(h.reply("set trigger.cooldown 60") == "ok trigger.cooldown=60")
        h.advance(.seconds(2))
        // The edge reaches the loop while the command runs: its events follow the reply.
        var lines = h.send("sim pir")
        #expect(lines.contains("ok pir=active"), "\(lines)")
        h.advance(.milliseconds(100))
        lines += h.output.take()
        let pir = try #require(Self.events("trigger.pir", in: lines).first, "\(lines)")
        let sequence = try #require(SimulatedBoardHarness.field("sequence", in: pir).flatMap { UInt64($0) })
        let fired = try #require(Self.events("trigger.fired", in: lines).first, "\(lines)")
        #expect(SimulatedBoardHarness.field("source", in: fired) == "pir")
        #expect(SimulatedBoardHarness.field("sequence", in: fired) == String(sequence))
        #expect(SimulatedBoardHarness.field("preroll.frames", in: fired) == "15")
        let file = try #require(SimulatedBoardHarness.field("file", in: fired))
        h.advance(.seconds(3))
        h.supervisor.waitForRecorder()
        h.advance(.milliseconds(100))
        lines = h.output.take()
        #expect(!Self.events("record.stopped", in: lines).isEmpty, "ends 1 s after the trigger: \(lines)")
        // Within the cooldown a second edge is seen but does nothing.
        lines = h.send("sim pir")
        #expect(lines.contains("ok pir=active"), "\(lines)")
        h.advance(.milliseconds(100))
        lines += h.output.take()
        #expect(Self.events("trigger.pir", in: lines).count == 1)
        #expect(Self.events("trigger.fired", in: lines).isEmpty, "\(lines)")
        let path = h.captured(file)
        let sidecarURL = URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("json")
        let sidecar = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sidecarURL)) as? [String: Any])
        let trigger = try #require(sidecar["trigger"] as? [String: Any], "\(sidecar)")
        #expect(trigger["source"] as? String == "pir")
        #expect((sidecar["firstSequence"] as? NSNumber)?.uint64Value == sequence - 15)
    }

    /// `trigger.action bracket PRESET`: a PIR edge runs the saved preset as the console's `bracket
    /// preset` does (every frame of it kept); `trigger.fired` names the bracket; once the preset is
    /// gone, a trigger is a `trigger.error` naming it, not a capture.
    @Test func aPIREdgeRunsABracketPresetAndAMissingPresetIsATriggerError() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("preset save trig3 ev 3 1").hasPrefix("ok preset=trig3"))
        #expect(h.reply("set trigger.action bracket trig3") == "ok trigger.action=\"bracket trig3\"")
        #expect(h.reply("set trigger.cooldown 0") == "ok trigger.cooldown=0")
        h.advance(.seconds(1))
        var lines = h.send("sim pir")
        for _ in 0..<50 where Self.events("bracket.done", in: lines).isEmpty {
            h.advance(.milliseconds(100))
            lines += h.output.take()
        }
        let fired = try #require(Self.events("trigger.fired", in: lines).first, "\(lines)")
        #expect(SimulatedBoardHarness.field("source", in: fired) == "pir" && SimulatedBoardHarness.field("action", in: fired) == "bracket trig3",
                "\(fired)")
        #expect(SimulatedBoardHarness.field("bracket", in: fired) != nil, "\(fired)")
        let started = try #require(Self.events("bracket.started", in: lines).first, "\(lines)")
        #expect(SimulatedBoardHarness.field("frames", in: started) == "3", "\(started)")
        #expect(!Self.events("bracket.done", in: lines).isEmpty, "\(lines)")

        #expect(h.reply("preset delete trig3") == "ok deleted=trig3")
        lines = h.send("sim pir")
        h.advance(.milliseconds(200))
        lines += h.output.take()
        let error = try #require(Self.events("trigger.error", in: lines).first, "\(lines)")
        #expect(error.contains("trig3") && SimulatedBoardHarness.field("source", in: error) == "pir", "\(error)")
        #expect(Self.events("bracket.started", in: lines).isEmpty, "\(lines)")
    }

    /// The frame pre-roll is bounded: more than 240 frames is refused in words, and nothing changes.
    @Test func aPrerollBeyondTheBoundIsRefusedInWords() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set trigger.action record 5") == "ok trigger.action=\"record 5\"")
        let refused = h.reply("set video.prerecord 9")
        #expect(refused.hasPrefix("err bad-value") && refused.contains("270 frames") && refused.contains("240"), "\(refused)")
        #expect(h.reply("get video.prerecord").hasPrefix("ok video.prerecord=0"))
        #expect(h.reply("set video.prerecord 8") == "ok video.prerecord=8")
        #expect(h.supervisor.recorder.triggerPrerollFrames == 240)
        #expect(h.reply("set trigger.action off") == "ok trigger.action=off")
        #expect(h.supervisor.recorder.triggerPrerollFrames == 0, "back to the encoded ring")
    }

    /// Ten minutes of manual clock on the reduced-size simulated board (sim-small: the same scene,
    /// frames no larger than 384×216; a thumbnail cell then averages only 2×2 pixels, so there is
    /// more noise per cell than on the full-size board), streaming at a fixed 10 fps (`format
    /// 1280x720@10`, as a wildlife box might run): 6,000 frames, each rendered and looked at. Handheld
    /// at 3 °/s throughout; the light falls 14 EV to night over 4 minutes (at a fixed rate AE cannot
    /// lengthen the exposure, so the gain, and the noise, climb), comes back over 3, then holds. No
    /// `trigger.motion`, no `trigger.fired`. At 10 fps the background (5 % of each frame) follows the
    /// light three times more slowly per second, and the shake between frames is three times larger,
    /// than at 30 fps: the harder case for both. Every frame lands at the same simulated time on every
    /// run, so the verdict does not depend on the machine's load; it takes seconds, not minutes.
    @Test
    func lightRampsNoiseAndAHandheldRigNeverTriggerOverTenMinutes() throws {
        let h = try SimulatedBoardHarness(board: "sim-small")
        #expect(h.reply("set format 1280x720@10").hasPrefix("ok"))
        #expect(h.reply("set trigger.action capture") == "ok trigger.action=capture")
        #expect(h.reply("set trigger.motion on") == "ok trigger.motion=on")
        let examinedBefore = h.supervisor.triggers.framesExamined
        var seen: [String] = []
        #expect(h.reply("sim motion handheld 3").hasPrefix("ok"))
        #expect(h.reply("sim light sunset 4m").hasPrefix("ok"))
        for _ in 0..<24 { h.advance(.seconds(10)); seen += h.output.take() }
        #expect(h.reply("sim light sunrise 3m").hasPrefix("ok"))
        for _ in 0..<18 { h.advance(.seconds(10)); seen += h.output.take() }
        #expect(h.reply("sim light steady").hasPrefix("ok"))
        for _ in 0..<18 { h.advance(.seconds(10)); seen += h.output.take() }
        // The detector saw every frame of the ten minutes (10 fps × 600 s), none skipped.
        let examined = h.supervisor.triggers.framesExamined - examinedBefore
        #expect((5_995...6_001).contains(examined), "\(examined) frames looked at")
        #expect(Self.events("trigger.motion", in: seen).isEmpty, "\(Self.events("trigger.motion", in: seen).prefix(5))")
        #expect(Self.events("trigger.fired", in: seen).isEmpty, "\(Self.events("trigger.fired", in: seen).prefix(5))")
        // The detector did look: an object now still triggers.
        #expect(h.reply("sim object cross 0.5 0.3").hasPrefix("ok"))
        h.advance(.milliseconds(500))
        #expect(!Self.events("trigger.fired", in: h.output.take()).isEmpty)
    }
}
