import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

@Test func autoWhiteBalanceConvergesInAboutThreeFramesToTheLight() throws {
    let rig = try Rig(scene: SimulatedScene(illuminantKelvin: 3200))
    let log = rig.recordFrames()
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(150))
    let reported = try #require(log.states[4].colourTemperatureKelvin)
    #expect(abs(reported - 3200) / 3200 < 0.03)
    #expect(abs(try #require(rig.controller.temperatureAndTint).temperatureKelvin - 3200) / 3200 < 0.01)
}

@Test func lockedHoldsGainsAndGivenGainsAreCheckedAndApplied() throws {
    let rig = try Rig(scene: SimulatedScene(illuminantKelvin: 5000))
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(150))
    try rig.controller.setWhiteBalance(.locked)
    let held = try #require(rig.controller.latest?.colourGains)
    rig.camera.scene.illuminantKelvin = 2800
    rig.loop.advance(by: .milliseconds(150))
    let now = try #require(rig.controller.latest?.colourGains)
    #expect(abs(now.red - held.red) < 1e-5 && abs(now.blue - held.blue) < 1e-5)

    #expect {
        try rig.controller.setWhiteBalance(.lockedGains(WhiteBalanceGains(red: 40, blue: 1)))
    } throws: { error in
        let e = error as? CameraError
        return e?.kind == .outOfRange && e?.message.contains("red gain 40.0 is outside (0, 32]") == true
    }
    try rig.controller.setWhiteBalance(.lockedGains(WhiteBalanceGains(red: 2.25, blue: 1.75)))
    rig.loop.advance(by: .milliseconds(100))
    #expect(rig.controller.latest?.colourGains == WhiteBalanceGains(red: 2.25, blue: 1.75))

    try rig.controller.setWhiteBalance(TemperatureAndTint(temperatureKelvin: 6000, tint: 10))
    rig.loop.advance(by: .milliseconds(100))
    let light = try #require(rig.controller.temperatureAndTint)
    #expect(abs(light.temperatureKelvin - 6000) / 6000 < 0.01 && abs(light.tint - 10) < 1)
    #expect(abs(Double(rig.controller.latest?.colourTemperatureKelvin ?? 0) - 6000) / 6000 < 0.02)

    try rig.controller.setWhiteBalance(.auto)
    rig.loop.advance(by: .milliseconds(150))
    #expect(abs((rig.controller.latest?.colourTemperatureKelvin ?? 0) - 2800) / 2800 < 0.03)
}

@Test func grayWorldLockMakesTheFrameNeutral() throws {
    let rig = try Rig(scene: SimulatedScene(illuminantKelvin: 3000))
    // Daylight-ish gains under warm light (gains of 1 would leave blue near 0 after colour correction).
    try rig.controller.setWhiteBalance(.lockedGains(WhiteBalanceGains(red: 1.4, blue: 2)))
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(200))
    let first = try #require(rig.controller.latestRequest?.buffers[.viewfinder])
    let before = try #require(FrameAnalysis.channelMeans(first))
    #expect(before.blue < 0.6 * before.green)  // warm light, too little correction: orange
    let gains = try rig.controller.lockWhiteBalanceGrayWorld()
    rig.loop.advance(by: .milliseconds(200))
    let second = try #require(rig.controller.latestRequest?.buffers[.viewfinder])
    let after = try #require(FrameAnalysis.channelMeans(second))
    #expect(abs(after.red / after.green - 1) < 0.04 && abs(after.blue / after.green - 1) < 0.04, "\(before) -> \(after)")
    #expect(rig.controller.whiteBalanceMode == .lockedGains(gains))
    // Within 5 %: the chart's colour patches average a little off grey, which gray-world takes for the light.
    #expect(abs(rig.controller.whiteBalanceModel.temperatureAndTint(for: gains).temperatureKelvin - 3000) / 3000 < 0.05)
}

@Test func allManualStartSkipsTheStartupFrameAndBracketRequestsComplete() throws {
    let rig = try Rig()
    let log = rig.recordFrames()
    try rig.controller.setExposure(.custom(durationMicroseconds: 8000, iso: 200))
    try rig.controller.setWhiteBalance(.lockedGains(WhiteBalanceGains(red: 2, blue: 1.6)))
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(100))
    #expect(log.states.first?.sequence == 0)
    var bracket: [CompletedRequest] = []
    let cookie = try rig.controller.queueRequest(controls: [ControlName.exposureTime: .int32(2000)]) { bracket.append($0) }
    let seen = log.states.count
    rig.loop.advance(by: .milliseconds(100))
    #expect(bracket.map(\.cookie) == [cookie])
    #expect(bracket.first?.isComplete == true)
    #expect(bracket.first?.buffers[.raw]?.pixelFormat == PixelFormat("SRGGB10"))
    #expect(bracket.first?.buffers[.viewfinder] != nil)
    #expect(log.states.count > seen)  // regular frames continue alongside
    #expect(!log.states.contains { $0.exposureDurationMicroseconds == 2000 && $0.sequence < bracket[0].sequence })
}

@Test func disconnectStopsStreamingAndIsReported() throws {
    let rig = try Rig()
    var disconnected = false
    rig.taps.onEvent = { if case .disconnected = $0 { disconnected = true } }
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(100))
    rig.camera.simulateDisconnect()
    rig.loop.run()
    #expect(disconnected)
    #expect(!rig.controller.isStreaming)
    #expect(throws: HardwareError.self) { try rig.controller.startStreaming() }
}
