import Hardware
import Testing
@testable import Camera

// The frame pipeline: stages in a fixed order, a claim stops a frame, the bracket stage claims the
// frames of requests queued with `queueRequest` and lends regular frames to the bracket engaged.

private final class Seen: @unchecked Sendable { var entries: [String] = [] }

/// A stage that notes each frame it sees and claims them when `claims`.
private struct Noting: FrameStage {
    let name: String
    let seen: Seen
    var claims = false

    func frameCompleted(_ frame: PipelineFrame) -> FrameDisposition {
        seen.entries.append(name)
        return claims ? .claim : .passOn
    }
}

private func frame(_ kind: PipelineFrame.Kind) -> PipelineFrame {
    let request = CompletedRequest(cookie: 1, sequence: 1, sensorTimestamp: MonotonicTime(nanoseconds: 1_000), metadata: [:], buffers: [:])
    return PipelineFrame(request: request, state: FrameState(request, isoPerGain: 100), kind: kind)
}

@Test func stagesSeeAFrameInTheirOrderWithTheBracketStageAfterTheEveryFrameStages() {
    let seen = Seen()
    let pipeline = FramePipeline(everyFrame: [Noting(name: "recorder", seen: seen)],
                                 streaming: [Noting(name: "stabilizer", seen: seen), Noting(name: "viewfinder", seen: seen)])
    #expect(pipeline.stageNames == ["recorder", "bracket", "stabilizer", "viewfinder"])
    #expect(pipeline.deliver(frame(.regular)) == .passOn)
    #expect(seen.entries == ["recorder", "stabilizer", "viewfinder"])
}

@Test func aClaimedFrameReachesNoLaterStage() {
    let seen = Seen()
    let pipeline = FramePipeline(streaming: [Noting(name: "first", seen: seen), Noting(name: "claimer", seen: seen, claims: true),
                                             Noting(name: "last", seen: seen)])
    #expect(pipeline.deliver(frame(.regular)) == .claim)
    #expect(seen.entries == ["first", "claimer"])
}

@Test func theBracketStageClaimsRequestedFramesAfterTheEveryFrameStagesSawThem() {
    let seen = Seen()
    let pipeline = FramePipeline(everyFrame: [Noting(name: "recorder", seen: seen)], streaming: [Noting(name: "viewfinder", seen: seen)])
    #expect(pipeline.deliver(frame(.requested)) == .claim)
    #expect(seen.entries == ["recorder"])
    #expect(!pipeline.bracket.isEngaged)
}

/// On a streaming camera: a queued request's frame reaches the every-frame stages, then its own
/// completion, and never the streaming stages; regular frames reach both, every-frame first.
@Test func theControllerHandsARequestsFrameToTheEveryFrameStagesThenItsCompletionOnly() throws {
    let rig = try Rig.streaming()
    let seen = Seen()
    rig.taps.onEveryFrame = { seen.entries.append("every \($0.cookie)") }
    rig.taps.onFrame = { completed, _ in seen.entries.append("streaming \(completed.cookie)") }
    let cookie = try rig.controller.queueRequest(controls: [ControlName.exposureTime: .int32(2000)]) { completed in
        seen.entries.append("completion \(completed.cookie)")
    }
    rig.loop.advance(by: .milliseconds(300))
    let own = seen.entries.filter { $0.hasSuffix(" \(cookie)") }
    #expect(own == ["every \(cookie)", "completion \(cookie)"])
    let regular = seen.entries.filter { !$0.hasSuffix(" \(cookie)") }
    #expect(regular.count >= 10)
    for (index, entry) in regular.enumerated() where entry.hasPrefix("streaming ") {
        #expect(index > 0 && regular[index - 1] == "every \(entry.dropFirst("streaming ".count))")
    }
}

/// A capture that may take a regular frame is engaged in the bracket stage while it runs and
/// released when it ends; a bracket of its own requests never is.
@Test func aZeroShutterLagCaptureIsEngagedInTheBracketStageUntilItEnds() throws {
    let rig = try streamingRig()
    let log = BracketLog()
    let capture = try BracketEngine(camera: rig.controller, plan: .single, takesRegularFramesFrom: rig.loop.now(),
                                    onFrame: { log.frames.append($0) }, onFinish: { log.outcome = $0 })
    try capture.start()
    #expect(rig.controller.pipeline.bracket.isEngaged)
    rig.loop.advance(by: .seconds(3))
    guard case .complete? = log.outcome else { Issue.record("\(String(describing: log.outcome))"); return }
    #expect(!rig.controller.pipeline.bracket.isEngaged)
    let bracket = try BracketEngine(camera: rig.controller, plan: try BracketPlan.evPreset(count: 3, stepEV: 1),
                                    onFrame: { _ in }, onFinish: { _ in })
    try bracket.start()
    #expect(!rig.controller.pipeline.bracket.isEngaged)
}
