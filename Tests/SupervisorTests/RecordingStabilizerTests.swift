import Camera
import Console
import Foundation
import Hardware
import LinuxHardware
import ManualLoop
import Motion
import Stabilization
import Testing
import Video
@testable import Supervisor
@testable import Recording

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

/// Stabilization of the frames being encoded, as the supervisor wires it: the pre-record ring's
/// frames are stabilized too, and the viewfinder's ScalerCrop pauses while they are.
@Suite(.serialized) struct RecordingStabilizationWiringTests {
    @Test func prerecordedFramesAreStabilizedAndTheScalerCropWaits() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("sim motion handheld 5") == "ok motion=handheld amplitude=5")
        #expect(h.reply("format 3").hasPrefix("ok"), "1920x1080: standard and cinematic")
        h.advance(.seconds(1))
        #expect(h.reply("set stabilization.video standard") == "ok stabilization.video=standard")
        h.advance(.milliseconds(300))
        #expect(h.supervisor.camera?.streamingControls[ControlName.scalerCrop] != nil, "the viewfinder's crop, before")
        #expect(h.reply("set video.prerecord 1s") == "ok video.prerecord=1")
        #expect(h.supervisor.recorder?.stabilizesInSoftware == true, "the ring's frames are cropped in software")
        h.advance(.milliseconds(300))
        #expect(h.supervisor.camera?.streamingControls[ControlName.scalerCrop] == nil, "not cropped twice")
        // Off while armed: the ring's frames go uncropped, and nothing crops the viewfinder either.
        #expect(h.reply("set stabilization.video off") == "ok stabilization.video=off")
        h.advance(.milliseconds(100))
        #expect(h.supervisor.recorder?.stabilizesInSoftware == false)
        #expect(h.reply("set stabilization.video cinematic") == "ok stabilization.video=cinematic")
        h.advance(.milliseconds(100))
        #expect(h.supervisor.recorder?.stabilizesInSoftware == true)
        // A recording from the ring, then the ring goes on stabilized; disarming gives the crop back.
        #expect(h.reply("record start").hasPrefix("ok recording="))
        h.advance(.seconds(1))
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(200))
        let stopped = try #require(h.output.take().first { $0.hasPrefix("event record.stopped") })
        #expect(SimulatedBoardHarness.field("dropped", in: stopped) == "0", "\(stopped)")
        #expect(h.supervisor.recorder?.stabilizesInSoftware == true)
        #expect(h.reply("set video.prerecord 0") == "ok video.prerecord=0")
        #expect(h.supervisor.recorder?.stabilizesInSoftware == false)
        h.advance(.seconds(1))  // cinematic's first crop comes 15 frames in
        #expect(h.supervisor.camera?.streamingControls[ControlName.scalerCrop] != nil, "the viewfinder's crop, after")
    }

    @Test func aRefusedVideoChangeLeavesThePreviousSettings() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-rec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let recorder = VideoRecorder(loop: ManualEventLoop(), storage: try PosixStorage(root: root), work: WorkTracker())
        var next = recorder.settings
        next.prerecordSeconds = 2
        next.bitrateBitsPerSecond = 3_000_000
        #expect(throws: ConsoleError.self) { try recorder.apply(next) }  // no camera to arm
        #expect(recorder.settings == VideoSettings(), "the refused change is not kept")
    }
}

