import Foundation
import Testing
import TestSupport

/// A ring of simulated rigs around `sim scene object` (docs/photogrammetry.md): `CollectFleet`'s
/// mosquitto and `tripod run` processes, each rig with its own `sim.pose` on a ring looking at the
/// object, stills rendered up to 1152 × 648 (a board file like sim-small but larger), the same
/// manual exposure, white balance and focus on every rig; then `tripod collect --layout colmap`,
/// COLMAP, and `tools/colmap-ring-check` against the sidecars' truth.
final class PhotogrammetryRing {
    /// How the rigs take the shot (the spin table in docs/photogrammetry.md).
    enum Trigger: String, CaseIterable {
        /// `fleet shot` with frame sync (one server, the rest clients): the same frame everywhere.
        case synced
        /// `fleet shot` without frame sync: the same instant, frames up to one frame apart.
        case freeRunning = "free-running"
        /// `capture` sent to each rig in turn: no shared instant.
        case eachInTurn = "each-in-turn"
    }

    static let rigCount = 12
    static let radiusMetres = 1.6, heightMetres = 0.9
    static let lookAt = "0,0,0.35"
    static let framesPerSecond = 30

    let fleet: CollectFleet
    let names: [String]
    let trigger: Trigger
    /// Seconds each stage took, in order, for the report.
    private(set) var stages: [(String, Double)] = []

    /// Rig k stands at angle 30°·k on the ring, 0.9 m up, looking at the object's middle.
    static func pose(_ k: Int) -> String {
        let angle = 2 * Double.pi * Double(k) / Double(rigCount)
        return String(format: "%.6f,%.6f,%.2f lookat %@", radiusMetres * cos(angle), radiusMetres * sin(angle), heightMetres, lookAt)
    }

    init(spinDegreesPerSecond: Double = 0, trigger: Trigger = .synced) throws {
        self.trigger = trigger
        names = (1...Self.rigCount).map { String(format: "r%02d", $0) }
        let board = NSTemporaryDirectory() + "tripod-ring-board-\(UUID().uuidString).json"
        try Self.boardFile(syncPort: try freeLoopbackPort()).write(toFile: board, atomically: true, encoding: .utf8)
        let common = ["sim.scene = object" + (spinDegreesPerSecond != 0 ? " spin \(spinDegreesPerSecond)" : ""),
                      "capture.format = jpeg", "format = 1", "video.fps = \(Self.framesPerSecond)",
                      "exposure.mode = custom", "exposure.duration = 6ms", "exposure.iso = 100",
                      "wb.mode = temperature", "wb.temperature = 5000K", "focus.mode = locked", "focus.lens = 1.7m",
                      // video.hdr auto reads frames to measure the scene: with a spinning object, a ray cast each time.
                      "video.hdr = off"]
        var perRig: [String: [String]] = [:]
        for (k, name) in names.enumerated() {
            perRig[name] = ["sim.pose = " + Self.pose(k)] + (trigger == .synced ? ["fleet.sync = \(k == 0 ? "server" : "client")"] : [])
        }
        let started = Date()
        fleet = try CollectFleet(names: names, extraConfig: common, rigConfig: perRig, board: board)
        try? FileManager.default.removeItem(atPath: board)
        stages.append(("rigs started (\(Self.rigCount) processes, broker)", Date().timeIntervalSince(started)))
    }

    /// sim-small with stills up to 1152 × 648 and frame sync on a port of its own.
    static func boardFile(syncPort: Int) -> String {
        """
        {"name": "sim-ring", "summary": "sim-small with frames up to 1152x648, for the photogrammetry ring test",
         "camera": {"backend": "sim", "sensor": "imx708", "connector": "CAM0", "seed": 1,
                    "maximumRenderSize": {"width": 1152, "height": 648},
                    "sync": {"group": "239.255.77.1", "port": \(syncPort), "interface": "127.0.0.1"}},
         "imu": {"backend": "sim", "address": 104, "orientation": "XYZ", "rateHertz": 500, "motion": "still"},
         "gpio": {"backend": "sim", "shutter": {"name": "SHUTTER", "bias": "pull-up", "activeLow": true}},
         "display": {"backend": "none"}}
        """
    }

    /// Takes the shot as `trigger` says; its id (the colmap layout's file name).
    func shoot() throws -> String {
        let started = Date()
        defer { stages.append(("shot (\(trigger.rawValue))", Date().timeIntervalSince(started))) }
        switch trigger {
        case .synced:
            // Every client aligned (`get fleet.sync` says active=ready) before the shot. Not
            // `status`: it meters the latest frame, which a spinning object must draw afresh.
            let clients = names.dropFirst()
            var ready: Set<String> = []
            guard waitUntil(seconds: 120, {
                for client in clients where !ready.contains(client) {
                    if self.fleet.rigs[client]?.ctl("get fleet.sync")?.contains("active=ready") == true { ready.insert(client) }
                }
                return ready.count == clients.count
            }) else {
                throw FleetTestFailure("frame sync never ready on every client: " + clients.map { "\($0): \(fleet.rigs[$0]?.ctl("get fleet.sync") ?? "")" }.joined(separator: "\n"))
            }
            return try fleet.shoot("capture", from: names[0])
        case .freeRunning:
            return try fleet.shoot("capture", from: names[0])
        case .eachInTurn:
            // The shot's name in the colmap layout is the fleet's; here each rig's own capture is
            // collected as rigs/<rig>/…, so give them a common name below.
            for name in names {
                guard let reply = fleet.rigs[name]?.ctl("capture"), reply.hasPrefix("ok ") else {
                    throw FleetTestFailure("\(name): capture refused")
                }
            }
            return "each-in-turn"
        }
    }

    /// `tripod collect --last --layout colmap` into `into`.
    func collect(into: String) throws {
        let started = Date()
        let run = try CollectRun(CollectRun.arguments(fleet, into: into, ["--last", "--layout", "colmap"]))
        guard run.finish(seconds: 300) == 0 else { throw FleetTestFailure("tripod collect failed: \(run.stderr)") }
        stages.append(("tripod collect --last --layout colmap", Date().timeIntervalSince(started)))
    }

    /// Each rig's newest capture (JPEG and sidecar) in the colmap layout under `shot`, for shots
    /// that are no fleet shot (`eachInTurn`).
    func gatherNewest(into: String, shot: String) throws {
        for name in names {
            let captures = try #require(fleet.rigs[name]).captures
            guard waitUntil(seconds: 60, { captureFiles(captures).contains { $0.hasSuffix("_01.jpg") } }) else {
                throw FleetTestFailure("\(name): no capture")
            }
            let files = captureFiles(captures).sorted()
            let jpeg = try #require(files.last { $0.hasSuffix("_01.jpg") })
            let sidecar = String(jpeg.dropLast("_01.jpg".count)) + ".json"
            guard waitUntil(seconds: 60, { (try? String(contentsOfFile: captures + "/" + sidecar, encoding: .utf8))?.contains("\"complete\"") == true }) else {
                throw FleetTestFailure("\(name): sidecar \(sidecar) never complete")
            }
            for (folder, file, ext) in [("images", jpeg, "jpg"), ("sidecars", sidecar, "json")] {
                try FileManager.default.createDirectory(atPath: "\(into)/\(folder)/\(name)", withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: captures + "/" + file, toPath: "\(into)/\(folder)/\(name)/\(shot).\(ext)")
            }
        }
    }

    /// COLMAP 3.8 headless on `folder` (images/<rig>/…): one shared camera with its focal length
    /// from EXIF, SIFT on the CPU, exhaustive matching, the mapper, the model as TXT in `folder/txt`.
    func reconstruct(_ folder: String) throws {
        let database = folder + "/database.db", sparse = folder + "/sparse", text = folder + "/txt"
        try FileManager.default.createDirectory(atPath: sparse, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: text, withIntermediateDirectories: true)
        for (stage, arguments) in Self.colmapCommands(database: database, images: folder + "/images", sparse: sparse, text: text) {
            let started = Date()
            try Self.run("/usr/bin/colmap", arguments, log: folder + "/colmap-\(stage).log")
            stages.append(("colmap " + stage, Date().timeIntervalSince(started)))
        }
    }

    /// The COLMAP commands, as docs/photogrammetry.md gives them.
    static func colmapCommands(database: String, images: String, sparse: String, text: String) -> [(String, [String])] {
        [("feature_extractor", ["feature_extractor", "--database_path", database, "--image_path", images,
                                "--ImageReader.single_camera", "1", "--SiftExtraction.use_gpu", "0",
                                "--SiftExtraction.max_num_features", "2048", "--SiftExtraction.first_octave", "0"]),
         ("exhaustive_matcher", ["exhaustive_matcher", "--database_path", database, "--SiftMatching.use_gpu", "0"]),
         ("mapper", ["mapper", "--database_path", database, "--image_path", images, "--output_path", sparse]),
         ("model_converter", ["model_converter", "--input_path", sparse + "/0", "--output_path", text, "--output_type", "TXT"])]
    }

    /// `tools/colmap-ring-check` on the model: its JSON.
    func check(_ folder: String, shot: String) throws -> [String: Any] {
        let started = Date()
        defer { stages.append(("tools/colmap-ring-check", Date().timeIntervalSince(started))) }
        let output = folder + "/check.json"
        try Self.run("/usr/bin/python3", [Self.repository + "/tools/colmap-ring-check", folder + "/txt", folder, shot], log: output)
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Runs a tool to its end, its output into `log`; throws with the log's tail when it fails.
    static func run(_ tool: String, _ arguments: [String], log: String) throws {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw FleetTestFailure("\(tool) is not installed: run tools/setup (it installs colmap and python3-numpy)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["QT_QPA_PLATFORM"] = "offscreen"
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw FleetTestFailure("\(tool) \(arguments.first ?? "") exited \(process.terminationStatus):\n\(text.suffix(2000))")
        }
    }

    /// The stages' times, one line each.
    var stageReport: String {
        stages.map { String(format: "%6.1f s  %@", $0.1, $0.0) }.joined(separator: "\n")
    }

    /// Ends the rig processes (their files stay), so COLMAP has the cores to itself.
    func stopRigs() { fleet.rigs.values.forEach { $0.stop() } }

    func stop() { fleet.stop() }
}
