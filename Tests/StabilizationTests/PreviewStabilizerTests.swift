import Camera
import Foundation
import Hardware
import Motion
import SimulatedHardware
import Testing
@testable import Stabilization

/// The previews' stabilized picture while a recording warps its own frames.
@Suite("Preview stabilization")
struct PreviewStabilizerTests {
    static let size = PixelSize(width: 320, height: 180)

    /// A BGR888 frame whose three channels are smooth patterns of the pixel centre (x, y).
    static func frame() -> FrameBuffer {
        var bytes = [UInt8](repeating: 0, count: size.width * size.height * 3)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let p = (y * size.width + x) * 3, fx = Double(x) + 0.5, fy = Double(y) + 0.5
                bytes[p] = UInt8(value(fx, fy, 0).rounded()); bytes[p + 1] = UInt8(value(fx, fy, 1).rounded())
                bytes[p + 2] = UInt8(value(fx, fy, 2).rounded())
            }
        }
        return FrameBuffer(pixelFormat: .bgr888, size: size, stride: size.width * 3, bytes: bytes)
    }

    static func value(_ x: Double, _ y: Double, _ channel: Int) -> Double {
        128 + 50 * sin(x / (8 + Double(channel)) + Double(channel)) * cos(y / 9) + 0.2 * x - 0.1 * y
    }

    @Test("a still camera's preview is the centre of the frame enlarged by the margin; a turning one's is moved against the turn")
    func previewFollowsTheCausalPath() throws {
        let geometry = WarpGeometry(size: Self.size, focalLengthPixels: 300, margin: 0, lineNanoseconds: 0)
        let still = try PreviewStabilizer(margin: 0.2, geometry: { _ in geometry }, orientationAt: { _ in .identity })
        let input = Self.frame()
        let shown = still.frame(for: input, sensorTimestamp: MonotonicTime(nanoseconds: 1_000_000_000), exposureMicroseconds: 0)
        #expect(shown !== input && shown.size == Self.size)
        var worst = 0.0
        shown.withUnsafeBytes { out in
            for y in stride(from: 10, to: 170, by: 7) {
                for x in stride(from: 10, to: 310, by: 7) {
                    // Output pixel (x, y) shows the input at the centre plus the offset ÷ 1.2.
                    let sx = (Double(x) + 0.5 - 160) / 1.2 + 160, sy = (Double(y) + 0.5 - 90) / 1.2 + 90
                    for c in 0..<3 { worst = max(worst, abs(Double(out[(y * Self.size.width + x) * 3 + c]) - Self.value(sx, sy, c))) }
                }
            }
        }
        #expect(worst < 3, "largest difference from the enlarged centre: \(worst)")
        // Turning right at 0.3 rad/s: the causal view lags behind the camera, so the preview shows
        // what the camera saw further left: the centre pixel comes from left of the input's centre.
        let turning = try PreviewStabilizer(margin: 0.2, geometry: { _ in geometry },
                                            orientationAt: { Quaternion(axis: Vector3(0, 1, 0), angle: 0.3 * Double($0.nanoseconds) / 1e9) })
        var last: FrameBuffer?
        for i in 0..<10 {
            last = turning.frame(for: input, sensorTimestamp: MonotonicTime(nanoseconds: Int64(i) * 33_333_333), exposureMicroseconds: 0)
        }
        let moved = try #require(last)
        var best = (error: Double.infinity, dx: 0.0)
        moved.withUnsafeBytes { out in
            for dx in stride(from: -20.0, through: 20.0, by: 0.5) {
                var error = 0.0
                for y in stride(from: 40, to: 140, by: 5) {
                    for x in stride(from: 120, to: 200, by: 5) {
                        let sx = (Double(x) + 0.5 - 160) / 1.2 + 160 + dx, sy = (Double(y) + 0.5 - 90) / 1.2 + 90
                        error += abs(Double(out[(y * Self.size.width + x) * 3 + 1]) - Self.value(sx, sy, 1))
                    }
                }
                if error < best.error { best = (error, dx) }
            }
        }
        #expect(best.dx < -1, "the preview is moved against the turn: \(best.dx) px")
    }

    @Test("the service stabilizes the previews only while a recording warps its own frames")
    func onlyWhileRecordingWarps() throws {
        let rig = try Rig(format: "1920x1080")
        rig.stabilization.setVideoPreferred(.cinematic)
        #expect(rig.stabilization.video.active == .cinematic)
        let slot = StabilizationSlot()
        slot.start(rig.stabilization)
        let service = VideoStabilizationService(motion: rig.tracker, crop: CameraSlot(.attached(rig.controller)), stabilization: slot)
        service.restart()
        let input = Self.frame()
        #expect(service.previewFrame(input, sensorTimestamp: rig.loop.now(), exposureMicroseconds: 10_000) === input)
        service.recordingCropsItsOwnFrames = true
        let shown = service.previewFrame(input, sensorTimestamp: rig.loop.now(), exposureMicroseconds: 10_000)
        #expect(shown !== input && shown.size == input.size && shown.pixelFormat == .bgr888)
        #expect(shown.bytes != input.bytes, "enlarged by the cinematic margin")
        service.recordingCropsItsOwnFrames = false
        #expect(service.previewFrame(input, sensorTimestamp: rig.loop.now(), exposureMicroseconds: 10_000) === input)
    }
}
