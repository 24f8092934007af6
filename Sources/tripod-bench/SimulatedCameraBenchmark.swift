import Boards
import Camera
import Foundation
import Hardware
import ManualLoop
import SimulatedHardware

/// A minute of 1080p30 streaming from the simulated IMX708 through the CameraController on the
/// manual clock, against the real camera's minute (the reference): how many times faster than real
/// time the simulation runs, with and without rendering frames.
struct SimulatedCameraBenchmark: Benchmark {
    static let name = "simcam"
    static let summary = "simulated camera: one minute of 1080p30 streaming vs real time"

    func run() throws -> BenchmarkReport {
        let simulatedSeconds = 60.0
        var rows: [[String]] = [["real camera (reference)", "1800", String(format: "%.1f", simulatedSeconds), "1.0"]]
        var metrics: [String: Double] = [:]
        for (label, renderSize) in [("sim, 96x54 frames", PixelSize(width: 96, height: 54)),
                                    ("sim, 32x18 frames", PixelSize(width: 32, height: 18))] {
            let loop = ManualEventLoop()
            let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"))
            let device = try provider.open(id: provider.cameraID)
            guard let camera = device as? SimulatedCamera else {
                throw HardwareError(.other, "simcam: the provider did not return a SimulatedCamera")
            }
            camera.maximumRenderSize = renderSize
            let controller = try CameraController(device: device, sensor: provider.sensor, loop: loop)
            var frames = 0
            controller.onFrame = { _, _ in frames += 1 }
            try controller.selectFormat("1920x1080@30")
            try controller.startStreaming()
            let start = monotonicNanoseconds()
            loop.advance(by: .seconds(Int64(simulatedSeconds)))
            let wall = Double(monotonicNanoseconds() - start) / 1e9
            let speedup = simulatedSeconds / wall
            rows.append([label, String(frames), String(format: "%.3f", wall), String(format: "%.0f", speedup)])
            metrics["speedup_\(renderSize.width)x\(renderSize.height)"] = speedup
            metrics["frame_us_\(renderSize.width)x\(renderSize.height)"] = wall / Double(max(frames, 1)) * 1e6
        }
        return BenchmarkReport(columns: ["run", "frames", "wall s", "x real time"], rows: rows,
                               notes: ["one minute of camera time per run; the real camera takes 60 s by definition"],
                               metrics: metrics)
    }
}
