import Foundation
import Hardware
import SimulatedHardware
import TestSupport
import Testing
@testable import Startup
@testable import Supervisor
@testable import Transports

/// `video.hdr auto|on|off` on the simulated IMX708, end to end through the console: HdrMode where the
/// camera lists it (the simulator's default, as a Pi 5), the sensor's own HDR mode with a camera
/// restart where it does not (the simulator as libcamera 0.0.3), auto on a backlit scene with
/// hysteresis, and the HDR state in status and sidecars.
@Suite(.serialized) struct VideoHDRSupervisorTests {
    /// The simulated board with its camera's libcamera chosen (frames at 192x108), and a console.
    final class Board {
        let harness: SimulatedBoardHarness
        let provider: SimulatedCameraProvider
        let session: ConsoleSession
        let output: RecordingConsoleOutput
        var supervisor: Supervisor { harness.supervisor }
        var captures: String { harness.captures }

        init(libcamera: SimulatedLibcamera = .raspberryPi0_5) throws {
            var simulated: SimulatedCameraProvider?
            harness = try SimulatedBoardHarness.devices(renderSize: PixelSize(width: 192, height: 108)) { devices in
                simulated = devices.cameraProvider as? SimulatedCameraProvider
                simulated?.libcamera = libcamera
            }
            provider = try #require(simulated)
            (session, output) = harness.attach(name: "hdr")
        }

        /// Sends a line, runs `settle` of the world, returns every line the console got.
        @discardableResult
        func send(_ line: String, settle: Duration = .milliseconds(100)) -> [String] {
            harness.send(Array((line + "\n").utf8), from: session, output: output, settle: settle)
        }

        /// The ok/err line of the reply to `line`.
        func reply(_ line: String) -> String { send(line).last { $0.hasPrefix("ok") || $0.hasPrefix("err") } ?? "" }

        func advance(_ duration: Duration) { harness.advance(duration) }

        var camera: SimulatedCamera? { provider.openedCamera }
    }

    @Test func hdrModeFollowsTheSettingAndRidesOnTheFrames() throws {
        let b = try Board()
        #expect(b.reply("get video.hdr") == "ok video.hdr=auto active=off")
        #expect(b.reply("set format 1920x1080@56") == "ok format=1920x1080@56")
        let on = b.send("set video.hdr on", settle: .milliseconds(300))
        #expect(on.contains("ok video.hdr=on"), "\(on)")
        #expect(on.contains("event video.hdr active=on kind=MultiExposure"), "\(on)")
        #expect(b.reply("get video.hdr") == "ok video.hdr=on active=\"on (MultiExposure)\"")
        #expect(b.camera?.hdr.mode == .multiExposure)
        #expect(b.reply("status").contains("video.hdr=\"on (MultiExposure) frame=MultiExposure\""))
        // No restart for HdrMode: the same camera streams on.
        #expect(b.provider.sensorHDRSwitches == 0)
        let off = b.send("set video.hdr off", settle: .milliseconds(300))
        #expect(off.contains("event video.hdr active=off kind=none"), "\(off)")
        #expect(b.camera?.hdr.mode == .off)
        #expect(b.reply("status").contains("video.hdr=\"off frame=off\""))
        #expect(b.reply("set video.hdr sometimes").hasPrefix("err bad-value"))
    }

    /// A camera that lists an HdrMode its tuning has no configuration for (a Pi 4 asked for
    /// MultiExposure) goes on reporting the mode it runs in: the value is set aside and the next
    /// kind is used, then the sensor's own mode when no value for video is left.
    @Test func anHdrModeTheCameraDoesNotApplyGivesWayToTheNextKind() throws {
        let b = try Board()
        b.provider.unconfiguredHdrModes = [.multiExposure, .singleExposure]
        b.camera?.hdr.unconfiguredModes = [.multiExposure]
        #expect(b.reply("set format 1920x1080@56") == "ok format=1920x1080@56")
        let on = b.send("set video.hdr on", settle: .seconds(2))
        #expect(on.contains("ok video.hdr=on"), "\(on)")
        #expect(on.contains("event video.hdr active=on kind=MultiExposure"), "\(on)")
        #expect(on.contains { $0.hasPrefix("event video.hdr unused=MultiExposure reason=\"the camera's frames report HdrMode Off, not MultiExposure") }, "\(on)")
        #expect(on.contains("event video.hdr active=on kind=SingleExposure"), "\(on)")
        #expect(b.camera?.hdr.mode == .singleExposure)
        #expect(b.reply("status").contains("video.hdr=\"on (SingleExposure) frame=SingleExposure\""))
        #expect(b.provider.sensorHDRSwitches == 0)

        // The same camera's tuning without SingleExposure either: the sensor's HDR mode, by a restart.
        b.camera?.hdr.unconfiguredModes = [.multiExposure, .singleExposure]
        #expect(b.send("set video.hdr off", settle: .milliseconds(300)).contains("event video.hdr active=off kind=none"))
        let again = b.send("set video.hdr on", settle: .seconds(2))
        #expect(again.contains("event video.hdr active=on kind=SingleExposure"), "\(again)")
        #expect(again.contains { $0.hasPrefix("event video.hdr unused=SingleExposure") }, "\(again)")
        #expect(again.contains("event camera.state state=restarting reason=\"sensor HDR on\""), "\(again)")
        #expect(again.contains("event video.hdr active=on kind=sensor"), "\(again)")
        #expect(b.provider.sensorHDRSwitches == 1)
        #expect(b.reply("get video.hdr") == "ok video.hdr=on active=\"on (sensor)\"")
    }

    /// A camera still held open when the switch comes (its frames not yet given back) is waited
    /// for; a switch the driver refuses reopens the camera as it was, once, and sets the sensor's
    /// mode aside instead of trying again every second.
    @Test func theSensorsHDRSwitchWaitsForTheCameraAndAFailedOneReopensItAsItWas() throws {
        let b = try Board(libcamera: .debian0_0_3)
        #expect(b.reply("set format 1920x1080@56") == "ok format=1920x1080@56")
        var held = b.camera  // as a frame still lent out would keep the old camera open
        let first = b.send("set video.hdr on", settle: .milliseconds(300))
        #expect(first.contains("event camera.state state=restarting reason=\"sensor HDR on\""), "\(first)")
        #expect(b.provider.sensorHDRSwitches == 0, "not while the old camera is open")
        held = nil
        let then = b.send("get video.hdr", settle: .milliseconds(300))
        #expect(held == nil && b.provider.sensorHDRSwitches == 1, "\(then)")
        #expect(then.contains("event video.hdr active=on kind=sensor"), "\(then)")

        let failing = try Board(libcamera: .debian0_0_3)
        #expect(failing.reply("set format 1920x1080@56") == "ok format=1920x1080@56")
        failing.provider.sensorHDRSwitchFault = HardwareError(.io, "VIDIOC_S_CTRL wide_dynamic_range: Input/output error")
        let refused = failing.send("set video.hdr on", settle: .seconds(3))
        #expect(refused.filter { $0.hasPrefix("event camera.state state=restarting") }.count == 1, "\(refused)")
        #expect(refused.contains { $0.hasPrefix("event video.hdr unused=sensor reason=\"switching the sensor's HDR failed") }, "\(refused)")
        #expect(refused.contains("event camera.state state=streaming format=1920x1080@56"), "\(refused)")
        #expect(failing.reply("get video.hdr") == "ok video.hdr=on active=off")
        #expect(failing.supervisor.camera?.isStreaming == true)
        failing.advance(.seconds(3))
        #expect(!failing.send("status").contains { $0.hasPrefix("event camera.state") }, "no restart again")
    }

    @Test func theSensorsHDRIsARestartRefusedDuringARecordingAndAbsentWhereTheModeIsNot() throws {
        let b = try Board(libcamera: .debian0_0_3)  // no HdrMode: only the sensor's own HDR
        #expect(b.reply("set format 1536x864@120") == "ok format=1536x864@120")
        let refused = b.reply("set video.hdr on")
        #expect(refused.hasPrefix("err unsupported video.hdr on: format 1536x864@120 has no video HDR"), "\(refused)")
        #expect(b.reply("get video.hdr") == "ok video.hdr=auto active=off")

        #expect(b.reply("set format 1920x1080@56") == "ok format=1920x1080@56")
        let on = b.send("set video.hdr on", settle: .milliseconds(500))
        #expect(on.contains("event camera.state state=restarting reason=\"sensor HDR on\""), "\(on)")
        #expect(on.contains { $0.hasPrefix("event camera.state state=streaming format=1920x1080@56") }, "\(on)")
        #expect(on.contains("event video.hdr active=on kind=sensor"), "\(on)")
        #expect(b.provider.sensorHDRSwitches == 1)
        #expect(b.camera?.hdr.sensorHDR == true && b.camera?.activeMode?.hdr == true)
        #expect(b.reply("get video.hdr") == "ok video.hdr=on active=\"on (sensor)\"")
        b.advance(.seconds(1))
        // The HDR mode runs at 30 fps at most, whatever the format's 56.
        let frames = b.supervisor.camera?.latest?.frameDurationMicroseconds ?? 0
        #expect(frames >= 33_333, "frame duration \(frames) µs")

        // During a recording the sensor's HDR stays as it is.
        #expect(b.reply("record start").hasPrefix("ok recording="))
        b.advance(.milliseconds(500))
        let busy = b.reply("set video.hdr off")
        #expect(busy.hasPrefix("err busy recording VID_000001: switching the sensor's HDR mode restarts the camera"), "\(busy)")
        #expect(b.reply("get video.hdr") == "ok video.hdr=on active=\"on (sensor)\"")
        #expect(b.reply("record stop") == "ok stopping=VID_000001")
        b.advance(.milliseconds(300))
        let sidecarPath = try #require(FileManager.default.subpaths(atPath: b.captures)?.first { $0.hasSuffix("VID_000001.json") })
        let sidecar = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: b.captures + "/" + sidecarPath))) as? [String: Any])
        #expect((sidecar["capture"] as? [String: Any])?["hdr"] as? String == "sensor")
        let runs = try #require(sidecar["hdrFrames"] as? [[String: Any]])
        #expect(runs.count == 1 && runs.first?["hdr"] as? String == "sensor" && runs.first?["frames"] as? Int == sidecar["framesWritten"] as? Int)

        // After the recording it switches back (a second restart), and a format without the mode
        // takes the sensor's HDR off by itself.
        let off = b.send("set video.hdr off", settle: .milliseconds(500))
        #expect(off.contains("event video.hdr active=off kind=none"), "\(off)")
        #expect(b.provider.sensorHDRSwitches == 2 && b.camera?.hdr.sensorHDR == false)
        #expect(b.send("set video.hdr on", settle: .milliseconds(500)).contains("event video.hdr active=on kind=sensor"))
        let leaving = b.send("set format 1536x864@120", settle: .milliseconds(500))
        #expect(leaving.contains("event video.hdr active=off kind=none"), "\(leaving)")
        #expect(b.camera?.hdr.sensorHDR == false && b.provider.sensorHDRSwitches == 4)
        #expect(b.supervisor.camera?.activeFormat.format.label == "1536x864@120")
        // The setting stays `on`; the format has none, so none is active.
        #expect(b.reply("get video.hdr") == "ok video.hdr=on active=off")
    }

    @Test func autoSwitchesOnABacklitSceneAndBackWithoutFlapping() throws {
        let b = try Board()
        #expect(b.reply("set format 1920x1080@56") == "ok format=1920x1080@56")
        b.advance(.seconds(1))
        #expect(b.reply("get video.hdr") == "ok video.hdr=auto active=off", "an evenly lit chart needs no HDR")
        var events = b.send("sim scene backlit").filter { $0.hasPrefix("event video.hdr") }
        for _ in 0..<30 {  // 3 s
            b.advance(.milliseconds(100))
            events += b.output.take().filter { $0.hasPrefix("event video.hdr") }
        }
        #expect(events == ["event video.hdr active=on kind=MultiExposure"], "one switch, not a flapping one: \(events)")
        #expect(b.reply("get video.hdr") == "ok video.hdr=auto active=\"on (MultiExposure)\"")
        // The auto choice holds while the backlit scene goes on (HDR's own frames no longer clip).
        b.advance(.seconds(2))
        #expect(b.output.take().filter { $0.hasPrefix("event video.hdr") }.isEmpty)
        // A still taken now says HDR in its sidecar.
        #expect(b.reply("set capture.format jpeg") == "ok capture.format=jpeg")
        let captured = b.send("capture", settle: .seconds(2))
        #expect(captured.contains { $0.hasPrefix("event bracket.done") }, "\(captured)")
        let still = try #require(FileManager.default.subpaths(atPath: b.captures)?.first { $0.hasSuffix(".json") && !$0.contains("VID") })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: b.captures + "/" + still))) as? [String: Any])
        let frame = try #require((record["frames"] as? [[String: Any]])?.first)
        #expect(frame["hdr"] as? String == "MultiExposure")

        events = b.send("sim scene even").filter { $0.hasPrefix("event video.hdr") }
        for _ in 0..<30 {
            b.advance(.milliseconds(100))
            events += b.output.take().filter { $0.hasPrefix("event video.hdr") }
        }
        #expect(events == ["event video.hdr active=off kind=none"], "\(events)")
        // Forced off: the backlit scene changes nothing.
        #expect(b.reply("set video.hdr off") == "ok video.hdr=off")
        _ = b.reply("sim scene backlit")
        b.advance(.seconds(2))
        #expect(b.output.take().filter { $0.hasPrefix("event video.hdr") }.isEmpty)
        #expect(b.camera?.hdr.mode == .off)
    }
}
