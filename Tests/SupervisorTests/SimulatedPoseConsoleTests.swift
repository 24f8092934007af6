import Foundation
import Hardware
import Lifecycle
import Settings
import SimulatedHardware
import TestSupport
import Testing
@testable import Startup
@testable import Supervisor

/// `sim pose X,Y,Z lookat X,Y,Z` and `sim scene object [spin DEG_PER_S]` at the console and as
/// `sim.pose` / `sim.scene` in the config file; the sidecar's `simulation` truth
/// (docs/photogrammetry.md).
@Suite(.serialized) struct SimulatedPoseConsoleTests {
    @Test func poseAndObjectSceneAtTheConsoleReachTheSidecar() throws {
        let harness = try SimulatedBoardHarness.devices(renderSize: PixelSize(width: 192, height: 108))
        let (session, output) = harness.attach(name: "pose")
        func reply(_ line: String) -> String {
            harness.send(line, from: session, output: output).last { $0.hasPrefix("ok") || $0.hasPrefix("err") } ?? ""
        }
        #expect(reply("sim pose 1,2 lookat 0,0,0").hasPrefix("err bad-value pose: position \"1,2\" is not three numbers"))
        #expect(reply("sim pose 1,0,1 lookat 1,0,1").hasPrefix("err bad-value"))
        #expect(reply("sim pose 0,0,3 lookat 0,0,0").contains("straight up or down"))
        #expect(reply("sim pose 1,0,1").hasPrefix("err usage"))
        #expect(reply("sim scene object spin fast").hasPrefix("err bad-value scene object spin \"fast\""))
        #expect(reply("sim scene teapot").hasPrefix("err bad-value"))
        // Numbers that are no coordinates or speeds: said, never taken (nor a crash).
        for line in ["sim pose nan,0,1 lookat 0,0,0", "sim pose inf,0,1 lookat 0,0,0", "sim pose 1e400,0,1 lookat 0,0,0",
                     "sim pose 1,0,1 lookat 0,0,-inf", "sim pose 0,0,2 lookat 0.0001,0,0", "sim scene object spin nan",
                     "sim scene object spin inf", "sim scene object spin -1e9"] {
            #expect(reply(line).hasPrefix("err bad-value"), "\(line)")
        }
        #expect(reply("sim scene object spin 60 now").hasPrefix("err"))

        #expect(reply("sim pose -1.6,0,0.9 lookat 0,0,0.35") == "ok pose=\"-1.6,0,0.9 lookat 0,0,0.35\"")
        #expect(reply("sim scene object spin 60") == "ok scene=\"object spin 60\"")
        let camera = try #require(harness.supervisor.devices.cameraProvider as? SimulatedCameraProvider).openedCamera
        #expect(camera?.scene.object?.spinDegreesPerSecond == 60 && camera?.scene.pose.positionMetres == SIMD3(-1.6, 0, 0.9))

        #expect(reply("set capture.format jpeg") == "ok capture.format=jpeg")
        #expect(reply("capture").hasPrefix("ok bracket=started"))
        harness.advance(.seconds(2))
        let sidecar = try #require(FileManager.default.subpaths(atPath: harness.captures)?.first { $0.hasSuffix(".json") && $0.contains("TRP_") })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: harness.captures + "/" + sidecar))) as? [String: Any])
        let frame = try #require((record["frames"] as? [[String: Any]])?.first)
        let simulation = try #require(frame["simulation"] as? [String: Any], "\(frame)")
        #expect(simulation["scene"] as? String == "object spin 60")
        #expect(simulation["positionMetres"] as? [Double] == [-1.6, 0, 0.9])
        #expect(simulation["lookAtMetres"] as? [Double] == [0, 0, 0.35])
        #expect(simulation["objectSpinDegreesPerSecond"] as? Double == 60)
        let turn = try #require(simulation["objectRotationDegrees"] as? Double)
        #expect(turn >= 0 && turn < 360)

        // Back to the chart: frames carry no truth.
        #expect(reply("sim scene even") == "ok scene=even")
        #expect(camera?.scene.object == nil)
        #expect(reply("capture").hasPrefix("ok bracket=started"))
        harness.advance(.seconds(2))
        let chart = try #require(FileManager.default.subpaths(atPath: harness.captures)?.first { $0.hasSuffix(".json") && $0.contains("TRP_") && $0 != sidecar })
        let chartRecord = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: harness.captures + "/" + chart))) as? [String: Any])
        let chartFrame = try #require((chartRecord["frames"] as? [[String: Any]])?.first)
        #expect(chartFrame["simulation"] == nil, "\(chartFrame)")
    }

    @Test func theConfigFileTakesSimLinesAndSaysWhatIsWrong() throws {
        let good = try ConfigFile.parse("sim.pose = 1.6,0,0.90 lookat 0,0,0.35\nsim.scene = object spin 60.0\n", file: "t.conf",
                                        schema: TripodMain.settingsSchema)
        #expect(good.values["sim.pose"] == "1.6,0,0.9 lookat 0,0,0.35" && good.values["sim.scene"] == "object spin 60")
        #expect(throws: ConfigFileError.self) {
            try ConfigFile.parse("sim.pose = 1,2 lookat 0,0,0\n", file: "t.conf", schema: TripodMain.settingsSchema)
        }
        do {
            _ = try ConfigFile.parse("format = 0\nsim.scene = object spin x\n", file: "t.conf", schema: TripodMain.settingsSchema)
            Issue.record("sim.scene = object spin x was taken")
        } catch let error as ConfigFileError {
            #expect(error.description.hasPrefix("t.conf:2: invalid value for \"sim.scene\""), "\(error)")
        }
        // On a board without a simulated camera: a start-up error naming the line.
        #expect(throws: StartupError.self) { try SimulationConfig.apply(good, to: nil) }
        // On the simulated board: through its hooks, the scene before the pose.
        var applied: [String] = []
        let hooks = SimulationHooks(setScene: { applied.append("scene " + $0); return $0 },
                                    setPose: { applied.append("pose " + $0); return $0 })
        try SimulationConfig.apply(good, to: hooks)
        #expect(applied == ["scene object spin 60", "pose 1.6,0,0.9 lookat 0,0,0.35"])
    }
}
