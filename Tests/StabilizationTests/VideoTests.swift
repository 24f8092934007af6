import Camera
import Hardware
import Motion
import SimulatedHardware
import Testing
@testable import Stabilization

/// RMS of the frame-to-frame steps of a path, pixels.
func jitter(_ path: [SIMD2<Double>]) -> Double {
    guard path.count > 1 else { return 0 }
    let squares = zip(path.dropFirst(), path).map { let d = $0 - $1; return (d * d).sum() }
    return (squares.reduce(0, +) / Double(squares.count)).squareRoot()
}

/// Streams `seconds` of 30 fps video timing through a planner for `mode` with handheld motion;
/// returns (raw jitter, displayed jitter) measured against the ground truth, and the crops.
func eisRun(_ mode: StabilizationMode, seconds: Int = 10) throws -> (off: Double, on: Double, crops: [EISCrop], planner: EISCropPlanner) {
    let rig = try Rig(format: "1920x1080")
    try rig.move("handheld")
    rig.loop.advance(by: .seconds(1))
    rig.stabilization.setVideoPreferred(mode)
    #expect(rig.stabilization.video.active == mode)
    let planner = try #require(try rig.stabilization.makeCropPlanner())
    var crops: [EISCrop] = []
    for _ in 0..<(30 * seconds) {
        rig.loop.advance(by: .microseconds(33_333))
        let t = rig.loop.now() - .milliseconds(30)  // the frame's mid-exposure; its samples have arrived
        let q = try #require(BodyRotation.orientation(of: rig.tracker, at: t))
        crops += planner.push(frameTime: t, orientation: q)
    }
    crops += planner.flush()
    let t0 = try #require(crops.first?.frameTime)
    let reference = truthOrientation(rig, at: t0)
    let truthPath = crops.map { planner.project((reference.conjugate * truthOrientation(rig, at: $0.frameTime)).normalized) }
    let displayed = zip(truthPath, crops).map { $0 - $1.offsetPixels }
    return (jitter(truthPath), jitter(displayed), crops, planner)
}

@Suite("Video stabilization")
struct VideoTests {
    @Test("active mode follows the format table's list for every format, preferred mode and rate")
    func agreesWithTable() throws {
        let rig = try Rig(format: "1920x1080")
        for format in rig.controller.formats {
            for preferred in StabilizationMode.allCases {
                for fps in [30.0, format.maximumFps] {
                    let active = VideoStabilization.resolve(preferred: preferred, format: format, framesPerSecond: fps, imuHealthy: true)
                    #expect(format.stabilizationModes.contains(active), "\(format.label) \(preferred) → \(active)")
                    if preferred != .auto && preferred != .off {
                        #expect(active == (format.stabilizationModes.contains(preferred) ? preferred : .off))
                    }
                    #expect(VideoStabilization.resolve(preferred: preferred, format: format, framesPerSecond: fps, imuHealthy: false) == .off)
                }
            }
        }
        // The IMX708 table has formats with and without the cinematic headroom.
        #expect(rig.controller.formats.contains { $0.stabilizationModes.contains(.cinematic) })
        #expect(rig.controller.formats.contains { !$0.stabilizationModes.contains(.standard) })
    }

    @Test("auto picks cinematic at 30 fps and standard at 50 fps on 1080p; a wish the format cannot meet leaves it off")
    func autoAndFallback() throws {
        let rig = try Rig(format: "1920x1080@30")
        rig.stabilization.setVideoPreferred(.auto)
        #expect(rig.stabilization.video.active == .cinematic)
        try rig.controller.selectFormat("1920x1080@50")
        rig.stabilization.formatChanged(rig.controller.activeFormat)
        #expect(rig.stabilization.video.active == .standard)
        let bare = try #require(rig.controller.formats.first { !$0.stabilizationModes.contains(.standard) })
        try rig.controller.apply(FormatSelection(format: bare))
        rig.stabilization.formatChanged(rig.controller.activeFormat)
        rig.stabilization.setVideoPreferred(.cinematic)
        #expect(rig.stabilization.video.preferred == .cinematic && rig.stabilization.video.active == .off)
        #expect(try rig.stabilization.makeCropPlanner() == nil)
    }

    @Test("handheld EIS: Standard cuts frame-to-frame jitter by at least 60 %, Cinematic by at least 85 % and more than Standard")
    func jitterReduction() throws {
        let standard = try eisRun(.standard)
        let cinematic = try eisRun(.cinematic)
        print("EIS jitter (pixel-array px per frame): off \(standard.off), standard \(standard.on) " +
              "(\(100 * (1 - standard.on / standard.off)) % less), cinematic \(cinematic.on) (\(100 * (1 - cinematic.on / cinematic.off)) % less)")
        #expect(standard.on < 0.4 * standard.off)
        #expect(cinematic.on < 0.15 * cinematic.off)
        #expect(cinematic.on < standard.on)
        #expect(standard.crops.count == 300 && cinematic.crops.count == 300)
        for run in [standard, cinematic] {
            let field = run.planner.field, size = run.planner.cropSize
            for crop in run.crops {
                #expect(crop.rect.width == size.width && crop.rect.height == size.height)
                #expect(crop.rect.x >= 0 && crop.rect.y >= 0 && crop.rect.x + size.width <= field.width && crop.rect.y + size.height <= field.height)
            }
        }
        #expect(abs(Double(standard.planner.field.width) / Double(standard.planner.cropSize.width) - 1.10) < 0.01)
        #expect(abs(Double(cinematic.planner.field.width) / Double(cinematic.planner.cropSize.width) - 1.20) < 0.01)
    }
}

@Suite("EIS through ScalerCrop")
struct ScalerCropTests {
    @Test("each planned crop rides on a request as ScalerCrop and the frame reports it back")
    func throughTheCamera() throws {
        let rig = try Rig(format: "1920x1080@30")
        try rig.move("handheld")
        try rig.controller.startStreaming()
        rig.loop.advance(by: .seconds(1))
        rig.stabilization.setVideoPreferred(.standard)
        let planner = try #require(try rig.stabilization.makeCropPlanner())
        final class Log { var sent: [PixelRect] = []; var reported: [PixelRect] = [] }
        let log = Log()
        for _ in 0..<20 {
            rig.loop.advance(by: .microseconds(33_333))
            let t = rig.loop.now() - .milliseconds(30)
            let q = try #require(BodyRotation.orientation(of: rig.tracker, at: t))
            for crop in planner.push(frameTime: t, orientation: q) {
                let rect = try #require(rig.stabilization.scalerCrop(for: crop))
                log.sent.append(rect)
                try rig.controller.queueRequest(controls: [ControlName.scalerCrop: .rectangle(rect)]) { done in
                    if case .rectangle(let r)? = done.metadata[ControlName.scalerCrop] { log.reported.append(r) }
                }
            }
        }
        rig.loop.advance(by: .milliseconds(500))
        #expect(log.sent.count == 20)
        #expect(log.reported == log.sent)
        #expect(Set(log.sent.map(\.x)).count > 3, "the crop moves with the shake")
        let format = rig.controller.activeFormat.format
        #expect(log.sent.allSatisfy { $0.x >= format.sensorCrop.x && $0.x + $0.width <= format.sensorCrop.x + format.sensorCrop.width })
    }
}
