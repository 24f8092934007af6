import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

/// Collects what an engine reports.
final class BracketLog: @unchecked Sendable {
    var frames: [BracketEngine.MatchedFrame] = []
    var outcome: BracketEngine.Outcome?
    var reason: String? { if case .failed(let r, _)? = outcome { r } else { nil } }
    var statistics: BracketEngine.Statistics? {
        switch outcome {
        case .complete(let s)?, .failed(_, let s)?: s
        case nil: nil
        }
    }
}

/// A rig with exposure delay 2, gain delay 2, 4 requests in flight, streaming and metered.
func streamingRig(exposureDelay: Int = 2, gainDelay: Int = 2) throws -> Rig {
    let rig = try Rig { $0.exposureDelayFrames = exposureDelay; $0.gainDelayFrames = gainDelay }
    rig.controller.requestsInFlight = 4
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(500))
    return rig
}

func runBracket(_ rig: Rig, _ plan: BracketPlan, gate: any BracketFrameGate = UngatedFrames(), roles: [StreamRole]? = nil,
                takesRegularFramesFrom trigger: MonotonicTime? = nil) throws -> (BracketEngine, BracketLog) {
    let log = BracketLog()
    let engine = try BracketEngine(camera: rig.controller, plan: plan, gate: gate, roles: roles, takesRegularFramesFrom: trigger,
                                   onFrame: { log.frames.append($0) }, onFinish: { log.outcome = $0 })
    try engine.start()
    rig.loop.advance(by: .seconds(3))
    return (engine, log)
}

@Test func everyKeptFrameUsedItsStepSettingsWithDelaysTwoAndFourInFlight() throws {
    let rig = try streamingRig()
    let (engine, log) = try runBracket(rig, try BracketPlan.evPreset(count: 5, stepEV: 1))
    guard case .complete(let stats)? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
    #expect(log.frames.map(\.index).sorted() == [0, 1, 2, 3, 4])
    for frame in log.frames {
        // The metadata of the saved frame itself, not the engine's copy of it.
        let exposure = try #require(frame.request.metadata[ControlName.exposureTime]?.int64Value)
        let gain = try #require(frame.request.metadata[ControlName.analogueGain]?.doubleValue)
        let equal = abs(Double(exposure) - Double(frame.requested.exposureMicroseconds)) <= 0.02 * Double(exposure)
            && abs(gain - frame.requested.analogueGain) <= 0.02 * gain
        #expect(equal || frame.isClamped, "step \(frame.index): asked \(frame.requested), got \(exposure) us ×\(gain)")
    }
    // EV steps double the exposure product per EV.
    let products = Dictionary(uniqueKeysWithValues: log.frames.map { ($0.requested.evBias ?? 99, Double($0.actualExposureMicroseconds ?? 0) * ($0.actualGain ?? 0)) })
    let base = try #require(products[0])
    for (bias, product) in products { #expect(abs(log2(product / base) - bias) < 0.05) }
    // N frames plus the pipeline delay, nothing more.
    #expect(stats.sensorFramesUsed == 5 + engine.pipelineDelayFrames)
    #expect(stats.requestsQueued == 5 + engine.pipelineDelayFrames)
    #expect(stats.framesSkipped >= 1)  // frames carrying the previous settings were skipped
}

@Test func aClampedStepIsFlaggedNeverRelabelled() throws {
    let rig = try streamingRig()
    // ISO 3200 = gain 32, beyond the IMX708's 16: the sensor uses 16.
    let plan = try BracketPlan.manual([(10_000, 400), (10_000, 3200), (20_000, 200)])
    let (_, log) = try runBracket(rig, plan)
    guard case .complete? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
    let byIndex = Dictionary(uniqueKeysWithValues: log.frames.map { ($0.index, $0) })
    #expect(byIndex[0]?.isClamped == false && byIndex[0]?.actualGain == 4)
    #expect(byIndex[1]?.isClamped == true)
    #expect(byIndex[1]?.actualGain == 16)
    #expect(byIndex[1]?.requested.analogueGain == 32)
    #expect(byIndex[2]?.isClamped == false && byIndex[2]?.actualExposureMicroseconds == 20_000)
}

@Test func disconnectMidBracketFailsWithAClearReasonKeepingEarlierFrames() throws {
    let rig = try streamingRig()
    let log = BracketLog()
    let engine = try BracketEngine(camera: rig.controller, plan: try BracketPlan.evPreset(count: 9, stepEV: 0.5),
                                   onFrame: { log.frames.append($0) }, onFinish: { log.outcome = $0 })
    try engine.start()
    // Run until a few frames were kept, then unplug.
    for _ in 0..<200 where log.frames.count < 3 { rig.loop.advance(by: .milliseconds(5)) }
    #expect(log.frames.count >= 3)
    let kept = log.frames.count
    rig.camera.simulateDisconnect()
    rig.loop.advance(by: .seconds(5))
    #expect(log.reason?.contains("disconnected") == true)
    #expect(log.frames.count == kept)
}

@Test func aStalledSensorTimesOutInTime() throws {
    let rig = try streamingRig()
    let log = BracketLog()
    let engine = try BracketEngine(camera: rig.controller, plan: try BracketPlan.evPreset(count: 3, stepEV: 1),
                                   onFrame: { log.frames.append($0) }, onFinish: { log.outcome = $0 })
    rig.camera.stall()
    try engine.start()
    rig.loop.advance(by: .seconds(30))
    #expect(log.reason?.contains("timeout") == true)
}

/// Asks for one retake of step 1 and waits 50 ms before step 2.
final class ScriptedGate: BracketFrameGate {
    var judged: [(Int, Int)] = []
    var waited = false
    func readiness(index: Int, exposure: Duration, now: MonotonicTime) -> GateReadiness {
        if index == 2 && !waited { waited = true; return .wait(.milliseconds(50)) }
        return .go
    }
    func judge(index: Int, attempt: Int, exposureStart: MonotonicTime, exposure: Duration) -> FrameVerdict {
        judged.append((index, attempt))
        return FrameVerdict(retake: index == 1 && attempt == 1, status: .active, measuredBlurPixels: 0.5)
    }
}

@Test func theGateIsAskedAndARetakeIsTakenAgainAndCounted() throws {
    let rig = try streamingRig()
    let gate = ScriptedGate()
    let (_, log) = try runBracket(rig, try BracketPlan.evPreset(count: 3, stepEV: 1), gate: gate)
    guard case .complete(let stats)? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
    #expect(gate.waited)
    #expect(stats.retakes == 1)
    #expect(log.frames.first { $0.index == 1 }?.attempts == 2)
    #expect(log.frames.allSatisfy { $0.verdict.status == .active })
    #expect(gate.judged.contains { $0 == (1, 2) })
}

@Test func evPresetOrderIsZeroThenAlternatingOutward() throws {
    #expect(BracketPlan.evPresetBiases(count: 5, stepEV: 1) == [0, -1, 1, -2, 2])
    #expect(BracketPlan.evPresetBiases(count: 4, stepEV: 0.5) == [0, -0.5, 0.5, -1])
    #expect(BracketPlan.evPresetBiases(count: 1, stepEV: 2) == [0])
    #expect(throws: CameraError.self) { try BracketPlan.evPreset(count: 0, stepEV: 1) }
    #expect(throws: CameraError.self) { try BracketPlan.evPreset(count: 3, stepEV: 0) }
}

@Test func autoRangeAddsStepsWhileClippedOrCrushedAndIsBounded() {
    let policy = AutoRangePolicy()
    let clipped = TonalExtremes(clippedFraction: 0.2, crushedFraction: 0)
    let fine = TonalExtremes(clippedFraction: 0, crushedFraction: 0)
    let crushed = TonalExtremes(clippedFraction: 0, crushedFraction: 0.3)
    #expect(policy.additionalBiases(measured: [(0, fine), (-2, clipped), (2, crushed)], added: (0, 0), room: 10) == [-4, 4])
    #expect(policy.additionalBiases(measured: [(0, fine), (-2, fine), (2, fine)], added: (0, 0), room: 10) == [])
    #expect(policy.additionalBiases(measured: [(-2, clipped), (2, fine)], added: (3, 0), room: 10) == [])  // bounded
    #expect(policy.additionalBiases(measured: [(-2, clipped), (2, crushed)], added: (0, 0), room: 1) == [-4])
}

@Test func autoRangeRunsOnTheSimulatedSensorAndStaysWithinItsBounds() throws {
    let rig = try streamingRig()
    let (engine, log) = try runBracket(rig, BracketPlan.autoRange())
    guard case .complete? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
    #expect(engine.steps.count >= 3 && engine.steps.count <= 3 + 2 * AutoRangePolicy().maximumExtraSteps)
    #expect(log.frames.count == engine.steps.count)
}

@Test func capacityFollowsMemoryAndFrameSize() {
    let full = BracketCapacity(rawSize: PixelSize(width: 4608, height: 2592), rgbSize: PixelSize(width: 4608, height: 2592),
                               memoryBudgetBytes: 512 << 20)
    #expect(full.bytesPerFrame == 4608 * 2592 * 5)
    #expect(full.maximumFrames == Int((512 << 20) / (4608 * 2592 * 5)))
    #expect(BracketCapacity(rawSize: nil, rgbSize: PixelSize(width: 64, height: 64), memoryBudgetBytes: 1 << 30).maximumFrames == 32)
}

@Test func aSmallRequestWindowStillCompletesFrameAccurately() throws {
    let rig = try streamingRig()
    let log = BracketLog()
    let engine = try BracketEngine(camera: rig.controller, plan: try BracketPlan.evPreset(count: 9, stepEV: 0.5),
                                   maximumRequestsInFlight: 3, onFrame: { log.frames.append($0) }, onFinish: { log.outcome = $0 })
    try engine.start()
    rig.loop.advance(by: .seconds(3))
    guard case .complete(let stats)? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
    #expect(stats.maximumOutstanding <= 3)
    #expect(log.frames.map(\.index).sorted() == Array(0..<9))
    #expect(log.frames.allSatisfy { !$0.isClamped && abs(Double(($0.actualExposureMicroseconds ?? 0) - $0.requested.exposureMicroseconds)) <= 0.02 * Double($0.requested.exposureMicroseconds) })
}

/// A typed count is bounded before anything is made from it (the console fuzzer found
/// `bracket ev 99999999999999998 1` allocating an array of that many biases).
@Test func anAbsurdPresetCountIsRefusedBeforeAnythingIsAllocated() throws {
    let error = #expect(throws: CameraError.self) { try BracketPlan.evPreset(count: 99_999_999_999_999_998, stepEV: 1) }
    #expect(error?.kind == .outOfRange && error?.message.contains("more than \(BracketPlan.maximumSteps)") == true)
    #expect(try BracketPlan.evPreset(count: BracketPlan.maximumSteps, stepEV: 0.5).steps.count == BracketPlan.maximumSteps)
}

/// A bracket started the moment another ends (before any regular frame) meters from the regular
/// frames, not from the last bracket's +1 EV step: back-to-back brackets do not compound (the soak
/// found exposures doubling bracket after bracket until one took seconds per frame).
@Test func backToBackBracketsMeterFromRegularFramesNotTheLastStep() throws {
    let rig = try streamingRig()
    let plan = try BracketPlan.evList([0, 1])  // the +1 EV step is queued last
    let first = BracketLog(), second = BracketLog()
    final class Engines: @unchecked Sendable { var next: BracketEngine? }
    let engines = Engines()
    let controller = rig.controller
    let a = try BracketEngine(camera: controller, plan: plan, gate: UngatedFrames(),
                              onFrame: { first.frames.append($0) }, onFinish: { outcome in
        first.outcome = outcome
        // Straight on, as the soak's next `bracket` does: `latest` is still the last step's frame.
        engines.next = try? BracketEngine(camera: controller, plan: plan, gate: UngatedFrames(),
                                          onFrame: { second.frames.append($0) }, onFinish: { second.outcome = $0 })
        try? engines.next?.start()
    })
    try a.start()
    rig.loop.advance(by: .seconds(4))
    let bases = [first, second].compactMap { log in
        log.frames.first(where: { $0.requested.evBias == 0 }).map { Double($0.requested.exposureMicroseconds) * $0.requested.analogueGain }
    }
    #expect(engines.next != nil)
    try #require(bases.count == 2, "both brackets kept their EV 0 frame")
    let ratio = bases[1] / bases[0]
    #expect(abs(log2(ratio)) < 0.25, "the second bracket's EV 0 is \(ratio)× the first's")
}
