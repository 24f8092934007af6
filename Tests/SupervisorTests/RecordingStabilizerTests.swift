import Hardware
import Motion
import Stabilization
import Testing
import Video
@testable import Supervisor

/// The recording's own stabilization: each frame leaves with the crop planned for its exposure;
/// cinematic holds its look-ahead, and a stop releases every held frame.
@Suite struct RecordingStabilizerTests {
    static let field = PixelSize(width: 4608, height: 2592)

    static func frame(_ i: Int) throws -> VideoFrame {
        try VideoFrame(size: PixelSize(width: 1152, height: 648), stride: 1152, sequence: UInt64(i),
                       sensorTimestamp: MonotonicTime(nanoseconds: 1_000_000_000 + Int64(i) * 33_333_333)) { _ in }
    }

    /// A slow yaw: the orientation after `i` frames.
    static func orientation(_ i: Int) -> Quaternion { Quaternion(axis: Vector3(0, 1, 0), angle: Double(i) * 0.01) }

    @Test func standardCropsEachFrameAtOnceInsideTheFrame() throws {
        let planner = try EISCropPlanner(mode: .standard, field: Self.field, focalLengthPixels: 3000)
        let stabilizer = RecordingStabilizer(planner: planner, field: Self.field)
        var crops: [PixelRect] = []
        for i in 0..<20 {
            let out = stabilizer.push(try Self.frame(i), orientation: Self.orientation(i))
            #expect(out.count == 1 && out.first?.sequence == UInt64(i))
            let crop = try #require(out.first?.crop)
            #expect(crop.x >= 0 && crop.y >= 0 && crop.x + crop.width <= 1152 && crop.y + crop.height <= 648)
            #expect(crop.width % 2 == 0 && crop.height % 2 == 0 && crop.x % 2 == 0 && crop.y % 2 == 0)
            crops.append(crop)
        }
        // The rig turns right, the scene moves left: the crop follows it left of centre.
        #expect(crops.last!.x < crops.first!.x, "\(crops.first!) → \(crops.last!)")
        #expect(stabilizer.flush().isEmpty)
    }

    @Test func cinematicHoldsItsLookaheadAndAStopReleasesIt() throws {
        let planner = try EISCropPlanner(mode: .cinematic, field: Self.field, focalLengthPixels: 3000, lookaheadFrames: 15)
        let stabilizer = RecordingStabilizer(planner: planner, field: Self.field)
        var released: [UInt64] = []
        for i in 0..<20 {
            released += stabilizer.push(try Self.frame(i), orientation: Self.orientation(i)).map(\.sequence)
        }
        #expect(released == Array(0..<5), "the first frames leave once 15 later ones are known")
        #expect(stabilizer.heldFrames == 15)
        let rest = stabilizer.flush()
        #expect(rest.map(\.sequence) == Array(5..<20))
        #expect(rest.allSatisfy { $0.crop != nil })
        #expect(stabilizer.heldFrames == 0)
    }
}
