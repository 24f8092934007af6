import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
@testable import Camera

/// Sum of absolute differences between horizontal neighbours of the green channel: edge energy.
func edgeEnergy(_ buffer: FrameBuffer) -> Double {
    let b = buffer.bytes, w = buffer.size.width
    var sum = 0.0
    for row in 0..<buffer.size.height {
        for column in 0..<(w - 1) {
            let p = row * buffer.stride + column * 3 + 1
            sum += abs(Double(b[p + 3]) - Double(b[p]))
        }
    }
    return sum
}

@Test func phaseDetectAutofocusJumpsToTheSubjectWithoutReportingAdjusting() throws {
    let rig = try Rig(scene: SimulatedScene(subjectDistanceMetres: 0.5))
    #expect(rig.controller.afSystem == "phase")
    var adjusting: [Bool] = []
    var states: [AutofocusState?] = []
    rig.taps.onFrame = { _, state in adjusting.append(rig.controller.isAdjustingFocus); states.append(state.autofocusState) }
    try rig.controller.setFocus(.locked(lensPositionDioptres: 12))
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(100))
    try rig.controller.setFocus(.auto)
    try rig.controller.triggerAutofocus()
    rig.loop.advance(by: .milliseconds(300))
    #expect(states.contains(.scanning))
    #expect(states.last == .focused)
    #expect(!adjusting.contains(true))  // PDAF: watch the lens position, not adjustingFocus
    #expect(abs((rig.controller.latest?.lensPositionDioptres ?? 0) - 2) < 0.05)
}

@Test func contrastDetectScanReportsAdjustingThenFocuses() throws {
    let rig = try Rig(scene: SimulatedScene(subjectDistanceMetres: 0.4)) { $0.afSystem = "contrast" }
    var adjusting: [Bool] = []
    rig.taps.onFrame = { _, _ in adjusting.append(rig.controller.isAdjustingFocus) }
    try rig.controller.setFocus(.auto)
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(100))
    #expect(!adjusting.contains(true))  // auto waits for a trigger
    try rig.controller.triggerAutofocus()
    rig.loop.advance(by: .milliseconds(500))
    #expect(adjusting.filter { $0 }.count >= 10)  // coarse sweep 0…15 D plus the fine sweep
    #expect(adjusting.last == false)
    #expect(rig.controller.latest?.autofocusState == .focused)
    #expect(abs((rig.controller.latest?.lensPositionDioptres ?? 0) - 2.5) <= 0.25)
}

@Test func continuousAutofocusFollowsTheSubject() throws {
    let rig = try Rig(scene: SimulatedScene(subjectDistanceMetres: 1))
    try rig.controller.setFocus(.continuous)
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(200))
    #expect(abs((rig.controller.latest?.lensPositionDioptres ?? 0) - 1) < 0.05)
    rig.camera.scene.subjectDistanceMetres = 0.2
    rig.loop.advance(by: .milliseconds(200))
    #expect(abs((rig.controller.latest?.lensPositionDioptres ?? 0) - 5) < 0.05)
    #expect(rig.controller.latest?.autofocusState == .focused)
}

@Test func lockedFocusInDioptresAndNormalisedAndSharpnessFollowsIt() throws {
    let rig = try Rig(scene: SimulatedScene(subjectDistanceMetres: 0.5))
    rig.camera.maximumRenderSize = PixelSize(width: 384, height: 216)  // enough pixels for the blur to show
    try rig.controller.selectFormat("1920x1080@30")
    try rig.controller.setFocus(.locked(lensPositionDioptres: 2))
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(400))
    #expect(rig.controller.latest?.lensPositionDioptres == 2)
    let sharp = edgeEnergy(try #require(rig.controller.latestRequest?.buffers[.viewfinder]))
    try rig.controller.setLensPosition(normalised: 0)  // near end: 15 D
    rig.loop.advance(by: .milliseconds(700))  // the lens travels 1.5 D a frame, after the requests in flight
    #expect(rig.controller.latest?.lensPositionDioptres == 15)
    #expect(rig.controller.lensPositionNormalised == 0)
    let blurred = edgeEnergy(try #require(rig.controller.latestRequest?.buffers[.viewfinder]))
    #expect(blurred < 0.6 * sharp)
    try rig.controller.setLensPosition(normalised: 1)  // infinity
    rig.loop.advance(by: .milliseconds(700))
    #expect(rig.controller.latest?.lensPositionDioptres == 0)
    #expect {
        try rig.controller.setFocus(.locked(lensPositionDioptres: 20))
    } throws: { ($0 as? CameraError)?.message.contains("0.0...15.0 D") == true }
    #expect(throws: CameraError.self) { try rig.controller.triggerAutofocus() }  // not in auto
}

@Test func fixedFocusSensorRejectsFocusCommandsClearly() throws {
    let rig = try Rig(model: "imx219")
    #expect(rig.controller.afSystem == "none")
    for attempt in [{ try rig.controller.setFocus(.auto) }, { try rig.controller.setLensPosition(normalised: 0.5) },
                    { try rig.controller.triggerAutofocus() }] {
        #expect {
            try attempt()
        } throws: { error in
            let e = error as? CameraError
            return e?.kind == .unsupported && e?.message.contains("fixed focus") == true
        }
    }
    #expect(rig.controller.controlsForNextRequest()[ControlName.afMode] == nil)
}

@Test func motionDuringTheExposureBlursTheFrame() throws {
    /// Swings the camera left at 2 rad/s until `turn`, then right at 2 rad/s: back where it started
    /// (facing the chart) 0.7 s in, moving fast through the last frames' exposures.
    final class Swing: MotionTruth {
        let turn: MonotonicTime
        init(turn: MonotonicTime) { self.turn = turn }
        func angularVelocity(at time: MonotonicTime) -> Vector3 { Vector3(0, time < turn ? -2 : 2, 0) }
        func acceleration(at time: MonotonicTime) -> Vector3 { Vector3(0, -9.80665, 0) }
    }
    let start = ManualEventLoop().now()  // where every manual loop starts, the rig's too
    func energy(_ motion: any MotionTruth) throws -> Double {
        let rig = try Rig(scene: SimulatedScene(greyLuminanceCandelasPerSquareMetre: 8, subjectDistanceMetres: 1),
                          motion: motion)
        #expect(rig.loop.now() == start)
        try rig.controller.selectFormat("1920x1080@15")
        try rig.controller.setFocus(.locked(lensPositionDioptres: 1))
        try rig.controller.setExposure(.custom(durationMicroseconds: 50_000, iso: 100))
        try rig.controller.startStreaming()
        rig.loop.advance(by: .milliseconds(700))
        return edgeEnergy(try #require(rig.controller.latestRequest?.buffers[.viewfinder]))
    }
    // The last frame faces the chart within 0.1 rad and was exposed while turning 0.1 rad (50 ms at 2 rad/s).
    #expect(try energy(Swing(turn: start + .milliseconds(350))) < 0.5 * energy(StillMotion()))
}
