import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

// A pipeline may allocate fewer buffers than asked (libcamera's vimc: always 4). The controller
// then keeps fewer regular requests in flight so brackets find free buffers, and a bracket request
// that still finds none waits for one instead of failing.

private func limitedRig(buffers: Int, bracketBuffers: Int) throws -> Rig {
    let rig = try Rig()
    rig.camera.pipeline.maximumBufferCount = buffers
    rig.controller.requestsInFlight = 4
    try rig.controller.startStreaming(StreamingConfiguration(bracketBuffersPerStream: bracketBuffers))
    rig.loop.advance(by: .milliseconds(500))
    return rig
}

@Test func fewerBuffersThanAskedLeaveRoomForBracketsByKeepingFewerRegularRequests() throws {
    let rig = try limitedRig(buffers: 4, bracketBuffers: 8)
    #expect(rig.controller.allocatedBuffers[.viewfinder] == 4)
    // Two regular requests at least (a V4L2 capture node starts only with two queued).
    #expect(rig.controller.regularRequestLimit == 2)
    #expect(rig.controller.bracketBuffersAvailable == 2)
    let log = rig.recordFrames()
    rig.loop.advance(by: .milliseconds(200))
    #expect(log.states.count >= 10, "two requests in flight stream every frame at 120 fps: \(log.states.count)")

    let result = BracketLog()
    let engine = try BracketEngine(camera: rig.controller, plan: try .evPreset(count: 3, stepEV: 1),
                                   maximumRequestsInFlight: rig.controller.bracketBuffersAvailable,
                                   onFrame: { result.frames.append($0) }, onFinish: { result.outcome = $0 })
    try engine.start()
    rig.loop.advance(by: .seconds(1))
    guard case .complete(let stats)? = result.outcome else { Issue.record("not complete: \(String(describing: result.outcome))"); return }
    #expect(result.frames.map(\.index).sorted() == [0, 1, 2])
    #expect(stats.bufferWaits == 0)
    #expect(stats.maximumOutstanding <= 2)
    #expect(stats.requestsQueued <= 3 * (3 + engine.pipelineDelayFrames))
}

@Test func aBracketThatFindsNoFreeBufferWaitsForOneAndStreamingResumesAfter() throws {
    // No room set aside: the four regular requests hold every buffer.
    let rig = try limitedRig(buffers: 4, bracketBuffers: 0)
    #expect(rig.controller.regularRequestLimit == 4 && rig.controller.bracketBuffersAvailable == 0)
    let (_, result) = try runBracket(rig, try .evPreset(count: 3, stepEV: 1))
    guard case .complete(let stats)? = result.outcome else { Issue.record("not complete: \(String(describing: result.outcome))"); return }
    #expect(result.frames.map(\.index).sorted() == [0, 1, 2])
    #expect(stats.bufferWaits > 0)
    for frame in result.frames {
        let exposure = try #require(frame.actualExposureMicroseconds)
        #expect(abs(Double(exposure - frame.requested.exposureMicroseconds)) <= 0.02 * Double(frame.requested.exposureMicroseconds) || frame.isClamped)
    }
    #expect(!rig.controller.holdsRegularRequests)
    let log = rig.recordFrames()
    rig.loop.advance(by: .milliseconds(200))
    #expect(log.states.count >= 10, "regular streaming is back: \(log.states.count) frames")
    #expect(rig.camera.requestsWaiting + 1 >= 3, "the regular requests are refilled")
}

/// A restart (a format change) while a bracket waits for a buffer: streaming comes back with its
/// usual regular requests, and the bracket fails instead of finishing on the new format.
@Test func aRestartWhileABracketWaitsForABufferEndsTheBracketAndStreamsNormally() throws {
    let rig = try limitedRig(buffers: 4, bracketBuffers: 0)
    let log = BracketLog()
    let engine = try BracketEngine(camera: rig.controller, plan: try .evPreset(count: 5, stepEV: 1),
                                   onFrame: { log.frames.append($0) }, onFinish: { log.outcome = $0 })
    try engine.start()
    #expect(engine.statistics.requestsQueued == 0 && engine.statistics.bufferWaits == 1, "every buffer is taken: it waits")
    #expect(rig.controller.holdsRegularRequests)
    try rig.controller.selectFormat("1")  // restarts streaming
    #expect(!rig.controller.holdsRegularRequests)
    #expect(rig.camera.requestsWaiting <= rig.controller.regularRequestLimit, "regular requests queued once, not twice")
    rig.loop.advance(by: .seconds(1))
    let reason = try #require(log.reason, "\(String(describing: log.outcome))")
    #expect(reason.contains("restarted"), "\(reason)")
    #expect(log.frames.isEmpty)
    let frames = rig.recordFrames()
    rig.loop.advance(by: .milliseconds(200))
    #expect(frames.states.count >= 5, "streaming goes on: \(frames.states.count)")
}
