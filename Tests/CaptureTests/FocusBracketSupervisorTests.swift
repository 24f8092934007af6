import Camera
import Console
import Foundation
import Hardware
import Media
import SimulatedHardware
import TestSupport
import Testing
@testable import Supervisor
@testable import Capture

@Suite struct FocusBracketSupervisorTests {
    @Test func theParserTakesLensPositionsAsFocusLensDoesInEitherOrder() throws {
        let plan = try BracketCommandParser.parse(["focus", "0.2m", "2m"])
        let request = try #require(plan.focus)
        #expect(plan.kind == "focus" && plan.steps.isEmpty)  // made when it starts, for the camera
        #expect(abs(request.nearDioptres - 5) < 1e-12 && abs(request.farDioptres - 0.5) < 1e-12)
        #expect(request.stepDioptres == nil && request.evBiases == [0])
        #expect(plan.summary == "bracket focus 0.2m 2m auto")
        let reversed = try #require(try BracketCommandParser.parse(["focus", "inf", "5", "0.25"]).focus)
        #expect(reversed.nearDioptres == 5 && reversed.farDioptres == 0 && reversed.stepDioptres == 0.25)
        #expect(try BracketCommandParser.parse(["focus", "5", "inf", "0.25D"]).focus?.stepDioptres == 0.25)
        #expect(try BracketCommandParser.parse(["focus", "5", "1", "auto"]).focus?.stepDioptres == nil)
        let carried = try BracketCommandParser.parse(["focus", "0.2m", "2m", "ev", "3", "1"])
        #expect(carried.focus?.evBiases == [0, -1, 1])
        #expect(carried.summary == "bracket focus 0.2m 2m auto ev 3 +1")
        #expect(try BracketCommandParser.parse(["focus", "4", "2", "0.5", "ev", "0", "-2"]).focus?.evBiases == [0, -2])
        for bad in [["focus", "1"], ["focus", "0.2m", "2m", "0.3m"], ["focus", "0.2m", "2m", "0"], ["focus", "0.2m", "near"],
                    ["focus", "0.2m", "2m", "auto", "hdr"], ["focus", "0.2m", "2m", "ev"]] {
            #expect(throws: ConsoleError.self, "\(bad)") { _ = try BracketCommandParser.parse(bad) }
        }
    }

    @Test func aFocusBracketOnTheSimulatedBoardWritesConfirmedLensPositionsAndLimits() throws {
        let rig = try CaptureRig()
        let started = rig.send("bracket focus 0.2m 2m")
        #expect(started.contains { $0.hasPrefix("ok bracket=started") }, "\(started)")
        let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
        let done = try #require(lines.event("bracket.done"), "\(lines)")
        let sidecar = try #require(try rig.sidecars().first)
        #expect(sidecar.result.status == .complete)
        #expect(sidecar.plan.kind == "focus" && sidecar.plan.summary == "bracket focus 0.2m 2m auto")
        let sensor = try #require(rig.supervisor.camera?.sensor)
        let optics = try #require(FocusOptics(sensor: sensor))
        let count = Int((4.5 / optics.autoStepDioptres).rounded(.up)) + 1
        #expect(sidecar.frames.count == count && done.contains("frames=\(count)"), "\(done)")
        let frames = sidecar.frames.sorted { $0.index < $1.index }
        for frame in frames {
            let focus = try #require(frame.focus, "frame \(frame.index) has no focus record")
            let requested = try #require(frame.requested.lensPositionDioptres)
            // Confirmed: what the frame's metadata said, and that is the step's position.
            #expect(focus.lensPositionDioptres == frame.actual?.lensPositionDioptres)
            #expect(abs(focus.lensPositionDioptres - requested) < 0.02)
            let near = try #require(focus.nearLimitDioptres), far = try #require(focus.farLimitDioptres)
            #expect(abs(near - focus.lensPositionDioptres - optics.sharpHalfWidthDioptres) < 1e-9)
            #expect(abs(focus.lensPositionDioptres - far - optics.sharpHalfWidthDioptres) < 1e-9)
            #expect(abs((focus.nearLimitMetres ?? 0) - 1 / near) < 1e-9)
            #expect(frame.mismatches.isEmpty)
        }
        // Near to far, and each frame's sharp zone reaches into the next one's.
        for (a, b) in zip(frames, frames.dropFirst()) {
            let fa = try #require(a.focus), fb = try #require(b.focus)
            #expect(fa.lensPositionDioptres > fb.lensPositionDioptres)
            #expect((fa.farLimitDioptres ?? 0) < (fb.nearLimitDioptres ?? 0))
        }
        #expect(Set(frames.compactMap { $0.actual?.exposureTimeMicroseconds }).count == 1)  // held
        #expect(lines.contains { $0.hasPrefix("event bracket.frame ") && $0.contains(" lens=") })
    }

    @Test func aCameraWithoutALensControlRefusesInWords() throws {
        let rig = try CaptureRig(sensorModel: "imx219")
        let reply = rig.send("bracket focus 0.2m 2m")
        #expect(reply.contains { $0.hasPrefix("err unsupported") && $0.contains("has no lens control (fixed focus)") }, "\(reply)")
        #expect(rig.imageFiles.isEmpty)
    }

    @Test func limitsAreRefusedWithTheCountItWouldTake() throws {
        let rig = try CaptureRig()
        let fine = rig.send("bracket focus 5 4 0.01")
        #expect(fine.contains { $0.hasPrefix("err out-of-range") && $0.contains("101 frames") && $0.contains("finer than the lens resolves") }, "\(fine)")
        let maximum = try #require(rig.supervisor.camera.map { rig.supervisor.captureService.capacity($0).maximumFrames })
        let long = rig.send("bracket focus 0.1m inf 0.04")
        // 10 D in 0.04 D steps: 251 frames.
        #expect(long.contains { $0.contains("takes 251 frames, more than the bracket limit of \(min(maximum, 256))") }, "\(long)")
        #expect(rig.imageFiles.isEmpty)
    }

    @Test func theButtonRunsAFocusBracketThroughAPreset() throws {
        let rig = try CaptureRig()
        #expect(rig.send("preset save stack focus 0.5m 1m").contains { $0.hasPrefix("ok preset=stack") })
        #expect(rig.send("set button.press bracket:stack").contains("ok button.press=bracket:stack"))
        rig.button.press()
        let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
        #expect(lines.event("bracket.done") != nil, "\(lines)")
        let sidecar = try #require(try rig.sidecars().first)
        #expect(sidecar.plan.summary == "bracket focus 0.5m 1m auto")
        #expect(sidecar.frames.count >= 2 && sidecar.frames.allSatisfy { $0.focus != nil })
    }
}
