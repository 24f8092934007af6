import Boards
import Foundation
import Hardware
import ManualLoop
import Testing
@testable import SimulatedHardware

/// The repository's `board/` directory, found from this file's path.
private let boardDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("board")

/// The JSON files in `board/<folder>` by name without `.json`, as text (what the generator embeds).
private func jsonFiles(_ folder: String) throws -> [String: String] {
    let dir = boardDirectory.appendingPathComponent(folder)
    var files: [String: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.hasSuffix(".json") {
        let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
        files[String(name.dropLast(5))] = String(text.reversed().drop { $0 == "\n" }.reversed())
    }
    return files
}

@Suite struct EmbeddedDescriptionsTests {
    /// Sources/Boards/EmbeddedDescriptions.swift is up to date with board/: every sensor
    /// file embedded with its exact text, and the sim board. (Regenerate: tools/embed-descriptions.)
    @Test func theGeneratedFileMatchesBoardDirectory() throws {
        let sensors = try jsonFiles("sensors")
        #expect(!sensors.isEmpty)
        #expect(Set(EmbeddedDescriptions.sensors.keys) == Set(sensors.keys))
        for (model, text) in sensors {
            #expect(EmbeddedDescriptions.sensors[model] == text, "\(model): stale, run tools/embed-descriptions")
        }
        let boards = try jsonFiles("boards")
        #expect(Set(EmbeddedDescriptions.boards.keys) == ["sim", "sim-small"])
        #expect(EmbeddedDescriptions.boards["sim"] == boards["sim"], "sim: stale, run tools/embed-descriptions")
        #expect(EmbeddedDescriptions.boards["sim-small"] == boards["sim-small"], "sim-small: stale, run tools/embed-descriptions")
    }

    /// `--board sim-small` is the simulated board with the same sensor, scene and seed, its frames
    /// rendered no larger than 384x216 (so 16 rigs fit on 2 cores), from any directory.
    @Test func simSmallIsTheSimBoardRenderedSmall() throws {
        let small = try BoardCatalog(directories: []).board("sim-small")
        let full = try BoardCatalog(directories: []).board("sim")
        #expect(small.camera.maximumRenderSize == PixelSize(width: 384, height: 216))
        #expect(full.camera.maximumRenderSize == nil)
        #expect(small.camera.sensor == full.camera.sensor && small.camera.seed == full.camera.seed)
        #expect(small.imu == full.imu && small.gpio == full.gpio)
        let loop = ManualEventLoop()
        let provider = try SimulatedCameraProvider(loop: loop, board: small, sensors: [])
        #expect(provider.maximumRenderSize == PixelSize(width: 384, height: 216))
    }

    /// The generator's own check agrees (byte for byte, header and layout included), where python3 exists.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func theGeneratorCheckPasses() throws {
        let tool = boardDirectory.deletingLastPathComponent().appendingPathComponent("tools/embed-descriptions")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [tool.path, "--check"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "tools/embed-descriptions --check: the generated file is stale")
    }

    @Test func everyEmbeddedSensorDecodesToItsFile() throws {
        for (model, text) in try jsonFiles("sensors") {
            let file = try JSONDecoder().decode(SensorDescription.self, from: Data(text.utf8))
            #expect(try SensorDescription.embedded(model: model.uppercased()) == file, "\(model)")
        }
        #expect(throws: HardwareError.self) { try SensorDescription.embedded(model: "imx999") }
    }

    /// The simulated board's camera, with no sensor database, simulates board/sensors/imx708.json.
    @Test func theSimulatedProvidersDefaultSensorIsTheIMX708File() throws {
        let sim = try JSONDecoder().decode(BoardDescription.self, from: Data(try #require(EmbeddedDescriptions.boards["sim"]).utf8))
        var board = sim
        board.camera.sensor = nil  // the provider's default model
        let provider = try SimulatedCameraProvider(loop: ManualEventLoop(), board: board, sensors: [])
        let file = try JSONDecoder().decode(SensorDescription.self,
                                            from: Data(contentsOf: boardDirectory.appendingPathComponent("sensors/imx708.json")))
        #expect(provider.sensor == file)
        #expect(try SimulatedCameraProvider(loop: ManualEventLoop(), board: sim, sensors: []).sensor == file)
    }
}
