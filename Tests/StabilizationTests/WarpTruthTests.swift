import Camera
import Foundation
import Hardware
import Motion
import SimulatedHardware
import Testing
import Video
@testable import Stabilization

/// The warp against the simulator's true motion: frames timed as the 1920x1080 format's at 30 fps,
/// the tracker fed by the simulated IMU, and each output pixel followed back through its band's
/// homography and its row's exposure time to the direction the true camera saw there. What the
/// viewer sees move between frames is the change of that direction at the same output pixel.
@Suite("Rotation warp against the truth")
struct WarpTruthTests {
    struct Residual {
        /// RMS over frames and a 7 × 5 grid of output pixels of the inter-frame motion, output pixels.
        var pixels: Double
        /// RMS of the inter-frame roll of the view about the optical axis, degrees.
        var rollDegrees: Double
    }

    /// `seconds` of handheld motion at `amplitude` °/s with `mode` (off: frames as the camera made them).
    static func run(_ mode: StabilizationMode, amplitude: Double = 10, seconds: Int = 6, seed: UInt64 = 3,
                    tau: Double? = nil) throws -> Residual {
        let rig = try Rig(seed: seed, format: "1920x1080@30")
        try rig.move("handheld", amplitude: amplitude)
        rig.loop.advance(by: .seconds(1))
        let size = PixelSize(width: 480, height: 270)
        var geometry = try #require(rig.stabilization.warpGeometry(frameSize: size))
        let planner = mode == .off ? nil : try RotationPathPlanner(mode: mode)
        if let tau { planner?.cinematicTimeConstantSeconds = tau }
        let stabilizer = planner.map { planner in RecordingStabilizer(
            planner: planner, geometry: { rig.stabilization.warpGeometry(frameSize: $0) },
            orientationAt: { rig.tracker.orientation(at: $0) }) }
        geometry.margin = stabilizer?.margin ?? 0
        var frames: [VideoFrame] = []
        for i in 0..<(30 * seconds) {
            rig.loop.advance(by: .nanoseconds(33_333_333))
            // The frame started 60 ms ago: its rows are read and the IMU's samples of them have arrived.
            let frame = try VideoFrame(size: size, stride: size.width, sequence: UInt64(i),
                                       sensorTimestamp: rig.loop.now() - .milliseconds(60)) { _ in }
            frames += stabilizer?.push(frame) ?? [frame]
        }
        frames += stabilizer?.flush() ?? []
        let settled = Array(frames.dropFirst(30))  // the smoothing settles
        let f = geometry.focalLengthPixels * (1 + geometry.margin)
        var squares = 0.0, count = 0, rollSquares = 0.0
        var previous: (directions: [Vector3], view: Quaternion)?
        for frame in settled {
            let warp = frame.warp as? YUVRotationWarp
            func rowTime(_ row: Double) -> MonotonicTime {
                frame.sensorTimestamp + .nanoseconds(Int64((row * geometry.lineNanoseconds).rounded()))
            }
            var directions: [Vector3] = []
            for gy in 0..<5 {
                for gx in 0..<7 {
                    let x = (Double(gx) + 0.5) / 7 * Double(size.width) - Double(size.width) / 2
                    let y = (Double(gy) + 0.5) / 5 * Double(size.height) - Double(size.height) / 2
                    var source = SIMD2(x, y)
                    if let warp {
                        let band = min(Int((y + Double(size.height) / 2) / Double(warp.geometry.bandRows)), warp.bands.count - 1)
                        source = try #require(warp.bands[band].apply(x, y))
                    }
                    let ray = Vector3(source.x / geometry.focalLengthPixels, source.y / geometry.focalLengthPixels, 1)
                    let truth = truthOrientation(rig, at: rowTime(source.y + Double(size.height) / 2))
                    directions.append(truth.rotate(ray / (ray * ray).sum().squareRoot()))
                }
            }
            let middle = truthOrientation(rig, at: rowTime(Double(size.height) / 2))
            let correction = frame.stabilized.map { Vector3($0.correctionDegrees[0], $0.correctionDegrees[1], $0.correctionDegrees[2]) * (.pi / 180) }
            let view = correction.map { (middle * Quaternion(rotationVector: $0)).normalized } ?? middle
            if let previous {
                for (a, b) in zip(previous.directions, directions) {
                    let angle = acos(min(1, (a * b).sum()))
                    squares += (angle * f) * (angle * f); count += 1
                }
                let roll = (previous.view.conjugate * view).normalized.rotationVector.z * 180 / .pi
                rollSquares += roll * roll
            }
            previous = (directions, view)
        }
        let frameCount = max(settled.count - 1, 1)
        return Residual(pixels: (squares / Double(max(count, 1))).squareRoot(), rollDegrees: (rollSquares / Double(frameCount)).squareRoot())
    }

    @Test("handheld 10 °/s: cinematic takes out ≥ 80 % of the motion, standard ≥ 60 %, roll ≤ 20 % of off's", arguments: [UInt64(1), 3])
    func handheld(seed: UInt64) throws {
        let off = try Self.run(.off, seed: seed), standard = try Self.run(.standard, seed: seed)
        let cinematic = try Self.run(.cinematic, seed: seed)
        let report = "off \(off), standard \(standard), cinematic \(cinematic)"
        #expect(off.pixels > 1 && off.rollDegrees > 0.01, "the rig moves: \(report)")
        #expect(standard.pixels <= 0.4 * off.pixels, "\(report)")
        #expect(cinematic.pixels <= 0.2 * off.pixels, "\(report)")
        #expect(cinematic.pixels < standard.pixels, "\(report)")
        #expect(cinematic.rollDegrees <= 0.2 * off.rollDegrees, "\(report)")
        #expect(standard.rollDegrees <= 0.4 * off.rollDegrees, "\(report)")
    }
}
