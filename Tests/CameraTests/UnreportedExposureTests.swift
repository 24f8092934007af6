import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

// A camera without ExposureTime/AnalogueGain controls or metadata (vimc, some USB cameras):
// Tripod streams it, takes single captures from it with their settings left unknown, and refuses
// what it cannot do with `unsupported`, never with an assumed exposure.

private func vimcLikeRig() throws -> Rig {
    let rig = try Rig(exposureControl: false)
    rig.controller.requestsInFlight = 4
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(500))
    return rig
}

@Test func framesWithoutExposureMetadataStillReachTheControllerWithTheirExposureUnknown() throws {
    let rig = try Rig(exposureControl: false)
    let log = rig.recordFrames()
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(500))
    #expect(log.states.count > 5)
    #expect(log.states.allSatisfy { $0.exposureDurationMicroseconds == nil && $0.analogueGain == nil && $0.iso == nil && $0.exposure == nil })
    #expect(rig.controller.latestRequest != nil)
    #expect(!rig.controller.controlsExposure)
}

@Test func exposureAndGainsCannotBeSetOnACameraThatLacksTheControls() throws {
    let rig = try vimcLikeRig()
    for mode: ExposureMode in [.locked, .custom(durationMicroseconds: 10_000, iso: 100)] {
        let error = #expect(throws: CameraError.self) { try rig.controller.setExposure(mode) }
        #expect(error?.kind == .unsupported)
        #expect(error?.message.contains("no ExposureTime/AnalogueGain") == true)
    }
    #expect((#expect(throws: CameraError.self) { try rig.controller.setExposureBias(ev: 1) })?.kind == .unsupported)
    try rig.controller.setExposure(.auto)  // the camera's own exposure is fine
    #expect(rig.controller.exposureMode == .auto)
}

@Test func aSingleCaptureTakesTheNextFrameOfItsOwnRequestAndReportsNoSettings() throws {
    let rig = try vimcLikeRig()
    let sequenceBefore = try #require(rig.controller.latest?.sequence)
    let (engine, log) = try runBracket(rig, .single)
    guard case .complete(let stats)? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
    #expect(!engine.confirmsSettings)
    #expect(engine.pipelineDelayFrames == 0)
    let frame = try #require(log.frames.first)
    #expect(log.frames.count == 1)
    #expect(frame.actualExposureMicroseconds == nil && frame.actualGain == nil && !frame.isClamped)
    // The next frame the sensor made after the capture's request: no earlier frame is relabelled,
    // and it is not a later one either (nothing to wait for: no settings change).
    #expect(frame.request.sequence > sequenceBefore, "a frame from after the capture was asked for")
    #expect(frame.request.sequence <= sequenceBefore + UInt64(rig.controller.requestsInFlight) + 1,
            "the request queued behind the regular ones in flight, not later")
    #expect(frame.request.metadata[ControlName.exposureTime] == nil)
    #expect(stats.requestsQueued == 1 && stats.framesSkipped == 0)
}

@Test func exposureBracketsAreRefusedUpFrontOnACameraThatCannotVaryExposure() throws {
    let rig = try vimcLikeRig()
    // Refused by the engine's initialiser, so before anything could be queued.
    for plan in [try BracketPlan.evPreset(count: 3, stepEV: 1), try BracketPlan.manual([(10_000, 100)]), BracketPlan.autoRange()] {
        let error = #expect(throws: CameraError.self) {
            _ = try BracketEngine(camera: rig.controller, plan: plan, onFrame: { _ in }, onFinish: { _ in })
        }
        #expect(error?.kind == .unsupported)
        #expect(error?.message.contains("only `capture`") == true)
    }
}

/// A camera that takes exposure controls but leaves them out of its metadata cannot have a frame
/// confirmed: the bracket fails and says why, and saves nothing under assumed settings.
@Test func aCameraWithControlsButNoExposureMetadataFailsWithAReasonNamingIt() throws {
    let rig = try streamingRig()
    // Custom exposure, so the bracket has a base without a metered frame.
    try rig.controller.setExposure(.custom(durationMicroseconds: 10_000, iso: 100))
    rig.loop.advance(by: .milliseconds(200))
    rig.camera.reportsExposureMetadata = false  // controls stay; the metadata loses ExposureTime/AnalogueGain
    let log = BracketLog()
    let engine = try BracketEngine(camera: rig.controller, plan: try .evPreset(count: 3, stepEV: 1),
                                   onFrame: { log.frames.append($0) }, onFinish: { log.outcome = $0 })
    #expect(engine.confirmsSettings)
    try engine.start()
    rig.loop.advance(by: .seconds(5))
    #expect(log.frames.isEmpty)
    let reason = try #require(log.reason)
    #expect(reason.contains("reported no ExposureTime/AnalogueGain"), "\(reason)")
    #expect((log.statistics?.framesWithoutSettings ?? 0) > 0)
}
