import Foundation
import Hardware
import SimulatedHardware
import Testing
import TestSupport
@testable import Camera

@Suite struct FocusBracketTests {
    @Test func theCameraModule3sAutoStepIsAboutAThirdOfADioptre() throws {
        let optics = try #require(FocusOptics(sensor: try sensor("imx708")))
        // 2·N·c/f² with N 1.8, c 2.8 µm, f 4.74 mm.
        #expect(abs(optics.depthOfFieldDioptres - 2 * 1.8 * 2.8e-6 / (4.74e-3 * 4.74e-3)) < 1e-9)
        #expect(abs(optics.depthOfFieldDioptres - 0.449) < 0.002)
        #expect(optics.autoStepDioptres > 0.28 && optics.autoStepDioptres < 0.32)
        // At the limits of sharpness the blur circle is the circle of confusion: two pixels.
        let limits = optics.sharpLimits(lensDioptres: 2)
        #expect(abs(optics.blurPixels(defocusDioptres: limits.nearDioptres - 2) - 2) < 1e-9)
        #expect(abs(optics.blurPixels(defocusDioptres: 2 - limits.farDioptres) - 2) < 1e-9)
        #expect(optics.sharpLimits(lensDioptres: 0.1).farDioptres == 0)  // infinity
        // A slower lens has more depth of field, so bigger steps.
        var slower = optics
        slower.fNumber = 3.6
        #expect(abs(slower.autoStepDioptres - 2 * optics.autoStepDioptres) < 1e-9)
    }

    @Test func positionsRunFromNearToFarEvenlyAndNoWiderThanTheStep() {
        let positions = BracketPlan.focusPositions(near: 5, far: 0.5, step: 0.3)
        #expect(positions.first == 5)
        #expect(abs((positions.last ?? -1) - 0.5) < 1e-12)
        #expect(positions.count == 16)  // 4.5 D in 15 gaps of 0.3 D
        for (a, b) in zip(positions, positions.dropFirst()) { #expect(a - b <= 0.3 + 1e-9 && a > b) }
        #expect(BracketPlan.focusPositions(near: 5, far: 4.05, step: 0.3).count == 5)  // 0.95 D: 4 gaps of 0.2375
        #expect(BracketPlan.focusPositions(near: 2, far: 2, step: 0.3) == [2])
    }

    @Test func aFocusPlanIsMadeForTheCameraWithTheEVBiasesAtEachPosition() throws {
        let rig = try streamingRig()
        let request = FocusBracketRequest(0.5, 5, stepDioptres: nil, evBiases: [0, -1, 1], text: "0.2m 2m auto ev 3 1")
        #expect(request.nearDioptres == 5 && request.farDioptres == 0.5)  // either order
        let plan = try BracketPlan.focus(request).resolvingFocus(for: rig.controller, maximumFrames: 256)
        let lenses = plan.steps.compactMap { if case .focus(let lens, _) = $0 { lens } else { nil } }
        let biases = plan.steps.compactMap { if case .focus(_, let bias) = $0 { bias } else { nil } }
        #expect(lenses.count == plan.steps.count)
        #expect(plan.steps.count % 3 == 0 && plan.steps.count == 3 * Set(lenses).count)
        #expect(Array(biases.prefix(6)) == [0, -1, 1, 0, -1, 1])
        let positions = Array(Set(lenses)).sorted(by: >)
        #expect(positions.first == 5 && abs((positions.last ?? 0) - 0.5) < 1e-9)
        let step = try #require(FocusOptics(sensor: rig.controller.sensor)).autoStepDioptres
        #expect(positions.count == Int((4.5 / step).rounded(.up)) + 1)
    }

    @Test func aStepFinerThanTheLensOrMoreFramesThanTheLimitIsRefusedWithTheCount() throws {
        let rig = try streamingRig()
        let fine = BracketPlan.focus(FocusBracketRequest(5, 4, stepDioptres: 0.01, text: "5 4 0.01"))
        #expect {
            _ = try fine.resolvingFocus(for: rig.controller, maximumFrames: 256)
        } throws: { error in
            let message = (error as? CameraError)?.message ?? ""
            // 1 D in 0.01 D steps is 101 frames; at the lens's 1/32 D, 33.
            return message.contains("finer than the lens resolves (0.0312 D)") && message.contains("101 frames")
                && message.contains("33 at 0.0312 D")
        }
        let long = BracketPlan.focus(FocusBracketRequest(10, 0, stepDioptres: 0.1, text: "10 inf 0.1"))
        #expect {
            _ = try long.resolvingFocus(for: rig.controller, maximumFrames: 32)
        } throws: { error in
            let message = (error as? CameraError)?.message ?? ""
            return message.contains("takes 101 frames, more than the bracket limit of 32")
        }
        let beyond = BracketPlan.focus(FocusBracketRequest(20, 1, stepDioptres: nil, text: "0.05m 1m"))
        #expect(throws: CameraError.self) { _ = try beyond.resolvingFocus(for: rig.controller, maximumFrames: 256) }
    }

    @Test func aFixedFocusCameraRefusesAFocusBracketInWords() throws {
        let rig = try Rig(model: "imx219")
        try rig.controller.startStreaming()
        rig.loop.advance(by: .milliseconds(300))
        let plan = BracketPlan.focus(FocusBracketRequest(5, 0.5, stepDioptres: nil, text: "0.2m 2m"))
        #expect {
            _ = try plan.resolvingFocus(for: rig.controller, maximumFrames: 256)
        } throws: { error in
            let e = error as? CameraError
            return e?.kind == .unsupported && e?.message.contains("has no lens control (fixed focus)") == true
        }
        // The engine refuses focus steps on it too, whoever made them.
        let steps = BracketPlan(kind: "focus", summary: "x", steps: [.focus(lensDioptres: 2, evBias: 0)])
        #expect(throws: CameraError.self) {
            _ = try BracketEngine(camera: rig.controller, plan: steps, onFrame: { _ in }, onFinish: { _ in })
        }
    }

    @Test func eachFrameOfAFocusBracketIsConfirmedFromItsLensPositionWithExposureAndColourHeld() throws {
        let rig = try streamingRig()
        // The lens starts at the tuning default (1 D) and moves at a finite speed.
        #expect(abs((rig.controller.latest?.lensPositionDioptres ?? -1) - 1) < 1e-6)
        let plan = try BracketPlan.focus(FocusBracketRequest(5, 0.5, stepDioptres: nil, text: "5 0.5"))
            .resolvingFocus(for: rig.controller, maximumFrames: 256)
        let (engine, log) = try runBracket(rig, plan)
        guard case .complete(let stats)? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
        #expect(log.frames.map(\.index).sorted() == Array(plan.steps.indices))
        var exposures = Set<Int64>(), gains = Set<[Double]>()
        for frame in log.frames {
            let lens = try #require(frame.request.metadata[ControlName.lensPosition]?.doubleValue)
            let wanted = try #require(frame.requested.lensDioptres)
            #expect(abs(lens - wanted) <= engine.lensToleranceDioptres, "step \(frame.index): lens \(lens), asked \(wanted)")
            #expect(frame.actualLensDioptres == lens)
            exposures.insert(try #require(frame.request.metadata[ControlName.exposureTime]?.int64Value))
            gains.insert(try #require(frame.request.metadata[ControlName.colourGains]?.doubleArray))
        }
        #expect(exposures.count == 1 && gains.count == 1)  // held for the stack
        // Travel from 1 D to 5 D at the simulated 1.5 D per frame takes 3 frames: planned, in frames.
        #expect(stats.lensTravelRequests == 2)
        // Each later step (≤ 0.3 D) is reached within its own frame: one sensor frame per step
        // beyond the first one's travel and the pipeline's tail.
        #expect(stats.sensorFramesUsed <= plan.steps.count + stats.lensTravelRequests + engine.pipelineDelayFrames + 1)
        #expect(engine.heldColourGains != nil)
    }

    @Test func anEVBracketAtEachLensPositionKeepsEveryExposureAtItsPosition() throws {
        let rig = try streamingRig()
        let plan = try BracketPlan.focus(FocusBracketRequest(3, 2, stepDioptres: 0.5, evBiases: [0, -1, 1], text: "3 2 0.5 ev 3 1"))
            .resolvingFocus(for: rig.controller, maximumFrames: 256)
        #expect(plan.steps.count == 9)
        let (_, log) = try runBracket(rig, plan)
        guard case .complete? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
        #expect(log.frames.count == 9)
        for frame in log.frames {
            let lens = try #require(frame.actualLensDioptres)
            #expect(abs(lens - (frame.requested.lensDioptres ?? -1)) < 0.02)
            let exposure = Double(frame.actualExposureMicroseconds ?? 0) * (frame.actualGain ?? 0)
            #expect(abs(exposure - Double(frame.requested.exposureMicroseconds) * frame.requested.analogueGain) <= 0.03 * exposure)
        }
    }

    @Test func theSimulatedLensTravelsAtAFiniteSpeedAndReportsWhereItIs() throws {
        let rig = try Rig()
        let log = rig.recordFrames()
        try rig.controller.setFocus(.locked(lensPositionDioptres: 1))
        try rig.controller.startStreaming()
        rig.loop.advance(by: .milliseconds(300))
        let before = log.states.count
        try rig.controller.setFocus(.locked(lensPositionDioptres: 10))
        rig.loop.advance(by: .milliseconds(500))
        let lenses = log.states.dropFirst(before).compactMap(\.lensPositionDioptres)
        // 9 D at 1.5 D a frame: intermediate positions, never a jump of more than 1.5 D.
        #expect(lenses.contains { $0 > 1.01 && $0 < 9.99 })
        for (a, b) in zip(lenses, lenses.dropFirst()) { #expect(abs(b - a) <= 1.5 + 1e-4) }
        #expect(abs((lenses.last ?? 0) - 10) < 1e-4)
    }

    @Test func theDepthSceneBlursEachStripByItsOwnDefocus() throws {
        let rig = try Rig(scene: SimulatedScene(hasDepth: true))
        rig.camera.maximumRenderSize = PixelSize(width: 384, height: 216)
        try rig.controller.selectFormat("1920x1080@30")
        func sharpness(atLens lens: Double) throws -> [Double] {
            try rig.controller.setFocus(.locked(lensPositionDioptres: lens))
            rig.loop.advance(by: .milliseconds(500))
            return stripEdgeEnergy(try #require(rig.controller.latestRequest?.buffers[.viewfinder]))
        }
        try rig.controller.startStreaming()
        let near = try sharpness(atLens: 1 / 0.15), far = try sharpness(atLens: 0)
        let strips = SimulatedScene.depthStripDistancesMetres.count
        #expect(near.count == strips)
        // Focused near, the nearest strip is sharper than focused far, and the farthest the reverse.
        #expect(near[0] > 1.5 * far[0], "near \(near) far \(far)")
        #expect(far[strips - 1] > 1.5 * near[strips - 1], "near \(near) far \(far)")
    }
}

/// Sharpness of each `sim scene depth` strip, left to right (TestSupport's `stripSharpness`).
func stripEdgeEnergy(_ buffer: FrameBuffer) -> [Double] {
    let b = buffer.bytes
    return stripSharpness(width: buffer.size.width, height: buffer.size.height,
                          strips: SimulatedScene.depthStripDistancesMetres.count, margin: 4) { x, y in
        Double(b[y * buffer.stride + x * 3 + 1])
    }
}
