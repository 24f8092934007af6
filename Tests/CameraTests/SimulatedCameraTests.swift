import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
@testable import Camera

/// A raw simulated device with a completion log, no controller.
final class DeviceLog: @unchecked Sendable {
    var completed: [CompletedRequest] = []
    var disconnected = false
}

func openDevice(_ model: String = "imx708", seed: UInt64 = 3, scene: SimulatedScene = SimulatedScene())
    throws -> (ManualEventLoop, SimulatedCamera, DeviceLog) {
    let loop = ManualEventLoop()
    let provider = SimulatedCameraProvider(loop: loop, sensor: try sensor(model), scene: scene, seed: seed)
    provider.maximumRenderSize = smallRenderSize
    let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
    let log = DeviceLog()
    camera.setEventHandler { event in
        switch event {
        case .requestCompleted(let c): log.completed.append(c)
        case .disconnected: log.disconnected = true
        }
    }
    return (loop, camera, log)
}

let manualStart: ControlList = [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(5000),
                                ControlName.analogueGain: .float(2), ControlName.awbEnable: .bool(false),
                                ControlName.colourGains: .floatArray([2, 1.5])]

@Test(arguments: ["imx708", "imx219"])
func exposureAndGainTakeEffectAfterTheirDelaysCountedThroughQueuedRequests(model: String) throws {
    let (loop, camera, log) = try openDevice(model)
    _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 640, height: 480))])
    try camera.start(controls: manualStart)
    for cookie in UInt64(1)...4 { try camera.queueRequest(CaptureRequest(cookie: cookie, roles: [])) }
    try camera.queueRequest(CaptureRequest(cookie: 5, controls: [ControlName.exposureTime: .int32(7000),
                                                                 ControlName.analogueGain: .float(3)], roles: []))
    for cookie in UInt64(6)...12 { try camera.queueRequest(CaptureRequest(cookie: cookie, roles: [])) }
    loop.advance(by: .seconds(1))
    #expect(log.completed.map(\.cookie) == Array(1...12))
    #expect(log.completed.map(\.sequence) == Array(0...11))  // all manual: no start-up frame dropped
    let s = try sensor(model)
    // Request 5 is taken for frame 4; exposure applies from frame 4 + delay, gain from 4 + its delay.
    for c in log.completed {
        let exposure = c.metadata[ControlName.exposureTime]?.int64Value
        let gain = c.metadata[ControlName.analogueGain]?.doubleValue
        #expect(exposure == (c.sequence >= 4 + UInt64(s.exposureDelayFrames) ? 7000 : 5000), "frame \(c.sequence)")
        #expect(gain == (c.sequence >= 4 + UInt64(s.gainDelayFrames) ? 3 : 2), "frame \(c.sequence)")
        #expect(c.metadata[ControlName.colourGains]?.doubleArray == [2, 1.5])
    }
    // Frames are paced by the clock: each timestamp one frame duration after the last.
    for (a, b) in zip(log.completed, log.completed.dropFirst()) {
        let duration = try #require(a.metadata[ControlName.frameDuration]?.int64Value)
        #expect(b.sensorTimestamp - a.sensorTimestamp == .microseconds(duration))
    }
}

@Test func oneStartupFrameIsDroppedUnlessEverythingIsManual() throws {
    let (loop, camera, log) = try openDevice()
    _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 640, height: 480))])
    try camera.start(controls: [:])
    for cookie in UInt64(1)...3 { try camera.queueRequest(CaptureRequest(cookie: cookie, roles: [.viewfinder])) }
    loop.advance(by: .milliseconds(200))
    #expect(log.completed.map(\.sequence) == [1, 2, 3])
    #expect(camera.framesProduced > 3)  // frames with no request are produced and dropped
}

@Test func framesAreDeterministicForASeedAndDifferBySeed() throws {
    func frame(seed: UInt64) throws -> [UInt8] {
        let (loop, camera, log) = try openDevice(seed: seed)
        _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 1920, height: 1080)),
                                  StreamConfiguration(role: .raw, pixelFormat: .srggb12, size: PixelSize(width: 2304, height: 1296))])
        try camera.start(controls: [:])
        for cookie in UInt64(1)...6 { try camera.queueRequest(CaptureRequest(cookie: cookie, roles: [.viewfinder, .raw])) }
        loop.advance(by: .milliseconds(300))
        let last = try #require(log.completed.last)
        let raw = try #require(last.buffers[.raw])
        #expect(raw.pixelFormat == PixelFormat("SRGGB10") && raw.size == PixelSize(width: 96, height: 54))
        #expect(raw.byteCount == 96 * 54 * 2)
        let vf = try #require(last.buffers[.viewfinder])
        #expect(vf.size == PixelSize(width: 96, height: 54) && vf.stride == 96 * 3)
        return vf.bytes + raw.bytes
    }
    #expect(try frame(seed: 11) == frame(seed: 11))
    #expect(try frame(seed: 11) != frame(seed: 12))
}

@Test func configurationIsValidatedAndAdjusted() throws {
    let (_, camera, _) = try openDevice()
    let (status, streams) = try camera.configure([
        StreamConfiguration(role: .viewfinder, pixelFormat: PixelFormat("NV21"), size: PixelSize(width: 641, height: 20)),
        StreamConfiguration(role: .raw, pixelFormat: .srggb12, size: PixelSize(width: 1500, height: 860)),
    ])
    #expect(status == .adjusted)
    #expect(streams[0].pixelFormat == .bgr888 && streams[0].size == PixelSize(width: 640, height: 64))
    #expect(streams[1].pixelFormat == PixelFormat("SRGGB10") && streams[1].size == PixelSize(width: 1536, height: 864))
    #expect(camera.activeMode?.maximumFps == 120.12)
    #expect(camera.configuredControlInfo[ControlName.frameDurationLimits]?.minimum == .int64(8326))
    #expect(try camera.streamFormats(for: .raw).first?.sizes.count == 3)
    // HdrMode with all its values, as a Pi 5's IMX708 (the sensor has an HDR mode).
    #expect(camera.controlInfo[ControlName.hdrMode]?.maximum == .int32(HdrModeValue.night.rawValue))
    #expect(camera.controlInfo[ControlName.lensPosition]?.maximum == .float(15))
}

@Test func unsupportedControlsAndUseAfterDisconnectThrow() throws {
    let (loop, camera, log) = try openDevice()
    _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 640, height: 480))])
    try camera.start(controls: [:])
    #expect(throws: HardwareError.self) {
        try camera.queueRequest(CaptureRequest(cookie: 1, controls: ["Sharpness": .float(1)], roles: []))
    }
    try camera.queueRequest(CaptureRequest(cookie: 2, roles: []))
    try camera.queueRequest(CaptureRequest(cookie: 3, roles: []))
    camera.simulateDisconnect()
    #expect(log.disconnected)
    #expect(log.completed.map(\.isComplete) == [false, false])
    loop.advance(by: .seconds(1))
    #expect(log.completed.count == 2)
    #expect {
        try camera.queueRequest(CaptureRequest(cookie: 4, roles: []))
    } throws: { ($0 as? HardwareError)?.kind == .disconnected }
}

@Test func aStallPausesFramesOnTheClock() throws {
    let (loop, camera, log) = try openDevice()
    _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 640, height: 480))])
    try camera.start(controls: manualStart)
    for cookie in UInt64(1)...40 { try camera.queueRequest(CaptureRequest(cookie: cookie, roles: [])) }
    loop.advance(by: .milliseconds(50))
    let before = log.completed.count
    camera.stall(for: .seconds(1))
    loop.advance(by: .milliseconds(900))
    #expect(log.completed.count <= before + 1)  // at most the frame already being exposed
    loop.advance(by: .milliseconds(200))
    #expect(log.completed.count > before + 5)
}

@Test func restartingWithoutReconfiguringStartsTheDelayLinesAfresh() throws {
    let (loop, camera, log) = try openDevice()
    _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 640, height: 480))])
    try camera.start(controls: manualStart)
    for cookie in UInt64(1)...3 { try camera.queueRequest(CaptureRequest(cookie: cookie, roles: [])) }
    try camera.queueRequest(CaptureRequest(cookie: 4, controls: [ControlName.exposureTime: .int32(9000)], roles: []))
    loop.advance(by: .milliseconds(30))  // stop before the new exposure lands
    camera.stop()
    try camera.start(controls: manualStart)
    for cookie in UInt64(10)...20 { try camera.queueRequest(CaptureRequest(cookie: cookie, roles: [])) }
    loop.advance(by: .milliseconds(200))
    let second = log.completed.filter { $0.cookie >= 10 }
    #expect(second.count == 11)
    #expect(second.allSatisfy { $0.metadata[ControlName.exposureTime] == .int32(5000) })
}
