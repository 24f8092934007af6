import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
@testable import Camera

/// The repository's board/sensors directory.
let sensorDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("board/sensors")

func database() throws -> SensorDatabase { try SensorDatabase(directory: sensorDirectory) }

/// Rendered frame size for tests that need no pixels (the simulated camera renders full size by default).
let smallRenderSize = PixelSize(width: 96, height: 54)

func sensor(_ model: String) throws -> SensorDescription {
    guard let s = try database().sensor(model: model) else { throw CameraError(.database, "no \(model) in test database") }
    return s
}

/// A simulated camera and its controller on a manual clock.
struct Rig {
    let loop: ManualEventLoop
    let provider: SimulatedCameraProvider
    let camera: SimulatedCamera
    let controller: CameraController
    /// The camera as the controller sees it when the rig hides controls (`hiding`), else nil.
    let fewerControls: FewerControlsCamera?
    /// What the controller's pipeline and output hand the test (set and changed by the test).
    let taps: FrameTaps

    init(model: String = "imx708", scene: SimulatedScene = SimulatedScene(), seed: UInt64 = 7,
         motion: any MotionTruth = StillMotion(), exposureControl: Bool = true,
         libcamera: SimulatedLibcamera = .raspberryPi0_5, hiding: Set<String> = [],
         hidingAfterConfigure: Set<String> = [], maximumRenderSize: PixelSize = smallRenderSize,
         edit: (inout SensorDescription) -> Void = { _ in }) throws {
        var description = try sensor(model)
        edit(&description)
        loop = ManualEventLoop()
        provider = SimulatedCameraProvider(loop: loop, sensor: description, motion: motion, scene: scene, seed: seed)
        provider.exposureControl = exposureControl
        provider.maximumRenderSize = maximumRenderSize
        provider.libcamera = libcamera
        let device = try provider.open(id: provider.cameras()[0].id)
        guard let sim = device as? SimulatedCamera else { throw CameraError(.notReady, "not a simulated camera") }
        camera = sim
        let listed = hiding.isEmpty && hidingAfterConfigure.isEmpty
            ? nil : FewerControlsCamera(sim, hiding: hiding, hidingAfterConfigure: hidingAfterConfigure)
        fewerControls = listed
        let taps = FrameTaps()
        self.taps = taps
        controller = try CameraController(device: listed ?? device, sensor: description, loop: loop,
                                          pipeline: taps.pipeline(), output: { taps.onEvent?($0) })
    }

    /// A rig streaming `format`, 300 ms in.
    static func streaming(_ format: String = "1920x1080@30") throws -> Rig {
        let rig = try Rig()
        try rig.controller.selectFormat(format)
        try rig.controller.startStreaming()
        rig.loop.advance(by: .milliseconds(300))
        return rig
    }

    /// Runs the loop for `frames` frames of `microseconds` each.
    func run(frames: Int, frameMicroseconds: Int64) {
        loop.advance(by: .microseconds(frameMicroseconds * Int64(frames)))
    }

    /// Collects every frame state the controller sees.
    func recordFrames() -> FrameLog {
        let log = FrameLog()
        taps.onFrame = { _, state in log.states.append(state) }
        return log
    }
}

/// A test's hooks on a controller's frames and events: the pipeline it is made with calls
/// `onEveryFrame` before the bracket stage (every complete frame, as the recorder sees them) and
/// `onFrame` after it (the regular frames, as the viewfinder sees them).
final class FrameTaps: @unchecked Sendable {
    var onFrame: ((CompletedRequest, FrameState) -> Void)?
    var onEveryFrame: ((CompletedRequest) -> Void)?
    var onEvent: ((CameraControllerEvent) -> Void)?

    func pipeline() -> FramePipeline {
        FramePipeline(everyFrame: [FrameObserver("test: every frame") { [unowned self] in self.onEveryFrame?($0.request) }],
                      streaming: [FrameObserver("test: streaming frames") { [unowned self] in self.onFrame?($0.request, $0.state) }])
    }
}

final class FrameLog: @unchecked Sendable {
    var states: [FrameState] = []
}

/// A simulated camera that lists fewer controls, as another camera or libcamera would: `hiding` are
/// left out of its ControlInfoMap, `hidingAfterConfigure` out of the one after `configure` only.
/// Records the controls of `start` and of every request it is given.
final class FewerControlsCamera: CameraDevice {
    let inner: SimulatedCamera
    let hiding: Set<String>
    let hidingAfterConfigure: Set<String>
    private var configured = false
    /// The controls `start` and each queued request carried, in order.
    private(set) var received: [ControlList] = []

    init(_ inner: SimulatedCamera, hiding: Set<String>, hidingAfterConfigure: Set<String>) {
        self.inner = inner; self.hiding = hiding; self.hidingAfterConfigure = hidingAfterConfigure
    }

    var info: CameraInfo { inner.info }
    var controlInfo: [String: ControlInfo] { inner.controlInfo.filter { !hiding.contains($0.key) } }
    var configuredControlInfo: [String: ControlInfo] {
        let gone = configured ? hiding.union(hidingAfterConfigure) : hiding
        return inner.configuredControlInfo.filter { !gone.contains($0.key) }
    }
    func streamFormats(for role: StreamRole) throws -> [StreamFormat] { try inner.streamFormats(for: role) }
    func configure(_ streams: [StreamConfiguration]) throws -> (status: ConfigurationStatus, streams: [StreamConfiguration]) {
        let result = try inner.configure(streams)
        configured = true
        return result
    }
    func start(controls: ControlList) throws {
        received.append(controls)
        try inner.start(controls: controls)
    }
    func queueRequest(_ request: CaptureRequest) throws {
        received.append(request.controls)
        try inner.queueRequest(request)
    }
    func stop() { inner.stop() }
    func setEventHandler(_ handler: @escaping @Sendable (CameraEvent) -> Void) { inner.setEventHandler(handler) }
}
