import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

@Test func customExposureIsConfirmedByMetadataExactlyAfterTheModelledDelay() throws {
    let rig = try Rig()
    let log = rig.recordFrames()
    var cookies: [UInt64: UInt64] = [:]  // sequence -> cookie
    rig.taps.onFrame = { completed, state in log.states.append(state); cookies[state.sequence] = completed.cookie }
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(200))
    try rig.controller.setExposure(.custom(durationMicroseconds: 16_667, iso: 400))
    let carrier = rig.controller.lastQueuedCookie + 1
    rig.loop.advance(by: .milliseconds(400))
    let taken = try #require(cookies.first { $0.value == carrier }?.key)  // the frame that took the request
    let delay = UInt64(rig.controller.sensor.exposureDelayFrames)
    let after = log.states.filter { $0.sequence >= taken + delay }
    let before = log.states.filter { $0.sequence < taken + delay }
    #expect(after.count > 10)
    #expect(after.allSatisfy { $0.exposureDurationMicroseconds == 16_667 && $0.iso == 400 && $0.frameDurationMicroseconds == 16_667 })
    #expect(before.allSatisfy { $0.exposureDurationMicroseconds != 16_667 })
    // The request waited behind the others in flight: it was taken a few frames after the call.
    #expect(taken >= (before.first?.sequence ?? 0) + 1)
    #expect(rig.controller.latest?.iso == 400)
}

@Test func customValuesOutOfRangeAreErrorsStatingTheRange() throws {
    let rig = try Rig()
    #expect {
        try rig.controller.setExposure(.custom(durationMicroseconds: 10, iso: 400))
    } throws: { error in
        let e = error as? CameraError
        return e?.kind == .outOfRange && e?.message.contains("26...112015443 us") == true
    }
    #expect {
        try rig.controller.setExposure(.custom(durationMicroseconds: 10_000, iso: 3200))
    } throws: { ($0 as? CameraError)?.message.contains("100...1600") == true }
    #expect(rig.controller.exposureMode == .auto)  // unchanged, nothing clamped
    #expect(throws: CameraError.self) { try rig.controller.setExposureBias(ev: 9) }
    #expect(throws: CameraError.self) { try rig.controller.setExposure(.locked) }  // no frame yet
}

@Test func autoExposureConvergesOverAboutSixFramesAndBiasMovesIt() throws {
    let scene = SimulatedScene(greyLuminanceCandelasPerSquareMetre: 400)
    let rig = try Rig(scene: scene)
    let log = rig.recordFrames()
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(300))
    // Correct exposure: 12.5 N² / L s at ISO 1 → µs × gain at ISO 100 per gain.
    let ideal = 12.5 * 1.8 * 1.8 / 400 * 1e6 / 100
    func product(_ s: FrameState) -> Double { Double(s.exposureDurationMicroseconds ?? 0) * (s.analogueGain ?? 0) }
    #expect(abs(product(log.states[0]) / ideal - 1) > 0.3)      // starts well off
    #expect(abs(product(log.states[10]) / ideal - 1) < 0.03)    // settled by ~6 frames + delay
    #expect(abs(try #require(rig.controller.exposureTargetOffsetEV)) < 0.15)

    try rig.controller.setExposureBias(ev: 1)
    rig.loop.advance(by: .milliseconds(300))
    #expect(abs(product(try #require(rig.controller.latest)) / (2 * ideal) - 1) < 0.03)
    #expect(abs(try #require(rig.controller.exposureTargetOffsetEV)) < 0.15)  // target moved with the bias

    // Locked holds the exposure when the scene brightens; the bias still scales it.
    try rig.controller.setExposure(.locked)
    let held = product(try #require(rig.controller.latest))
    rig.camera.scene.greyLuminanceCandelasPerSquareMetre = 500
    rig.loop.advance(by: .milliseconds(200))
    #expect(abs(product(try #require(rig.controller.latest)) / held - 1) < 0.01)
    // log2(1.25) = 0.32 stops over the target, as metered (the chart's whites clipping take a little).
    #expect(abs(try #require(rig.controller.exposureTargetOffsetEV) - 0.322) < 0.15)
    try rig.controller.setExposureBias(ev: 0)
    rig.loop.advance(by: .milliseconds(200))
    #expect(abs(product(try #require(rig.controller.latest)) / (held / 2) - 1) < 0.02)
}

@Test func brightnessFollowsExposureAndNoiseGrowsWithGain() throws {
    let rig = try Rig(scene: SimulatedScene(greyLuminanceCandelasPerSquareMetre: 10))
    try rig.controller.setWhiteBalance(.lockedGains(WhiteBalanceGains(red: 1.5, blue: 1.5)))
    func frames(_ mode: ExposureMode) throws -> [FrameBuffer] {
        try rig.controller.setExposure(mode)
        rig.loop.advance(by: .milliseconds(400))
        var buffers: [FrameBuffer] = []
        rig.taps.onFrame = { completed, _ in if let b = completed.buffers[.viewfinder] { buffers.append(b) } }
        rig.loop.advance(by: .milliseconds(200))
        rig.taps.onFrame = nil
        return buffers
    }
    try rig.controller.startStreaming()
    let short = try frames(.custom(durationMicroseconds: 10_000, iso: 100))
    let long = try frames(.custom(durationMicroseconds: 20_000, iso: 100))
    let gained = try frames(.custom(durationMicroseconds: 2_500, iso: 800))
    func green(_ b: FrameBuffer) -> Double { FrameAnalysis.channelMeans(b)?.green ?? 0 }
    #expect(abs(green(long[0]) / green(short[0]) - 2) < 0.1)
    #expect(abs(green(gained[0]) / green(long[0]) - 1) < 0.05)  // same exposure product
    /// Noise: spread of the difference between consecutive frames (the scene is static).
    func noise(_ frames: [FrameBuffer]) -> Double {
        let a = frames[0].bytes, b = frames[1].bytes
        let d = zip(a, b).map { Double($0) - Double($1) }
        return (d.map { $0 * $0 }.reduce(0, +) / Double(d.count)).squareRoot()
    }
    #expect(noise(gained) > 1.8 * noise(long))
}

@Test func aMinuteOfStreamingRunsOnTheManualClock() throws {
    let rig = try Rig()
    rig.camera.maximumRenderSize = PixelSize(width: 32, height: 18)
    let log = rig.recordFrames()
    try rig.controller.selectFormat("1920x1080@30")
    try rig.controller.startStreaming()
    rig.loop.advance(by: .seconds(60))
    #expect(abs(log.states.count - 1800) <= 2)
    #expect(zip(log.states, log.states.dropFirst()).allSatisfy {
        $1.sequence == $0.sequence + 1 && $1.sensorTimestamp - $0.sensorTimestamp == .microseconds(33_333)
    })
    #expect(rig.controller.isStreaming)
    rig.controller.stopStreaming()
    let count = log.states.count
    rig.loop.advance(by: .seconds(1))
    #expect(log.states.count == count)
}

/// `ev.offset` of a frame whose pixels are not drawn yet comes from its smaller drawing, and the
/// whole frame stays undrawn (a fleet rig asks `status` every second: drawing the whole of each
/// simulated frame for it held the rig's loop, and its shots landed late). Once the whole frame is
/// drawn (a capture, a preview), it meters itself; both agree within 0.05 EV.
@Test func theOffsetOfAnUndrawnFrameIsMeteredFromItsSmallerDrawing() throws {
    let rig = try Rig(maximumRenderSize: PixelSize(width: 1280, height: 720))
    try rig.controller.selectFormat("1920x1080@30")
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(300))
    let frame = try #require(rig.controller.latestRequest?.buffers[rig.controller.processedRole])
    let smaller = try #require(frame.smaller, "a frame wider than \(FrameBuffer.smallerWidth) has a smaller drawing")
    #expect(!frame.isRendered && !smaller.isRendered)

    let fromSmaller = try #require(rig.controller.exposureTargetOffsetEV)
    #expect(!frame.isRendered, "metering drew the whole frame")
    #expect(smaller.isRendered)

    _ = frame.bytes
    let fromWhole = try #require(rig.controller.exposureTargetOffsetEV)
    #expect(abs(fromWhole - fromSmaller) < 0.05, "whole \(fromWhole) EV, smaller \(fromSmaller) EV")
}
