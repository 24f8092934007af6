import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

// While a still stream runs beside a video stream, every regular frame fills the still, raw and
// video streams, so a single capture with the current settings takes the frame exposed nearest its
// trigger instead of waiting behind the requests already in flight.

/// 1920×1080@56 recording at 30 fps with its still stream at the full mode, custom exposure.
private func recordingRig(video: Bool = true) throws -> Rig {
    let rig = try Rig { $0.exposureDelayFrames = 2; $0.gainDelayFrames = 2 }
    try rig.controller.selectFormat("1920x1080@56")
    try rig.controller.setExposure(.custom(durationMicroseconds: 10_000, iso: 200))
    if video { try rig.controller.requestVideoStream(VideoStreamRequest(framesPerSecond: 30)) }
    try rig.controller.startStreaming(.stills(bracketBuffersPerStream: 4))
    rig.loop.advance(by: .milliseconds(500))
    return rig
}

private func capture(_ rig: Rig, _ plan: BracketPlan = .single, roles: [StreamRole] = [.stillCapture, .raw],
                     zeroShutterLag: Bool = true) throws -> (trigger: MonotonicTime, log: BracketLog) {
    rig.loop.advance(by: .milliseconds(11))  // a trigger between frame starts
    let trigger = rig.loop.now()
    let (_, log) = try runBracket(rig, plan, roles: roles, takesRegularFramesFrom: zeroShutterLag ? trigger : nil)
    return (trigger, log)
}

@Test func aCaptureDuringARecordingIsTheFrameNearestItsTrigger() throws {
    let rig = try recordingRig()
    #expect(rig.controller.regularRequestsFillRaw)
    let (trigger, log) = try capture(rig)
    guard case .complete? = log.outcome else { Issue.record("\(String(describing: log.outcome))"); return }
    let frame = try #require(log.frames.first)
    let offset = frame.request.sensorTimestamp - trigger
    #expect(offset <= .microseconds(33_333 / 2) && offset >= .microseconds(-33_333 / 2), "exposure began \(offset) from the trigger")
    #expect(frame.request.buffers[.raw] != nil && frame.request.buffers[.stillCapture] != nil)
    // Labelled with what the frame was exposed with.
    #expect(frame.actualExposureMicroseconds == frame.request.metadata[ControlName.exposureTime]?.int64Value.map(Int.init))
    #expect(frame.actualExposureMicroseconds.map { abs($0 - 10_000) <= 200 } == true)
}

@Test func withoutZeroShutterLagTheStillWaitsBehindTheRequestsInFlight() throws {
    let rig = try recordingRig()
    let (trigger, log) = try capture(rig, zeroShutterLag: false)
    let frame = try #require(log.frames.first)
    #expect(frame.request.sensorTimestamp - trigger > .microseconds(2 * 33_333), "the requests in flight came first")
}

@Test func bracketsAndChangedSettingsTakeTheirOwnRequests() throws {
    let rig = try recordingRig()
    // An EV bracket's steps are not the streaming settings: every frame is its own request's.
    let (trigger, log) = try capture(rig, try BracketPlan.evPreset(count: 3, stepEV: 1))
    guard case .complete? = log.outcome else { Issue.record("\(String(describing: log.outcome))"); return }
    #expect(log.frames.count == 3)
    #expect(log.frames.allSatisfy { $0.request.sensorTimestamp - trigger > .microseconds(33_333) })

    // Settings changed just before the trigger: the frames in flight still have the old ones, so the
    // still is the first frame that has the new (its own request's, or a later regular one's).
    try rig.controller.setExposure(.custom(durationMicroseconds: 20_000, iso: 200))
    let (_, changed) = try capture(rig)
    let frame = try #require(changed.frames.first)
    #expect(frame.actualExposureMicroseconds.map { abs($0 - 20_000) <= 400 } == true, "\(String(describing: frame.actualExposureMicroseconds))")
}

@Test func withoutAVideoStreamRegularRequestsLeaveTheRawStreamToCaptures() throws {
    let rig = try recordingRig(video: false)
    #expect(!rig.controller.regularRequestsFillRaw)
    #expect(rig.controller.latestRequest?.buffers[.raw] == nil)
    let (_, log) = try capture(rig)
    #expect(log.frames.first?.request.buffers[.raw] != nil)  // its own request filled it
}

@Test func aJPEGCaptureTakesTheNearestFrameUnlessTheViewfinderCropsTheStream() throws {
    let rig = try recordingRig(video: false)
    let (trigger, log) = try capture(rig, roles: [.stillCapture])
    let nearest = try #require(log.frames.first)
    #expect(nearest.request.sensorTimestamp - trigger <= .microseconds(33_333 / 2))
    // The viewfinder's stabilization crop rides on regular requests only: the capture's own frame.
    rig.controller.streamingControls[ControlName.scalerCrop] = .rectangle(PixelRect(x: 100, y: 50, width: 2000, height: 1124))
    let (croppedTrigger, cropped) = try capture(rig, roles: [.stillCapture])
    let own = try #require(cropped.frames.first)
    #expect(own.request.sensorTimestamp - croppedTrigger > .microseconds(33_333))
}

@Test func framesQueuedBeforeAChangeOfZoomAreNotTheCapturesStill() throws {
    let rig = try recordingRig(video: false)
    try rig.controller.setZoom(2)  // the requests in flight still have the whole field
    let zoomed = try #require(rig.controller.zoomControl)
    let (_, log) = try capture(rig, roles: [.stillCapture])
    let frame = try #require(log.frames.first)
    #expect(frame.request.metadata[ControlName.scalerCrop] == zoomed, "the still has the zoom in force")
}
