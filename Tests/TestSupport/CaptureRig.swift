#if DEBUG  // @testable: the supervisor's capture service and writers (see SimulatedBoardHarness)
import Boards
import Foundation
import Hardware
import Lifecycle
import ManualLoop
import Media
import SimulatedHardware
import Settings
@testable import Supervisor
@testable import Capture
@testable import Transports

/// The simulated board (IMX708: exposure delay 2, gain delay 2; 4 requests in flight), with
/// in-memory storage, a scripted button and LED, on a manual clock, with one console attached.
public final class CaptureRig {
    public let loop = ManualEventLoop()
    public let storage: SimulatedStorage
    public let button: SimulatedButton
    public let led: SimulatedLED
    public let provider: SimulatedCameraProvider
    public let supervisor: Supervisor
    public let console = RecordingConsoleOutput()
    public let session: ConsoleSession

    /// `exposureControl` false gives a camera without exposure controls or metadata, and
    /// `maximumBufferCount` one that gives at most that many buffers per stream and starts only
    /// with two requests queued (vimc: both, 4).
    /// `sensorModel` another sensor of the database, `renderSize` larger frames for tests that
    /// measure pixels, `scene` what the camera looks at, `rawOutput` what the raw stream hands back
    /// (a Pi 5's or a Pi 4's layouts, board option `camera.raw`).
    public init(capacityBytes: Int64? = nil, exposureControl: Bool = true, maximumBufferCount: Int? = nil,
         sensorModel: String = "imx708", renderSize: PixelSize = PixelSize(width: 96, height: 54),
         scene: SimulatedScene = SimulatedScene(), rawOutput: SimulatedRawOutput = .unpacked,
         storage given: SimulatedStorage? = nil, state: StateStore? = nil,
         simulatesLight: Bool = false, wallClockAtStart: Date? = nil, configure: (CaptureService) -> Void = { _ in }) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("board").path
        let catalog = BoardCatalog(directories: [root])
        let board = try catalog.board("sim")
        guard var sensor = try catalog.sensor(sensorModel) else { throw StartupError("no \(sensorModel) in \(root)") }
        sensor.exposureDelayFrames = 2
        sensor.gainDelayFrames = 2
        storage = given ?? SimulatedStorage(capacityBytes: capacityBytes)
        button = SimulatedButton(loop: loop, twoStage: true)
        led = SimulatedLED(clock: loop)
        provider = SimulatedCameraProvider(loop: loop, sensor: sensor, scene: scene)
        provider.maximumRenderSize = renderSize  // small frames by default: most tests need no pixels
        provider.exposureControl = exposureControl
        provider.rawOutput = rawOutput
        provider.maximumBufferCount = maximumBufferCount
        if maximumBufferCount != nil { provider.minimumQueuedToStart = 2 }  // as vimc's capture node
        let devices = BoardDevices(board: board, cameraProvider: provider, sensors: [sensorModel: sensor], imu: nil,
                                   shutter: button.shutter, halfPress: button.halfPress, led: led, display: NullDisplay(),
                                   storage: storage,
                                   simulation: simulatesLight ? SimulationHooks(changeLight: { [provider] name, span in
                                       try provider.changeLight(name, duration: span).toEV
                                   }) : nil)
        // The wall clock follows the manual one (from the sensor's FrameWallClock origin, as the
        // simulated camera reports it), so shots due on it come at the manual clock's pace.
        let loop = self.loop
        let origin = (wallClockAtStart ?? Date()).timeIntervalSince1970 - Double(loop.now().nanoseconds) / 1e9
        let services = SupervisorServices(state: state, wallClock: { Date(timeIntervalSince1970: origin + Double(loop.now().nanoseconds) / 1e9) })
        supervisor = Supervisor(devices: devices, loop: loop, services: services, log: .discard)
        session = supervisor.attach(name: "test", kind: .stdio, output: console)
        configure(supervisor.captureService)
        try loop.start(supervisor)
        settle(.milliseconds(300))
    }

    /// Runs a console line; returns the lines it produced at once (reply and events). Whether an
    /// event from the writer's queue (a real thread) is already among them depends on timing, so
    /// `settle(until:)` looks at these lines too.
    @discardableResult
    public func send(_ line: String) -> [String] {
        let bound = LoopBound((supervisor, session), loop: loop)
        loop.execute { bound.value.0.run(line: line, from: bound.value.1) }
        loop.run()
        supervisor.waitForStateWrites()  // `save` and presets answer once written, off the loop
        loop.run()
        sinceLastSend = console.take()
        return sinceLastSend
    }

    /// What the last `send` returned, which `settle(until:)` starts from.
    private var sinceLastSend: [String] = []

    /// Advances the clock in 5 ms steps, letting the writer queue finish between steps.
    public func settle(_ duration: Duration) {
        loop.advance(by: duration, inStepsOf: .milliseconds(5), draining: supervisor)
    }

    /// Advances until `predicate` holds on the console output so far (at most `limit`).
    public func settle(until predicate: ([String]) -> Bool, limit: Duration = .seconds(10)) -> [String] {
        var lines = sinceLastSend
        sinceLastSend = []
        let end = loop.now() + limit
        while loop.now() < end && !predicate(lines) {
            settle(.milliseconds(5))
            lines += console.take()
        }
        return lines
    }

    public func sidecars() throws -> [BracketSidecar] {
        try storage.files.keys.filter { $0.hasSuffix(".json") }.sorted().map { try BracketSidecar.decode(storage.files[$0] ?? []) }
    }

    public var imageFiles: [String] { storage.files.keys.filter { $0.hasSuffix(".dng") || $0.hasSuffix(".jpg") }.sorted() }
}

extension Array where Element == String {
    public func event(_ name: String) -> String? { first { $0.hasPrefix("event \(name) ") } }
}
#endif
