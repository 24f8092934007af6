import Foundation
import Hardware
import ManualLoop
import Media
import SimulatedHardware

/// What turning a Pi's raw layouts into unpacked samples costs on a capture (`RawUnpacking`), at
/// 12 MP, against copying the delivered bytes and against the lossless DNG encode it precedes.
struct RawFormatsBenchmark: Benchmark {
    static let name = "raw"
    static let summary = "Pi 5 16-bit / PISP_COMP1 and Pi 4 CSI-2 raw to unpacked samples at 12 MP vs a copy and the lossless DNG encode"

    func run() throws -> BenchmarkReport {
        let runs = 5
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        var dngMilliseconds = 0.0
        for output in [SimulatedRawOutput.pisp16, .csi2Packed, .pispComp1] {
            let frame = try simulatedRawFrame(output)
            var unpacked: RawUnpacking.Result?
            var unpackSeconds: [Double] = [], copySeconds: [Double] = []
            for _ in 0..<runs {  // interleaved: both see the same machine
                unpackSeconds.append(try timed { unpacked = try RawUnpacking.unpack(frame, modeBitDepth: 10) })
                copySeconds.append(try timed { _ = frame.withUnsafeBytes { Array($0) } })
            }
            guard let unpacked else { throw HardwareError(.other, "raw: no unpacked frame") }
            if dngMilliseconds == 0 {
                let camera = CameraIdentity(sensor: try SensorDescription.embedded(model: "imx708"))
                let description = DNGDescription(exif: CaptureExif(camera: camera, settings: nil, captureDate: Date(), timeZone: .current,
                                                                   size: frame.size), blackLevel: 64)
                var times: [Double] = []
                for _ in 0..<3 { times.append(try timed { _ = try DNGWriter.encode(unpacked.frame, description: description) }) }
                dngMilliseconds = percentile(times.map { $0 * 1000 }, 50)
            }
            let unpackMs = percentile(unpackSeconds.map { $0 * 1000 }, 50), copyMs = percentile(copySeconds.map { $0 * 1000 }, 50)
            let outputMB = Double(frame.size.area * 2) / 1e6
            rows.append(["\(frame.pixelFormat) → \(unpacked.frame.pixelFormat)", "\(runs)",
                         String(format: "%.1f", Double(frame.byteCount) / 1e6), String(format: "%.1f", unpackMs),
                         String(format: "%.0f", outputMB / (unpackMs / 1000)), String(format: "%.1f", copyMs),
                         String(format: "%.2f", copyMs / unpackMs), String(format: "%.0f %%", 100 * unpackMs / dngMilliseconds)])
            metrics["\(output.rawValue)_unpack_ms"] = unpackMs
            metrics["\(output.rawValue)_copy_vs_unpack"] = copyMs / unpackMs
            metrics["\(output.rawValue)_percent_of_lossless_dng"] = 100 * unpackMs / dngMilliseconds
        }
        metrics["lossless_dng_ms"] = dngMilliseconds
        return BenchmarkReport(
            columns: ["delivered → written", "runs", "MB delivered", "median ms", "MB/s out", "copy ms", "copy / unpack", "of DNG encode"],
            rows: rows,
            notes: ["the simulated IMX708's 4608×2592 10-bit chart frame, laid out as each Pi delivers it (SimulatedRawOutput); "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) cores",
                    "copy = Array(the delivered bytes), the least any conversion costs; of DNG encode = unpack median / the lossless "
                    + String(format: "DNG encode median (%.0f ms) of the unpacked frame, same run", dngMilliseconds)],
            metrics: metrics)
    }
}

/// The simulated IMX708's full-size raw frame as `output` lays it out, its bytes drawn.
private func simulatedRawFrame(_ output: SimulatedRawOutput) throws -> FrameBuffer {
    let loop = ManualEventLoop()
    let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"), seed: 5)
    provider.rawOutput = output
    guard let camera = try provider.open(id: provider.cameraID) as? SimulatedCamera else {
        throw HardwareError(.other, "raw: the provider did not return a SimulatedCamera")
    }
    _ = try camera.configure([StreamConfiguration(role: .raw, pixelFormat: PixelFormat("SRGGB10"), size: PixelSize(width: 4608, height: 2592))])
    let frames = BenchRawFrames()
    camera.setEventHandler { if case .requestCompleted(let c) = $0, let raw = c.buffers[.raw] { frames.list.append(raw) } }
    try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(20_000),
                                ControlName.analogueGain: .float(2), ControlName.awbEnable: .bool(false),
                                ControlName.colourGains: .floatArray([2.0, 1.6])])
    try camera.queueRequest(CaptureRequest(cookie: 1, roles: [.raw]))
    while frames.list.isEmpty && loop.now().nanoseconds < 5_000_000_000 { loop.advance(by: .milliseconds(5)) }
    camera.stop()
    guard let raw = frames.list.first else { throw HardwareError(.other, "raw: the simulated camera gave no raw frame") }
    _ = raw.withUnsafeBytes { $0.count }  // drawn now, not inside the first timing
    return raw
}

private final class BenchRawFrames: @unchecked Sendable {
    var list: [FrameBuffer] = []
}

