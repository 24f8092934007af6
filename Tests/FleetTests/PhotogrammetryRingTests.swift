import Foundation
import Testing
import TestSupport

/// The rig's whole job, end to end (docs/photogrammetry.md): a real mosquitto, twelve `tripod run`
/// rig processes on a ring 30° apart around `sim scene object`, one frame-sync server, one
/// `fleet shot`, `tripod collect --last --layout colmap`, then Debian's COLMAP 3.8 headless; the
/// model must have every image, and after a similarity transform the cameras where the sidecars
/// say they stood.
@Suite(.serialized) struct PhotogrammetryRingTests {
    @Test func twelveSyncedRigsAroundTheObjectReconstructInColmap() throws {
        let ring = try PhotogrammetryRing(trigger: .synced)
        defer { ring.stop() }
        let shot = try ring.shoot()
        let folder = ring.fleet.work + "/colmap"
        try ring.collect(into: folder)

        // What the rigs' JPEGs tell COLMAP: each rig its own serial.
        var serials: Set<String> = []
        for name in ring.names {
            let tags = try #require(exif("\(folder)/images/\(name)/\(shot).jpg"))
            serials.insert(try #require(tags["SerialNumber"] as? String))
            #expect(tags["FocalLengthIn35mmFormat"] as? Int == 28, "\(name): \(tags)")
        }
        #expect(serials.count == PhotogrammetryRing.rigCount, "\(serials)")

        ring.stopRigs()
        try ring.reconstruct(folder)
        let result = try ring.check(folder, shot: shot)
        print("PhotogrammetryRingTests stages:\n\(ring.stageReport)")
        print("PhotogrammetryRingTests check: \(String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self))")

        #expect(result["images"] as? Int == PhotogrammetryRing.rigCount)
        #expect(result["registered"] as? Int == PhotogrammetryRing.rigCount, "missing: \(result["missing"] ?? "")")
        let centres = try #require(result["centreErrorOfRadius"] as? [String: Double])
        #expect(try #require(centres["max"]) < 0.01, "camera centres off by \(centres) of the ring's radius")
        let rotations = try #require(result["rotationErrorDegrees"] as? [String: Double])
        #expect(try #require(rotations["max"]) < 1, "orientations off by \(rotations) degrees")
        let focal = try #require(result["focal"] as? [String: [String: Any]])
        #expect(focal.count == 1, "one shared camera: \(focal)")
        for (camera, entry) in focal {
            let ratio = try #require(entry["ratio"] as? Double)
            #expect(abs(ratio - 1) < 0.02, "camera \(camera): focal length \(entry)")
        }
        // The object stood still: every rig saw it unturned.
        let turns = try #require(result["objectRotationDegrees"] as? [String: Double])
        #expect(turns.count == PhotogrammetryRing.rigCount && turns.values.allSatisfy { $0 == 0 }, "\(turns)")
    }
}
