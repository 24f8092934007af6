import Boards
import Camera
import Hardware
import ManualLoop
import Motion
import SimulatedHardware
@testable import Stabilization

/// The simulated board's IMU, tracker, camera and controller on one manual clock, sharing one
/// motion truth, with a `Stabilization` fed the way the supervisor will feed it.
final class Rig {
    let loop = ManualEventLoop()
    let imu: SimulatedIMU
    let tracker: MotionTracker
    let sensor: SensorDescription
    let camera: SimulatedCamera
    let controller: CameraController
    let stabilization: Stabilization
    /// The service's events, in order, since the rig was made (or `clearEvents`).
    var events: [Stabilization.Event] { eventLog.events }
    private let eventLog: EventLog

    /// Starts still (so the tracker measures the gyro bias, as at boot on a table) for `settle`.
    init(seed: UInt64 = 3, renderSize: PixelSize? = nil, format: String = "1920x1080@30",
         settle: Duration = .seconds(3)) throws {
        imu = SimulatedIMU(loop: loop, profile: MotionProfile.still.make(seed: seed, origin: loop.now()), seed: seed)
        tracker = MotionTracker(deviceName: imu.name)
        sensor = try SensorDescription.embedded(model: "imx708")
        let provider = SimulatedCameraProvider(loop: loop, sensor: sensor, motion: imu.truth, seed: seed)
        let device = try provider.open(id: provider.cameras()[0].id)
        guard let sim = device as? SimulatedCamera else { throw StabilizationError(.invalidArgument, "not simulated") }
        camera = sim
        camera.maximumRenderSize = renderSize ?? PixelSize(width: 96, height: 54)  // small: no test here needs more
        controller = try CameraController(device: device, sensor: sensor, loop: loop)
        try controller.selectFormat(format)
        let eventLog = EventLog()
        self.eventLog = eventLog
        stabilization = Stabilization(tracker: tracker, sensor: sensor, loop: loop, format: controller.activeFormat) { eventLog.events.append($0) }
        let bound = LoopBound(self, loop: loop)
        try imu.start { event in bound.value.handle(event) }
        loop.advance(by: settle)
    }

    private func handle(_ event: IMUEvent) {
        switch event {
        case .samples(let s): tracker.ingest(s)
        case .health(let h): stabilization.imuHealthChanged(h)
        }
    }

    func clearEvents() { eventLog.events = [] }

    /// Where the service's events are kept (made before the service, which reports into it).
    private final class EventLog {
        var events: [Stabilization.Event] = []
    }

    /// Switches the truth to a profile from now on.
    func move(_ profile: String, amplitude: Double? = nil) throws {
        try imu.setMotion(profile, amplitudeDegreesPerSecond: amplitude)
    }

    /// Focal length of the active format's mode, mode pixels.
    var focalLength: Double { stabilization.focalLengthPixels ?? 0 }
}

/// One kept frame of a bracket run through `BracketHarness`.
struct KeptFrame {
    var verdict: FrameVerdict
    var attempts: Int
    var buffer: FrameBuffer?
    var exposureStart: MonotonicTime
    var exposure: Duration
}

/// What the bracket engine will do with a gate, in miniature: for each step ask `readiness` (waiting
/// as told), queue the frame through `CameraController.queueRequest`, judge it from its
/// SensorTimestamp and metadata ExposureTime, and retake while the gate says so.
final class BracketHarness {
    let rig: Rig
    let gate: any BracketFrameGate
    let exposures: [Duration]
    private(set) var kept: [KeptFrame] = []
    private(set) var failure: (any Error)?
    private var index = 0, attempt = 1

    /// Pause between kept frames (so unstabilized and stabilized runs span similar stretches of motion).
    let spacing: Duration

    init(rig: Rig, gate: any BracketFrameGate, exposures: [Duration], spacing: Duration = .zero) {
        self.rig = rig; self.gate = gate; self.exposures = exposures; self.spacing = spacing
    }

    /// Runs the bracket to the end on the manual clock (bounded by `limit`).
    func run(limit: Duration = .seconds(60)) {
        let end = rig.loop.now() + limit
        step()
        while kept.count < exposures.count, failure == nil, rig.loop.now() < end {
            rig.loop.advance(by: .milliseconds(5))
        }
    }

    private func step() {
        guard index < exposures.count else { return }
        switch gate.readiness(index: index, exposure: exposures[index], now: rig.loop.now()) {
        case .wait(let d):
            let bound = LoopBound(self, loop: rig.loop)
            _ = rig.loop.schedule(at: rig.loop.now() + d) { bound.value.step() }
        case .go:
            let micro = exposures[index].microseconds
            let controls: ControlList = [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(Int32(micro)),
                                         ControlName.analogueGain: .float(1)]
            do {
                try rig.controller.queueRequest(controls: controls, roles: [rig.controller.processedRole]) { [unowned self] done in
                    completed(done)
                }
            } catch { failure = error }
        }
    }

    private func completed(_ done: CompletedRequest) {
        guard done.isComplete else { failure = StabilizationError(.invalidArgument, "cancelled"); return }
        let micro = Int64(done.metadata[ControlName.exposureTime]?.int64Value ?? 0)
        let exposure = Duration.microseconds(micro)
        let verdict = gate.judge(index: index, attempt: attempt, exposureStart: done.sensorTimestamp, exposure: exposure)
        if verdict.retake {
            attempt += 1
        } else {
            kept.append(KeptFrame(verdict: verdict, attempts: attempt, buffer: done.buffers[rig.controller.processedRole],
                                  exposureStart: done.sensorTimestamp, exposure: exposure))
            index += 1; attempt = 1
            if spacing > .zero {
                let bound = LoopBound(self, loop: rig.loop)
                _ = rig.loop.schedule(at: rig.loop.now() + spacing) { bound.value.step() }
                return
            }
        }
        step()
    }
}

/// Sharpness of a processed frame: mean squared gradient of green (Tenengrad-like), 8-bit units².
func sharpness(_ buffer: FrameBuffer) -> Double {
    let bpp = buffer.pixelFormat == .xrgb8888 ? 4 : 3
    let w = buffer.size.width, h = buffer.size.height, stride = buffer.stride
    return buffer.withUnsafeBytes { b in
        var sum = 0.0, n = 0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let p = y * stride + x * bpp + 1
                let gx = Double(b[p + bpp]) - Double(b[p - bpp])
                let gy = Double(b[p + stride]) - Double(b[p - stride])
                sum += gx * gx + gy * gy; n += 1
            }
        }
        return n > 0 ? sum / Double(n) : 0
    }
}
