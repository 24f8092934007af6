import Foundation
import Hardware
import ManualLoop
import Testing
@testable import Camera
@testable import SimulatedHardware

/// Video HDR on the simulated IMX708: the rendering's stated amounts (docs/video-hdr.md), HdrMode
/// on requests and in metadata, the sensor's own HDR mode through the provider, and the tone
/// measure `auto` decides from.
@Suite struct VideoHDRSimulationTests {
    /// One 1152x648 BGR888 frame of the backlit chart (the whole field: the 2304x1296 mode), exposed so an 18 % grey reads 0.18 at
    /// `gain`, with HdrMode `mode` (nil: the camera is not asked).
    static func backlitFrame(hdrMode: HdrModeValue?, gain: Double = 1, seed: UInt64 = 5) throws -> FrameBuffer {
        let loop = ManualEventLoop()
        let scene = SimulatedScene(lighting: .backlit)
        let imx708 = try sensor("imx708")
        let provider = SimulatedCameraProvider(loop: loop, sensor: imx708, scene: scene, seed: seed)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let log = DeviceLog()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { log.completed.append(c) } }
        let stream = StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 1152, height: 648))
        let raw = StreamConfiguration(role: .raw, pixelFormat: PixelFormat("SRGGB10"), size: PixelSize(width: 2304, height: 1296))
        _ = try camera.configure([stream, raw])
        #expect(camera.activeMode?.size == raw.size)
        let exposure = scene.correctExposureMicrosecondsISO(fNumber: imx708.lens?.fNumber ?? 2.8) / imx708.isoPerGain / gain
        var controls: ControlList = [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(Int32(exposure.rounded())),
                                     ControlName.analogueGain: .float(Float(gain)), ControlName.awbEnable: .bool(false),
                                     ControlName.colourGains: .floatArray([2.1, 1.75])]
        if let hdrMode { controls[ControlName.hdrMode] = .int32(hdrMode.rawValue) }
        try camera.start(controls: controls)
        try camera.queueRequest(CaptureRequest(cookie: 1, controls: controls, roles: [.viewfinder]))
        loop.advance(by: .milliseconds(150))
        camera.stop()
        let completed = try #require(log.completed.first { $0.isComplete })
        if let hdrMode { #expect(completed.metadata[ControlName.hdrMode]?.int64Value == Int64(hdrMode.rawValue)) }
        return try #require(completed.buffers[.viewfinder])
    }

    /// Green codes of a BGR888 frame over chart units x0…x1, y0…y1.
    static func greens(_ f: FrameBuffer, x: ClosedRange<Double>, y: ClosedRange<Double>) -> [Double] {
        let sx = Double(f.size.width) / TestChart.aspect, sy = Double(f.size.height)
        return f.withUnsafeBytes { bytes in
            (Int(y.lowerBound * sy)..<Int(y.upperBound * sy)).flatMap { row in
                (Int(x.lowerBound * sx)..<Int(x.upperBound * sx)).map { Double(bytes[row * f.stride + $0 * 3 + 1]) }
            }
        }
    }

    static func meanAndDeviation(_ v: [Double]) -> (mean: Double, deviation: Double) {
        let mean = v.reduce(0, +) / Double(max(v.count, 1))
        return (mean, (v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(max(v.count - 1, 1))).squareRoot())
    }

    @Test func hdrKeepsTheWindowUnclippedAndHalvesTheShadowsReadNoise() throws {
        let plain = try Self.backlitFrame(hdrMode: .off)
        let hdr = try Self.backlitFrame(hdrMode: .multiExposure)
        // The window: 3× a white diffuser, clipped plain, within HDR's 4× range.
        let window = (TestChart.windowLeft + 0.05)...(TestChart.aspect - 0.05), middle = 0.3...0.7
        let plainWindow = Self.meanAndDeviation(Self.greens(plain, x: window, y: middle))
        let hdrWindow = Self.meanAndDeviation(Self.greens(hdr, x: window, y: middle))
        print("window: plain \(plainWindow), HDR \(hdrWindow)")
        #expect(plainWindow.mean >= 254.5)
        // Rolled off, not clipped: where the stated curve puts 3× white (sRGB of hdrToneMap(3)).
        let rolled = SimulatedFrameRenderer.hdrToneMap(TestChart.windowRadiance)
        let expected = (1.055 * pow(rolled, 1 / 2.4) - 0.055) * 255
        #expect(abs(hdrWindow.mean - expected) < 3, "window \(hdrWindow.mean), the curve says \(expected)")
        // A mid-grey part of the board outside the bands stays about where it was (the roll-off's
        // slope is 1 at black and mid grey lands at 0.154 instead of 0.18).
        let board = 0.98...1.06, boardRows = 0.40...0.48
        let plainBoard = Self.meanAndDeviation(Self.greens(plain, x: board, y: boardRows)).mean
        let hdrBoard = Self.meanAndDeviation(Self.greens(hdr, x: board, y: boardRows)).mean
        print("board: plain \(plainBoard), HDR \(hdrBoard)")
        #expect(hdrBoard < plainBoard && hdrBoard > plainBoard - 20)

        // Deep shadow at gain 8, where read noise dominates: HDR's noise is well under the plain one's.
        let plainShadow = Self.meanAndDeviation(Self.greens(try Self.backlitFrame(hdrMode: .off, gain: 8), x: 0.005...0.035, y: 0.3...0.7))
        let hdrShadow = Self.meanAndDeviation(Self.greens(try Self.backlitFrame(hdrMode: .multiExposure, gain: 8), x: 0.005...0.035, y: 0.3...0.7))
        print("shadow at gain 8: plain \(plainShadow), HDR \(hdrShadow)")
        #expect(abs(hdrShadow.mean - plainShadow.mean) < 3, "the same shadow level")
        #expect(hdrShadow.deviation < 0.8 * plainShadow.deviation)
    }

    @Test func theToneMeasureSeesTheBacklitSceneAndNotTheEvenOne() throws {
        let backlit = try #require(FrameAnalysis.toneFractions(try Self.backlitFrame(hdrMode: .off)))
        #expect(backlit.clippedFraction > 0.15 && backlit.crushedFraction > 0.1, "\(backlit)")
        // In HDR the window is no longer clipped: auto counts highlights from code 191 instead.
        let inHDR = try Self.backlitFrame(hdrMode: .multiExposure)
        #expect(try #require(FrameAnalysis.toneFractions(inHDR)).clippedFraction < 0.01)
        #expect(try #require(FrameAnalysis.toneFractions(inHDR, clippedCode: 191)).clippedFraction > 0.15)
        let rig = try Rig()
        let log = rig.recordFrames()
        var even: VideoHDRPolicy.SceneMeasure?
        rig.taps.onEveryFrame = { completed in
            if let b = completed.buffers[rig.controller.processedRole] { even = FrameAnalysis.toneFractions(b) }
        }
        try rig.controller.startStreaming()
        rig.run(frames: 10, frameMicroseconds: 33_334)
        #expect(!log.states.isEmpty)
        let measure = try #require(even)
        #expect(measure.clippedFraction < 0.005 || measure.crushedFraction < 0.005, "an evenly lit chart is not high contrast: \(measure)")
    }

    @Test func hdrModeRidesOnRequestsAndComesBackInMetadata() throws {
        let rig = try Rig()
        let log = rig.recordFrames()
        try rig.controller.startStreaming()
        rig.run(frames: 5, frameMicroseconds: 33_334)
        #expect(log.states.last?.hdrMode == .off)
        #expect(log.states.last?.hdrLabel == "off")
        try rig.controller.setHdrMode(.multiExposure)
        rig.run(frames: 8, frameMicroseconds: 33_334)
        #expect(log.states.last?.hdrMode == .multiExposure)
        #expect(log.states.last?.hdrLabel == "MultiExposure")
        #expect(rig.camera.hdr.mode == .multiExposure)
        try rig.controller.setHdrMode(.multiExposureUnmerged)
        rig.run(frames: 8, frameMicroseconds: 33_334)
        let labels = Set(log.states.suffix(2).map(\.hdrLabel))
        #expect(labels == ["MultiExposureUnmerged/Short", "MultiExposureUnmerged/Long"], "\(labels)")
        try rig.controller.setHdrMode(nil)
        rig.run(frames: 8, frameMicroseconds: 33_334)
        #expect(log.states.last?.hdrLabel == "off")
        // libcamera 0.0.3 has no HdrMode: refused by name, nothing sent.
        let old = try Rig(libcamera: .debian0_0_3)
        #expect(throws: CameraError.self) { try old.controller.setHdrMode(.multiExposure) }
    }

    @Test func theSensorsHDRModeIsTheOnlyModeWhileItIsOn() throws {
        let loop = ManualEventLoop()
        let imx708 = try sensor("imx708")
        let provider = SimulatedCameraProvider(loop: loop, sensor: imx708, seed: 3)
        provider.maximumRenderSize = smallRenderSize
        #expect(provider.hasSensorHDR(cameraID: provider.cameraID))
        try provider.setSensorHDR(true, cameraID: provider.cameraID)
        let device = try provider.open(id: provider.cameraID)
        final class States: @unchecked Sendable { var all: [FrameState] = [] }
        let seen = States()
        let controller = try CameraController(device: device, sensor: imx708, loop: loop, sensorHDRSwitchable: true, sensorHDROn: true,
                                              pipeline: FramePipeline(streaming: [FrameObserver("test") { seen.all.append($0.state) }]))
        #expect(controller.formats.first { $0.label == "1920x1080@56" }?.videoHDR.sensor == true)
        try controller.selectFormat("1920x1080@56")
        try controller.startStreaming()
        loop.advance(by: .seconds(1))
        let states = seen.all
        let camera = try #require(provider.openedCamera)
        #expect(camera.activeMode?.hdr == true && camera.activeMode?.size == PixelSize(width: 2304, height: 1296))
        // 30 fps at most in the HDR mode, whatever the format's 56.
        #expect(states.count >= 25 && states.count <= 31, "\(states.count) frames in 1 s")
        #expect(states.allSatisfy { $0.hdrLabel == "sensor" && ($0.frameDurationMicroseconds ?? 0) >= 33_333 })
        // A sensor without an HDR mode refuses the switch.
        let plain = SimulatedCameraProvider(loop: loop, sensor: try sensor("imx477"))
        #expect(!plain.hasSensorHDR(cameraID: plain.cameraID))
        #expect(throws: HardwareError.self) { try plain.setSensorHDR(true, cameraID: plain.cameraID) }
    }
}
