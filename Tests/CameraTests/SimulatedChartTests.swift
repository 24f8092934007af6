import Foundation
import Hardware
import ManualLoop
import Testing
@testable import SimulatedHardware

/// A constant rotation about the camera's y axis (yaw), for motion blur.
private final class Spin: MotionTruth {
    let radiansPerSecond: Double
    init(_ radiansPerSecond: Double) { self.radiansPerSecond = radiansPerSecond }
    func angularVelocity(at time: MonotonicTime) -> Vector3 { Vector3(0, radiansPerSecond, 0) }
    func acceleration(at time: MonotonicTime) -> Vector3 { Vector3(0, -9.80665, 0) }
}

/// One frame of `streams` with manual exposure, white balance and lens, full size.
private func chartFrame(_ streams: [StreamConfiguration], exposureMicroseconds: Int = 10_000, gain: Double = 1,
                        lensDioptres: Double = 2, motion: any MotionTruth = StillMotion(), seed: UInt64 = 9) throws -> CompletedRequest {
    let loop = ManualEventLoop()
    let provider = SimulatedCameraProvider(loop: loop, sensor: try sensor("imx708"), motion: motion, seed: seed)
    let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
    let log = DeviceLog()
    camera.setEventHandler { if case .requestCompleted(let c) = $0 { log.completed.append(c) } }
    _ = try camera.configure(streams)
    try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(Int32(exposureMicroseconds)),
                                ControlName.analogueGain: .float(Float(gain)), ControlName.awbEnable: .bool(false),
                                ControlName.colourGains: .floatArray([2.1, 1.75]), ControlName.afMode: .int32(0),
                                ControlName.lensPosition: .float(Float(lensDioptres))])
    try camera.queueRequest(CaptureRequest(cookie: 1, roles: streams.map(\.role)))
    loop.advance(by: .milliseconds(150))
    camera.stop()
    return try #require(log.completed.first { $0.isComplete })
}

/// Green value at output pixel (x, y) of a BGR888 frame.
private func green(_ f: FrameBuffer, _ x: Int, _ y: Int) -> Double {
    f.withUnsafeBytes { Double($0[y * f.stride + x * 3 + 1]) }
}

/// Slanted-edge sharpness: the steepest step across the square's near-vertical left edge, averaged
/// over the rows it crosses (levels per pixel, sRGB-encoded green).
private func edgeSharpness(_ f: FrameBuffer) -> Double {
    let sx = Double(f.size.width) / TestChart.aspect, sy = Double(f.size.height)
    let edge = TestChart.edgeCentre.x - TestChart.edgeHalfSide
    let x0 = Int((edge - 0.04) * sx), x1 = Int((edge + 0.04) * sx)
    let y0 = Int((TestChart.edgeCentre.y - 0.05) * sy), y1 = Int((TestChart.edgeCentre.y + 0.05) * sy)
    var total = 0.0
    for y in y0..<y1 {
        total += (x0..<x1).map { abs(green(f, $0 + 1, y) - green(f, $0, y)) }.max() ?? 0
    }
    return total / Double(y1 - y0)
}

private let hd = StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 1280, height: 720))

@Test func theSlantedEdgeSoftensWithDefocus() throws {
    // The chart is at 0.5 m (2 D); the blur circle grows with the lens's distance from 2 D.
    let sharpness = try [2.0, 2.6, 4.0].map { try edgeSharpness(#require(chartFrame([hd], lensDioptres: $0).buffers[.viewfinder])) }
    print("edge sharpness by lens position 2, 2.6, 4 D: \(sharpness)")
    #expect(sharpness[0] > 1.3 * sharpness[1] && sharpness[1] > 1.3 * sharpness[2], "\(sharpness)")
}

@Test func theSlantedEdgeSoftensWithMotion() throws {
    // 10 ms exposures while the rig yaws at 0, 0.1 and 0.5 rad/s: 0, ~1 and ~5 output pixels of blur.
    let sharpness = try [0.0, 0.1, 0.5].map {
        try edgeSharpness(#require(chartFrame([hd], motion: Spin($0)).buffers[.viewfinder]))
    }
    print("edge sharpness by yaw rate 0, 0.1, 0.5 rad/s: \(sharpness)")
    #expect(sharpness[0] > 1.1 * sharpness[1] && sharpness[1] > 1.5 * sharpness[2], "\(sharpness)")
}

@Test func rawNoiseGrowsWithGainAtEqualBrightness() throws {
    // The 1536x864 mode (2x2 binned centre crop): a flat patch of the board right of the checker.
    let raw = StreamConfiguration(role: .raw, pixelFormat: PixelFormat("SRGGB10"), size: PixelSize(width: 1536, height: 864))
    func statistics(exposure: Int, gain: Double) throws -> (mean: Double, deviation: Double) {
        let frame = try #require(chartFrame([raw], exposureMicroseconds: exposure, gain: gain).buffers[.raw])
        #expect(frame.size == PixelSize(width: 1536, height: 864))
        // Chart x 0.98…1.06, y 0.40…0.60 in the mode's pixels (crop from 768, 432, 2 sensor pixels each).
        let x0 = (Int(0.98 * 4608 / TestChart.aspect) - 768) / 2 & ~1, x1 = (Int(1.06 * 4608 / TestChart.aspect) - 768) / 2
        let y0 = (Int(0.40 * 2592) - 432) / 2 & ~1, y1 = (Int(0.60 * 2592) - 432) / 2
        var values: [Double] = []
        frame.withUnsafeBytes { bytes in
            for y in stride(from: y0, to: y1, by: 2) {
                for x in stride(from: x0 + 1, to: x1, by: 2) {  // green sites of RGGB's even rows
                    let p = y * frame.stride + x * 2
                    values.append(Double(UInt16(bytes[p]) | UInt16(bytes[p + 1]) << 8) - 64)
                }
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)
        return (mean, variance.squareRoot())
    }
    let low = try statistics(exposure: 16_000, gain: 1), high = try statistics(exposure: 2_000, gain: 8)
    print("raw green: ISO 100 mean \(low.mean) sd \(low.deviation); ISO 800 mean \(high.mean) sd \(high.deviation)")
    #expect(abs(high.mean / low.mean - 1) < 0.03)
    #expect(high.deviation > 2 * low.deviation)
}

@Test func processedStreamsHaveTheirSizeAndFormat() throws {
    let streams = [StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: PixelSize(width: 1920, height: 1080)),
                   StreamConfiguration(role: .viewfinder, pixelFormat: .xrgb8888, size: PixelSize(width: 640, height: 360))]
    let frame = try chartFrame(streams)
    let video = try #require(frame.buffers[.videoRecording]), finder = try #require(frame.buffers[.viewfinder])
    #expect(video.pixelFormat == .yuv420 && video.size == PixelSize(width: 1920, height: 1080) && video.stride == 1920)
    #expect(video.byteCount == 1920 * 1080 * 3 / 2)
    #expect(finder.pixelFormat == .xrgb8888 && finder.size == PixelSize(width: 640, height: 360) && finder.byteCount == 640 * 360 * 4)
    // The neutral 5 patch (L* 50.8) is grey in both: limited-range Rec. 709 chroma near 128.
    let c = TestChart.patchCentre(21)
    let x = Int(c.x / TestChart.aspect * 1920), y = Int(c.y * 1080)
    let (luma, cb, cr) = video.withUnsafeBytes { b in
        (Int(b[y * 1920 + x]), Int(b[1920 * 1080 + (y / 2) * 960 + x / 2]), Int(b[1920 * 1080 * 5 / 4 + (y / 2) * 960 + x / 2]))
    }
    #expect(abs(luma - 118) < 12 && abs(cb - 128) < 4 && abs(cr - 128) < 4, "Y \(luma) Cb \(cb) Cr \(cr)")
}
