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

/// The spin table of docs/photogrammetry.md: `sim scene object spin 60` shot synced, free-running
/// and sent to each rig in turn, against a still object. Minutes long, so only when asked:
/// `TRIPOD_SPIN_TABLE=FILE swift test --filter PhotogrammetrySpinTable` writes the table (Markdown)
/// to FILE and prints it, and draws the still object's model beside it (photogrammetry-model.png).
/// A measurement more than a test: its one claim about sync (the synced spinning shot as good as the
/// still one) is not met yet and is marked a known issue (docs/photogrammetry.md).
@Suite(.serialized) struct PhotogrammetrySpinTable {
    static let output = ProcessInfo.processInfo.environment["TRIPOD_SPIN_TABLE"]

    @Test(.enabled(if: output != nil)) func syncedFreeRunningAndEachInTurnOnASpinningObject() throws {
        let runs: [(String, Double, PhotogrammetryRing.Trigger)] = [
            ("still object, synced", 0, .synced), ("spin 60 °/s, synced", 60, .synced),
            ("spin 60 °/s, free-running", 60, .freeRunning), ("spin 60 °/s, each rig in turn", 60, .eachInTurn),
        ]
        var rows = ["| shot | registered | object turn spread (°) | centre error, max / mean (% of radius) | orientation error, max / mean (°) | reprojection error, all / object points (px) | object points |",
                    "|---|---|---|---|---|---|---|"]
        var results: [String: [String: Any]] = [:]
        for (label, spin, trigger) in runs {
            let ring = try PhotogrammetryRing(spinDegreesPerSecond: spin, trigger: trigger)
            defer { ring.stop() }
            let shot = try ring.shoot()
            let folder = ring.fleet.work + "/colmap"
            if trigger == .eachInTurn { try ring.gatherNewest(into: folder, shot: shot) } else { try ring.collect(into: folder) }
            ring.stopRigs()
            var result: [String: Any] = [:]
            do {
                try ring.reconstruct(folder)
                result = try ring.check(folder, shot: shot)
            } catch {
                result = ["registered": 0]
                print("PhotogrammetrySpinTable \(label): \(error)")
            }
            results[label] = result
            if let output = Self.output {
                // Keep the shot (images, sidecars, manifest, model, check) beside the table.
                let kept = (output as NSString).deletingLastPathComponent + "/" + "\(trigger.rawValue)-spin\(Int(spin))"
                try? FileManager.default.removeItem(atPath: kept)
                try? FileManager.default.copyItem(atPath: folder, toPath: kept)
            }
            if spin == 0, let output = Self.output, result["registered"] as? Int == PhotogrammetryRing.rigCount {
                // The picture of docs/photogrammetry.md: the still object's model and its cameras.
                let picture = (output as NSString).deletingLastPathComponent + "/photogrammetry-model.png"
                try PhotogrammetryRing.run("/usr/bin/python3", [PhotogrammetryRing.repository + "/tools/colmap-model-picture", folder + "/txt",
                                                                picture, folder + "/check.json"], log: folder + "/picture.log")
            }
            print("PhotogrammetrySpinTable \(label) stages:\n\(ring.stageReport)")
            let turns = (result["objectRotationDegrees"] as? [String: Double] ?? [:]).values.sorted()
            // The spread of the turn across the rigs (on the circle: the largest gap's complement).
            var spread = 0.0
            if turns.count > 1 {
                let gaps = zip(turns.dropFirst(), turns).map { $0 - $1 } + [turns[0] + 360 - turns[turns.count - 1]]
                spread = 360 - (gaps.max() ?? 360)
            }
            func pair(_ key: String, _ scale: Double, _ format: String) -> String {
                guard let v = result[key] as? [String: Double], let m = v["max"], let a = v["mean"] else { return "-" }
                return String(format: format + " / " + format, m * scale, a * scale)
            }
            let reprojection = result["reprojectionErrorPixels"] as? [String: Double] ?? [:]
            rows.append("| \(label) | \(result["registered"] as? Int ?? 0) / \(PhotogrammetryRing.rigCount) | \(String(format: "%.2f", spread)) | "
                        + "\(pair("centreErrorOfRadius", 100, "%.3f")) | \(pair("rotationErrorDegrees", 1, "%.3f")) | "
                        + "\(reprojection["all"].map { String(format: "%.3f", $0) } ?? "-") / \(reprojection["object"].map { String(format: "%.3f", $0) } ?? "-") | "
                        + "\(result["objectPoints"] as? Int ?? 0) |")
        }
        let table = rows.joined(separator: "\n") + "\n"
        print(table)
        if let output = Self.output { try table.write(toFile: output, atomically: true, encoding: .utf8) }
        // The synced shot of the spinning object is as good as the still one, within noise.
        let still = try #require(results["still object, synced"]), synced = try #require(results["spin 60 °/s, synced"])
        #expect(synced["registered"] as? Int == PhotogrammetryRing.rigCount)
        let stillError = try #require((still["centreErrorOfRadius"] as? [String: Double])?["max"])
        let syncedError = try #require((synced["centreErrorOfRadius"] as? [String: Double])?["max"])
        // Not yet (docs/photogrammetry.md, "Why sync matters, measured: not yet"): twelve simulated rigs
        // ray casting a spinning object on a loaded 2-core machine expose seconds after the shot's
        // instant, so the synced row measures the simulator's lag, not frame sync. Recorded as a known
        // issue, not a pass; intermittent, as an idle machine may meet it.
        withKnownIssue("not yet: the simulated rigs expose late under load, so the synced row is not a measure of sync",
                       isIntermittent: true) {
            #expect(syncedError < max(3 * stillError, 0.002), "synced \(syncedError) vs still \(stillError)")
        }
    }
}
