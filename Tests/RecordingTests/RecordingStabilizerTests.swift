import Camera
import Console
import Foundation
import Hardware
import Lifecycle
import LinuxHardware
import ManualLoop
import Motion
import Stabilization
import TestSupport
import Testing
import Video
@testable import Supervisor
@testable import Recording

/// The recording's own stabilization: each frame leaves with the warp planned for its exposure;
/// cinematic holds its look-ahead, and a stop releases every held frame.
@Suite struct RecordingStabilizerTests {
    static let size = PixelSize(width: 1152, height: 648)

    static func frame(_ i: Int) throws -> VideoFrame {
        try VideoFrame(size: size, stride: 1152, sequence: UInt64(i),
                       sensorTimestamp: MonotonicTime(nanoseconds: 1_000_000_000 + Int64(i) * 33_333_333)) { _ in }
    }

    /// A slow yaw (0.3 rad/s) from t = 1 s.
    static func orientation(_ time: MonotonicTime) -> Quaternion? {
        Quaternion(axis: Vector3(0, 1, 0), angle: (Double(time.nanoseconds) / 1e9 - 1) * 0.3)
    }

    static func stabilizer(_ mode: StabilizationMode) throws -> RecordingStabilizer {
        RecordingStabilizer(planner: try RotationPathPlanner(mode: mode),
                            geometry: { WarpGeometry(size: $0, focalLengthPixels: 750, margin: 0, lineNanoseconds: 25_000) },
                            orientationAt: Self.orientation)
    }

    @Test func standardWarpsEachFrameAtOnce() throws {
        let stabilizer = try Self.stabilizer(.standard)
        var yaw: [Double] = []
        for i in 0..<20 {
            let out = stabilizer.push(try Self.frame(i))
            #expect(out.count == 1 && out.first?.sequence == UInt64(i))
            #expect(out.first?.warp != nil)
            let record = try #require(out.first?.stabilized)
            yaw.append(record.correctionDegrees[1])
        }
        // The rig turns right and the smoothed view lags behind it: the correction turns left, more and more.
        #expect(yaw.last! < yaw[1] && yaw.last! < -0.5, "\(yaw)")
        #expect(stabilizer.flush().isEmpty)
    }

    @Test func cinematicHoldsItsLookaheadAndAStopReleasesIt() throws {
        let stabilizer = try Self.stabilizer(.cinematic)
        var released: [UInt64] = []
        for i in 0..<20 {
            released += stabilizer.push(try Self.frame(i)).map { $0.sequence }
        }
        #expect(released == Array(0..<5), "the first frames leave once 15 later ones are known")
        #expect(stabilizer.heldFrames == 15)
        let rest = stabilizer.flush()
        #expect(rest.map { $0.sequence } == Array(5..<20))
        #expect(rest.allSatisfy { $0.warp != nil && $0.stabilized != nil })
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
        #expect(h.supervisor.recorder.stabilizesInSoftware == true, "the ring's frames are cropped in software")
        h.advance(.milliseconds(300))
        #expect(h.supervisor.camera?.streamingControls[ControlName.scalerCrop] == nil, "not cropped twice")
        // Off while armed: the ring's frames go uncropped, and nothing crops the viewfinder either.
        #expect(h.reply("set stabilization.video off") == "ok stabilization.video=off")
        h.advance(.milliseconds(100))
        #expect(h.supervisor.recorder.stabilizesInSoftware == false)
        #expect(h.reply("set stabilization.video cinematic") == "ok stabilization.video=cinematic")
        h.advance(.milliseconds(100))
        #expect(h.supervisor.recorder.stabilizesInSoftware == true)
        // A recording from the ring, then the ring goes on stabilized; disarming gives the crop back.
        #expect(h.reply("record start").hasPrefix("ok recording="))
        h.advance(.seconds(1))
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(200))
        let stopped = try #require(h.output.take().first { $0.hasPrefix("event record.stopped") })
        #expect(SimulatedBoardHarness.field("dropped", in: stopped) == "0", "\(stopped)")
        #expect(h.supervisor.recorder.stabilizesInSoftware == true)
        #expect(h.reply("set video.prerecord 0") == "ok video.prerecord=0")
        #expect(h.supervisor.recorder.stabilizesInSoftware == false)
        h.advance(.seconds(1))  // cinematic's first crop comes 15 frames in
        #expect(h.supervisor.camera?.streamingControls[ControlName.scalerCrop] != nil, "the viewfinder's crop, after")
    }

    @Test func aRefusedVideoChangeLeavesThePreviousSettings() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-rec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let recorder = VideoRecorder(loop: ManualEventLoop(), camera: CameraSlot(), storage: try PosixStorage(root: root), work: WorkTracker(),
                                     settingKeys: .init(prerecord: "video.prerecord", framesPerSecond: "video.fps",
                                                        triggerAction: "trigger.action", stream: "stream.rtsp"))
        var next = recorder.settings
        next.prerecordSeconds = 2
        next.bitrateBitsPerSecond = 3_000_000
        #expect(throws: RecorderError.self) { try recorder.apply(next) }  // no camera to arm
        #expect(recorder.settings == VideoSettings(), "the refused change is not kept")
    }
}

