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

    init(model: String = "imx708", scene: SimulatedScene = SimulatedScene(), seed: UInt64 = 7,
         motion: any MotionTruth = StillMotion(), exposureControl: Bool = true,
         libcamera: SimulatedLibcamera = .raspberryPi0_5,
         edit: (inout SensorDescription) -> Void = { _ in }) throws {
        var description = try sensor(model)
        edit(&description)
        loop = ManualEventLoop()
        provider = SimulatedCameraProvider(loop: loop, sensor: description, motion: motion, scene: scene, seed: seed)
        provider.exposureControl = exposureControl
        provider.maximumRenderSize = smallRenderSize
        provider.libcamera = libcamera
        let device = try provider.open(id: provider.cameras()[0].id)
        guard let sim = device as? SimulatedCamera else { throw CameraError(.notReady, "not a simulated camera") }
        camera = sim
        controller = try CameraController(device: device, sensor: description, loop: loop)
    }

    /// Runs the loop for `frames` frames of `microseconds` each.
    func run(frames: Int, frameMicroseconds: Int64) {
        loop.advance(by: .microseconds(frameMicroseconds * Int64(frames)))
    }

    /// Collects every frame state the controller sees.
    func recordFrames() -> FrameLog {
        let log = FrameLog()
        controller.onFrame = { _, state in log.states.append(state) }
        return log
    }
}

final class FrameLog: @unchecked Sendable {
    var states: [FrameState] = []
}
