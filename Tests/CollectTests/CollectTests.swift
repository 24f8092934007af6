import Foundation
import Testing
import TestSupport
@testable import Fleet
@testable import FleetConsole
import Remote

/// `tripod collect` against real processes: a mosquitto on 127.0.0.1, `tripod run --board
/// sim-small` rigs with their remotes and the collection key, `fleet shot`, then the collector as
/// a process of its own (docs/collect.md).
@Suite(.serialized) struct CollectTests {
    /// Four rigs, one shot, `--last` in both layouts: every file of every rig is in DIR, byte for
    /// byte the rig's, the manifest says checked for each, and the colmap layout gives every rig's
    /// image of the shot the same name.
    @Test func fourRigsOneShotCollectedInBothLayoutsEveryFileChecked() throws {
        let names = ["r1", "r2", "r3", "r4"]
        let fleet = try CollectFleet(names: names)
        defer { fleet.stop() }
        let shot = try fleet.shoot()

        let rigsDir = fleet.work + "/rigs"
        let run = try CollectRun(CollectRun.arguments(fleet, into: rigsDir, ["--last"]))
        #expect(run.finish() == 0, "\(run.stderr)")
        let summary = try #require(run.summary)
        #expect(summary["shot"] as? String == shot)
        for rig in names {
            let expected = try fleet.rigFiles(rig, shot: shot)
            #expect(expected.count == 3, "\(rig): a sidecar, a DNG and a JPEG: \(expected.keys.sorted())")
            for (name, data) in expected {
                #expect(FileManager.default.contents(atPath: "\(rigsDir)/\(shot)/\(rig)/\(name)") == data, "\(rig)/\(name)")
            }
        }
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(rigsDir)/\(shot)/manifest.json"))) as? [String: Any])
        let rigs = try #require(manifest["rigs"] as? [String: [String: Any]])
        #expect(Set(rigs.keys) == Set(names))
        for (rig, entry) in rigs {
            let files = try #require(entry["files"] as? [[String: Any]])
            #expect(files.count == 3 && files.allSatisfy { $0["state"] as? String == "checked" }, "\(rig): \(files)")
            #expect(entry["offsetMicroseconds"] != nil && entry["clock"] != nil)
        }
        #expect(manifest["maximumSkewMicroseconds"] != nil)
        #expect(partialFiles(rigsDir).isEmpty)

        let colmap = fleet.work + "/colmap"
        let second = try CollectRun(CollectRun.arguments(fleet, into: colmap, ["--last", "--layout", "colmap"]))
        #expect(second.finish() == 0, "\(second.stderr)")
        for rig in names {
            let expected = try fleet.rigFiles(rig, shot: shot)
            let jpeg = try #require(expected.first { $0.key.hasSuffix(".jpg") }?.value)
            let dng = try #require(expected.first { $0.key.hasSuffix(".dng") }?.value)
            #expect(FileManager.default.contents(atPath: "\(colmap)/images/\(rig)/\(shot).jpg") == jpeg)
            #expect(FileManager.default.contents(atPath: "\(colmap)/raw/\(rig)/\(shot).dng") == dng)
        }
        #expect(visibleFiles(colmap + "/images").count == 4)

        // What Meshroom and COLMAP read: a serial per rig, the 35 mm focal length, the focal plane.
        var serials: Set<String> = []
        for rig in names {
            let jpeg = try #require(exif("\(colmap)/images/\(rig)/\(shot).jpg"))
            let dng = try #require(exif("\(colmap)/raw/\(rig)/\(shot).dng"))
            // exiftool names EXIF 0xA431 (BodySerialNumber) SerialNumber.
            let serial = try #require(jpeg["SerialNumber"] as? String)
            #expect(dng["CameraSerialNumber"] as? String == serial)
            serials.insert(serial)
            // The focal plane is the area of the array the picture shows: the frame's ScalerCrop
            // (at the default zoom the sensor mode's whole area, which the DNG shows too). IMX708:
            // 1.4 um pixels, a 4.74 mm lens; its whole 4608 x 2592 array is 28 mm in 35 mm terms,
            // sim-small's 1536x864 mode reads a 3072 x 1728 crop of it: 42 mm.
            let sidecar = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(colmap)/sidecars/\(rig)/\(shot).json"))) as? [String: Any])
            let crop = try #require(((sidecar["frames"] as? [[String: Any]])?.first?["scalerCrop"]) as? [String: Int])
            let planeWidthMillimetres = Double(try #require(crop["width"])) * 0.0014, planeHeightMillimetres = Double(try #require(crop["height"])) * 0.0014
            let equivalent = Int((4.74 * (36.0 * 36 + 24 * 24).squareRoot()
                                  / (planeWidthMillimetres * planeWidthMillimetres + planeHeightMillimetres * planeHeightMillimetres).squareRoot()).rounded())
            for tags in [jpeg, dng] {
                #expect(tags["FocalLengthIn35mmFormat"] as? Int == equivalent, "\(crop) \(tags)")
                #expect(tags["FocalPlaneResolutionUnit"] as? Int == 3, "\(tags)")
                let x = try #require(tags["FocalPlaneXResolution"] as? Double), y = try #require(tags["FocalPlaneYResolution"] as? Double)
                let width = try #require(tags["ImageWidth"] as? Int)
                #expect(abs(x - Double(width) / (planeWidthMillimetres / 10)) < 1 && abs(x - y) < 1, "\(crop) \(tags)")
            }
        }
        #expect(serials.count == 4, "\(serials)")
    }

    /// The collection key lists and downloads captures, and nothing else: no command, no status,
    /// no settings, no preview, no events, no login; a wrong key is refused. The key is shown by a
    /// signature of each request (docs/security.md): the key itself as a bearer, a signature for
    /// another rig and a nonce used twice are refused like a wrong key.
    @Test func theCollectionKeyMayOnlyListAndDownloadCaptures() throws {
        let fleet = try CollectFleet(names: ["r1"])
        defer { fleet.stop() }
        let shot = try fleet.shoot()
        let remote = try #require(fleet.remote(of: "r1"))
        let key = String(repeating: "0123456789abcdef", count: 4)
        /// The `Authorization` value of METHOD PATH signed with `key` for `rig`, a new nonce each time.
        func signed(_ path: String, method: String = "GET", rig: String = "r1", key given: String = key) -> String {
            (try? CollectSignature.sign(key: given, method: method, path: path, rig: rig).header) ?? "unsigned"
        }
        func code(_ path: String, method: String = "GET", key given: String = key, authorization: String? = nil) -> String {
            curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "5", "-X", method,
                  "-H", "Authorization: \(authorization ?? signed(path, method: method, key: given))"]
                 + (method == "POST" ? ["--data-binary", "capture"] : []) + [remote + path])
        }
        #expect(code("/api/captures") == "200")
        #expect(code("/api/shots/\(shot)") == "200")
        let part = curl(["-s", "-H", "Authorization: \(signed("/api/shots/\(shot)"))", remote + "/api/shots/\(shot)"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(part.utf8)) as? [String: Any])
        let file = try #require((object["files"] as? [[String: Any]])?.first?["path"] as? String)
        #expect(code("/captures/\(file)") == "200")
        // A download with a valid signature: the rig's bytes.
        let downloaded = fleet.work + "/downloaded"
        #expect(curl(["-s", "-o", downloaded, "-w", "%{http_code}", "-m", "10", "-H", "Authorization: \(signed("/captures/\(file)"))",
                      remote + "/captures/\(file)"]) == "200")
        let original = try fleet.rigFiles("r1", shot: shot)[(file as NSString).lastPathComponent]
        #expect(original != nil && FileManager.default.contents(atPath: downloaded) == original)
        for path in ["/api/status", "/api/settings", "/api/formats", "/stream.mjpg", "/api/events", "/"] {
            #expect(code(path) == "403", "\(path)")
        }
        #expect(code("/api/command", method: "POST") == "403")
        #expect(code("/login", method: "POST") == "403")
        // The refusals, 4 of them: under the limiter's 5 a minute, so each is answered 401, not 429.
        #expect(code("/api/captures", key: String(repeating: "f", count: 64)) == "401")
        #expect(code("/api/captures", authorization: "Bearer \(key)") == "401")
        #expect(code("/api/captures", authorization: signed("/api/captures", rig: "r2")) == "401")
        let once = signed("/api/captures")
        #expect(code("/api/captures", authorization: once) == "200")
        #expect(code("/api/captures", authorization: once) == "401")
        // Nothing ran: the rig took no second capture.
        #expect(try fleet.rigFiles("r1", shot: shot).count == 3)
        #expect(captureFiles(try #require(fleet.rigs["r1"]).captures).filter { $0.hasSuffix(".jpg") }.count == 1)
    }

    /// A byte changed in a file on the rig after the shot: the collector fetches it twice, then
    /// names it corrupt (exit status 4), and leaves no file under its name in DIR.
    @Test func aByteChangedOnTheRigIsNamedCorrupt() throws {
        let fleet = try CollectFleet(names: ["r1"])
        defer { fleet.stop() }
        let shot = try fleet.shoot()
        let captures = try #require(fleet.rigs["r1"]).captures
        let jpeg = try #require(captureFiles(captures).first { $0.hasSuffix(".jpg") })
        var bytes = try Data(contentsOf: URL(fileURLWithPath: captures + "/" + jpeg))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: captures + "/" + jpeg))

        let into = fleet.work + "/out"
        let run = try CollectRun(CollectRun.arguments(fleet, into: into, ["--shot", shot]))
        #expect(run.finish() == 4, "\(run.stderr)")
        let corrupt = try #require(run.summary?["corrupt"] as? [[String: String]])
        #expect(corrupt == [["rig": "r1", "file": jpeg]])
        // Fetched twice (a mismatch is fetched once more), every other file once.
        let total = try fleet.rigFiles("r1", shot: shot).values.reduce(0) { $0 + $1.count }
        #expect(run.summary?["fetchedBytes"] as? Int == total + bytes.count, "\(run.summary ?? [:])")
        #expect(!FileManager.default.fileExists(atPath: "\(into)/\(shot)/r1/\((jpeg as NSString).lastPathComponent)"))
        #expect(visibleFiles(into + "/" + shot + "/r1").count == 2)
    }

    /// The collector killed with SIGKILL mid-transfer leaves no partial file in the layout; started
    /// again it resumes the partial one with Range and fetches only what was left.
    @Test func theCollectorKilledAndStartedAgainFetchesOnlyWhatIsLeft() throws {
        let fleet = try CollectFleet(names: ["r1"])
        defer { fleet.stop() }
        let shot = try fleet.shoot()
        let into = fleet.work + "/out"
        let total = try fleet.rigFiles("r1", shot: shot).values.reduce(0) { $0 + $1.count }
        // Slow transfers (16 kB/s, one at a time), so that one is caught half-way.
        let first = try CollectRun(CollectRun.arguments(fleet, into: into, ["--shot", shot, "--parallel", "1", "--rate-limit", "16"]))
        #expect(waitUntil(seconds: 60) { partialFiles(into).contains { $0.1 > 0 } })
        first.kill9()
        let partialBytes = partialFiles(into).reduce(0) { $0 + $1.1 }
        let expected = try fleet.rigFiles("r1", shot: shot)
        // In the layout: only whole, checked files.
        for path in visibleFiles(into) {
            #expect(expected[(path as NSString).lastPathComponent] == FileManager.default.contents(atPath: into + "/" + path), "\(path)")
        }
        let present = visibleFiles(into).compactMap { expected[($0 as NSString).lastPathComponent]?.count }.reduce(0, +)

        let second = try CollectRun(CollectRun.arguments(fleet, into: into, ["--shot", shot]))
        #expect(second.finish() == 0, "\(second.stderr)")
        let fetched = try #require(second.summary?["fetchedBytes"] as? Int)
        #expect(fetched == total - present - partialBytes, "fetched \(fetched) of \(total); \(present) were in place, \(partialBytes) partial")
        #expect(partialBytes > 0)
        for (name, data) in expected {
            #expect(FileManager.default.contents(atPath: "\(into)/\(shot)/r1/\(name)") == data, "\(name)")
        }
        #expect(partialFiles(into).isEmpty)
    }

    /// A rig killed during a transfer: started again (same captures, same port), its files are
    /// resumed and checked; killed for good, they are named missing at the deadline (exit 3).
    @Test func aRigKilledDuringATransferIsResumedWhenItReturnsOrNamedMissingAtTheDeadline() throws {
        let fleet = try CollectFleet(names: ["r1", "r2"])
        defer { fleet.stop() }
        let shot = try fleet.shoot()
        let into = fleet.work + "/out"
        let expected = try fleet.rigFiles("r1", shot: shot)
        let run = try CollectRun(CollectRun.arguments(fleet, into: into, ["--shot", shot, "--rate-limit", "16", "--deadline", "90"]))
        #expect(waitUntil(seconds: 60) { partialFiles(into).contains { $0.0.contains("/r1/") && $0.1 > 0 } })
        let r1 = try #require(fleet.rigs["r1"])
        r1.kill9()
        try fleet.start("r1", work: r1.work)
        #expect(run.finish() == 0, "\(run.stderr)")
        for (name, data) in expected {
            #expect(FileManager.default.contents(atPath: "\(into)/\(shot)/r1/\(name)") == data, "\(name)")
        }

        let again = fleet.work + "/again"
        // One transfer at once, so that r2's last file is still to be asked when r2 is killed (a
        // whole 24 kB file asked already may sit in the collector's socket buffer).
        let late = try CollectRun(CollectRun.arguments(fleet, into: again, ["--shot", shot, "--rate-limit", "16", "--deadline", "20", "--parallel", "1"]))
        #expect(waitUntil(seconds: 60) { partialFiles(again).contains { $0.0.contains("/r2/") && $0.1 > 0 } })
        try #require(fleet.rigs["r2"]).kill9()
        #expect(late.finish() == 3, "\(late.stderr)")
        let missing = try #require(late.summary?["missing"] as? [[String: String]])
        #expect(!missing.isEmpty && missing.allSatisfy { $0["rig"] == "r2" }, "\(missing)")
        #expect(partialFiles(again).allSatisfy { $0.0.contains("/r2/") })
    }

    /// The broker stops during the collection: the collector finishes from the addresses it knows.
    @Test func theBrokerGoneMidCollectionFinishesFromKnownAddresses() throws {
        let fleet = try CollectFleet(names: ["r1"])
        defer { fleet.stop() }
        let shot = try fleet.shoot()
        let into = fleet.work + "/out"
        let run = try CollectRun(CollectRun.arguments(fleet, into: into, ["--shot", shot, "--rate-limit", "16"]))
        #expect(waitUntil(seconds: 60) { partialFiles(into).contains { $0.1 > 0 } })
        fleet.broker.stop()
        #expect(run.finish() == 0, "\(run.stderr)")
        #expect(visibleFiles(into + "/" + shot + "/r1").count == 3)
    }
}

extension CollectTests {
    /// `--follow` collects each shot once as it comes and runs `--then` once per shot with the
    /// shot's folder; stopped and started again, it skips the shots its journal lists.
    @Test func followCollectsEachShotOnceRunsThenAndResumesFromItsJournal() throws {
        let fleet = try CollectFleet(names: ["r1"])
        defer { fleet.stop() }
        let into = fleet.work + "/out"
        let log = fleet.work + "/then.log"
        let script = fleet.work + "/then.sh"
        try "echo \"$1\" >> \(log)\n".write(toFile: script, atomically: true, encoding: .utf8)
        let follow = ["--follow", "--then", "/bin/sh \(script)"]
        func thenLines() -> [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        func following(_ run: CollectRun) -> Bool {
            run.objects.contains { ($0["message"] as? String)?.hasPrefix("following") == true }
        }

        let first = try CollectRun(CollectRun.arguments(fleet, into: into, follow))
        #expect(waitUntil(seconds: 30) { following(first) })
        let one = try fleet.shoot()
        #expect(waitUntil(seconds: 60) { thenLines().count == 1 })
        let two = try fleet.shoot()
        #expect(waitUntil(seconds: 60) { thenLines().count == 2 })
        first.process.terminate()
        #expect(first.finish() == 0, "\(first.stderr)")

        // Started again: the broker's retained report is shot two's, already in the journal.
        let second = try CollectRun(CollectRun.arguments(fleet, into: into, follow))
        #expect(waitUntil(seconds: 30) { following(second) })
        let three = try fleet.shoot()
        #expect(waitUntil(seconds: 60) { thenLines().count == 3 })
        second.process.terminate()
        #expect(second.finish() == 0, "\(second.stderr)")
        #expect(thenLines() == [one, two, three].map { "\(into)/\($0)" })
        #expect(!second.objects.contains { $0["type"] as? String == "summary" && $0["shot"] as? String == two })
        for shot in [one, two, three] { #expect(visibleFiles(into + "/" + shot).count == 4, "\(shot): 3 files and the manifest") }
    }
}

extension CollectTests {
    /// `--follow` across a broker restart: it says the broker was lost and is back, subscribes
    /// again (a clean session keeps no subscription), and collects the next shot. Before, it
    /// reconnected without subscribing and silently saw no shot again.
    @Test func followSubscribesAgainAfterTheBrokerRestarts() throws {
        let fleet = try CollectFleet(names: ["r1"])
        defer { fleet.stop() }
        let into = fleet.work + "/out"
        func notes(_ run: CollectRun) -> [String] {
            run.objects.compactMap { $0["type"] as? String == "note" ? $0["message"] as? String : nil }
        }
        func summaries(_ run: CollectRun) -> [String] {
            run.objects.compactMap { $0["type"] as? String == "summary" ? $0["shot"] as? String : nil }
        }
        let run = try CollectRun(CollectRun.arguments(fleet, into: into, ["--follow"]))
        #expect(waitUntil(seconds: 30) { notes(run).contains { $0.hasPrefix("following") } })
        let one = try fleet.shoot()
        #expect(waitUntil(seconds: 60) { summaries(run) == [one] }, "\(run.objects)")

        fleet.broker.stop()
        #expect(waitUntil(seconds: 30) { notes(run).contains { $0.hasPrefix("lost the broker") } }, "\(run.objects)")
        try fleet.broker.start()
        #expect(waitUntil(seconds: 30) { notes(run).contains { $0.hasPrefix("the broker is back: following") } }, "\(run.objects)")
        // The rig is back on the broker too (libmosquitto's backoff: up to 10 s here).
        let rig = try #require(fleet.rigs["r1"])
        #expect(waitUntil(seconds: 60) { (rig.ctl("fleet status") ?? "").hasPrefix("ok broker=connected") })
        let reply = rig.ctl("fleet shot in 2s capture") ?? ""
        let two = try #require(fields(reply)["shot"], "\(reply)")
        #expect(waitUntil(seconds: 60) { summaries(run) == [one, two] }, "\(run.objects)")
        run.process.terminate()
        #expect(run.finish() == 0, "\(run.stderr)")
        #expect(visibleFiles(into + "/" + two).count == 4, "3 files and the manifest")
    }
}

extension CollectTests {
    /// A rig that serves its remote over HTTPS (`remote.tls`) advertises `https://`; the collector
    /// fetches over TLS when it trusts the rig's certificate (`--remote-ca`), and fetches nothing
    /// (the rig's files missing) when it does not.
    @Test func aRigServingHTTPSIsCollectedOverTLSOnlyWhenItsCertificateIsTrusted() throws {
        let certificate = "remote.crt", privateKey = "remote.key"
        var folder = ""
        let fleet = try CollectFleet(names: ["r1"], extraConfig: []) { work in
            folder = work
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                 "-keyout", work + "/" + privateKey, "-out", work + "/" + certificate, "-days", "2",
                                 "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            chmod(work + "/" + privateKey, 0o600)
        }
        defer { fleet.stop() }
        // The rig started before the certificate's lines could be in its config: set them at its own console.
        let r1 = try #require(fleet.rigs["r1"])
        #expect(r1.ctl("set remote.tls \(folder)/\(certificate) \(folder)/\(privateKey)")?.hasPrefix("ok") == true)
        #expect(waitUntil(seconds: 30) { fleet.remote(of: "r1")?.hasPrefix("https://") == true })
        let shot = try fleet.shoot()

        let untrusted = try CollectRun(CollectRun.arguments(fleet, into: fleet.work + "/untrusted", ["--shot", shot, "--deadline", "5"]))
        #expect(untrusted.finish() == 3, "\(untrusted.stderr)")
        #expect((untrusted.summary?["missingRigs"] as? [String]) == ["r1"])

        let into = fleet.work + "/out"
        let trusted = try CollectRun(CollectRun.arguments(fleet, into: into, ["--shot", shot, "--remote-ca", "\(folder)/\(certificate)"]))
        #expect(trusted.finish() == 0, "\(trusted.stderr)")
        for (name, data) in try fleet.rigFiles("r1", shot: shot) {
            #expect(FileManager.default.contents(atPath: "\(into)/\(shot)/r1/\(name)") == data, "\(name)")
        }
    }
}

/// `curl ARGS`: its standard output.
func curl(_ arguments: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return "" }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// exiftool's numeric values of the tags the collector's users read, for one file.
func exif(_ path: String) -> [String: Any]? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
    process.arguments = ["-j", "-n", "-EXIF:SerialNumber", "-CameraSerialNumber", "-FocalLengthIn35mmFormat", "-FocalPlaneXResolution",
                         "-FocalPlaneYResolution", "-FocalPlaneResolutionUnit", "-ImageWidth", path]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ((try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]])?.first
}

extension CollectTests {
    /// A broker user advertises a listening socket of the test's as a rig (a retained status
    /// under its own name, `evil`): the collector asks it, as it asks every rig it knows, but
    /// what arrives is a signature for `evil` alone, never the key, which another rig refuses.
    @Test func aHostAdvertisedOnTheBrokerNeverReceivesTheKey() throws {
        let fleet = try CollectFleet(names: [])
        defer { fleet.stop() }
        let catcher = try RequestHeadCatcher()
        defer { catcher.stop() }
        try fleet.observer.publish("tripod/g/evil/state", "online", retain: true)
        try fleet.observer.publish("tripod/g/evil/status", #"{"type":"reply","ok":true,"values":{"remote":"http://127.0.0.1:\#(catcher.port)"}}"#,
                                   retain: true)
        let shot = "evil-1777636805250"
        let run = try CollectRun(CollectRun.arguments(fleet, into: fleet.work + "/out", ["--shot", shot, "--deadline", "3"]))
        #expect(waitUntil(seconds: 30) { !catcher.heads.isEmpty })
        _ = run.finish()
        let key = try String(contentsOfFile: fleet.key, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let heads = catcher.heads
        #expect(!heads.isEmpty)
        for head in heads {
            #expect(!head.contains(key), "\(head)")
            let lines = head.components(separatedBy: "\r\n")
            #expect(lines.first == "GET /api/shots/\(shot) HTTP/1.1", "\(head)")
            let authorization = try #require(lines.first { $0.lowercased().hasPrefix("authorization:") }.map { String($0.dropFirst("authorization:".count)).trimmingCharacters(in: .whitespaces) })
            #expect(authorization.hasPrefix("TripodCollect "), "\(authorization)")
            let signature = try #require(CollectSignature.parse(authorization))
            #expect(signature.rig == "evil")
            // Good for `evil` alone: any real rig, under its own name, refuses it.
            #expect(refusal(CollectionAccess(key: key, rig: "r1").verify(authorization, method: "GET", path: "/api/shots/\(shot)")) == .otherRig("evil"))
            #expect(refusal(CollectionAccess(key: key, rig: "evil").verify(authorization, method: "GET", path: "/api/shots/\(shot)")) == nil)
        }
    }
}
