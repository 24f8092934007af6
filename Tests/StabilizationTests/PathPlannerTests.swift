import Camera
import Foundation
import Hardware
import Motion
import Testing
@testable import Stabilization

@Suite("Rotation path planner")
struct PathPlannerTests {
    /// The tracker answers each frame's questions in a world that has shifted a little since the
    /// last frame (its accelerometer corrections): here a still, level camera whose answers are
    /// turned by ±0.05° about the optical axis, alternately, one shift per frame. What the picture
    /// shows is truth · camera⁻¹ · view; its change between frames is what a viewer sees.
    static func pictureSteps(_ mode: StabilizationMode, frames: Int = 60) throws -> [Double] {
        let level = Quaternion(axis: Vector3(1, 0, 0), angle: -.pi / 2)  // y down along −z: optical axis along +y
        #expect(abs(level.rotate(Vector3(0, 0, 1)).y - 1) < 1e-9)
        let wobble = 0.05 * .pi / 180
        let planner = try RotationPathPlanner(mode: mode)
        var shift = Quaternion.identity
        var pictures: [Quaternion] = []
        for i in 0..<frames {
            shift = Quaternion(axis: Vector3(0, 1, 0), angle: i % 2 == 0 ? wobble : -wobble)
            let time = MonotonicTime(nanoseconds: Int64(i) * 33_333_333)
            for target in planner.push(time: time, orientationAt: { _ in (shift * level).normalized }) {
                planner.shown(target.view)
                pictures.append((level * target.camera.conjugate * target.view).normalized)
            }
        }
        return zip(pictures.dropFirst(), pictures).map { $0.angle(to: $1) * 180 / .pi }
    }

    @Test("a source whose world shifts between frames moves nothing on screen: standard not at all, cinematic's level only slowly")
    func shiftingWorld() throws {
        let standard = try Self.pictureSteps(.standard)
        #expect(standard.count == 59)
        #expect((standard.max() ?? 1) < 1e-6, "standard: the picture moved \(standard.max() ?? -1)°")
        // Cinematic levels in the shifted world, so the wobble reaches the level; turned towards
        // it with a 1 s time constant, a frame's step is ~3 % of the 0.1° swing (whole: 0.1°).
        let cinematic = try Self.pictureSteps(.cinematic)
        #expect(cinematic.count > 30)
        #expect((cinematic.max() ?? 1) < 0.02, "cinematic: the picture moved \(cinematic.max() ?? -1)° in one frame")
    }
}
