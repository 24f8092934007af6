import Foundation
import Hardware
import ManualLoop
import Testing
import TestSupport
@testable import Supervisor
@testable import Transports

/// Issue 26's defects: what the settings say is what the services do, on every path.
@Suite(.serialized) struct SettingsDefectTests {
    /// `reset` reaches every service that follows a setting: before the one commit path it applied
    /// the camera's and the button's, and the viewfinder kept zebra while `get` said off.
    @Test func resetPutsTheViewfinderAndTheRecorderBack() throws {
        let loop = ManualEventLoop()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-reset-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let supervisor = try startSimulatedSupervisor(on: loop, catalog: .standard(executablePath: #filePath),
                                                      capturesDirectory: directory.path) { $0.display = RecordingDisplay() }
        defer { loop.perform { supervisor.requestStop(reason: "test") } }
        func run(_ line: String) -> [String] {
            loop.perform { () -> [String] in
                let out = RecordingConsoleOutput()
                supervisor.run(line: line, from: supervisor.attach(name: "t", kind: .local, output: out))
                return out.lines
            }
        }
        #expect(run("set display.zebra on") == ["ok display.zebra=on"])
        #expect(run("set display.peaking on") == ["ok display.peaking=on"])
        #expect(run("set video.fps 24") == ["ok video.fps=24"])
        #expect(run("set video.container mkv") == ["ok video.container=mkv"])
        #expect(loop.perform { supervisor.viewfinder?.presenter.options.zebra } == true)
        #expect(loop.perform { supervisor.recorder.settings.captureFramesPerSecond } == 24)
        #expect(run("reset").first?.hasPrefix("ok reset=4") == true)
        #expect(run("get display.zebra") == ["ok display.zebra=off"])
        #expect(loop.perform { supervisor.viewfinder?.presenter.options.zebra } == false, "the viewfinder follows reset")
        #expect(loop.perform { supervisor.viewfinder?.presenter.options.focusPeaking } == false)
        #expect(loop.perform { supervisor.recorder.settings.captureFramesPerSecond } == 30, "the recorder follows reset")
        #expect(loop.perform { supervisor.recorder.settings.container } == .mp4)
    }

    /// `capture.format` holds for a still during a recording: before, the zero-shutter-lag frame
    /// (which fills raw and the still stream) wrote a DNG and a JPEG whatever the setting.
    @Test(arguments: [("jpeg", ".jpg"), ("dng", ".dng")])
    func aStillDuringARecordingWritesOnlyTheCaptureFormat(format: String, suffix: String) throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set capture.format \(format)") == "ok capture.format=\(format)")
        #expect(h.reply("record start").hasPrefix("ok recording="))
        h.advance(.seconds(1))
        #expect(h.reply("capture").hasPrefix("ok bracket=started"))
        h.advance(.seconds(1))
        let events = h.output.take()
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(300))
        let frame = try #require(events.first { $0.hasPrefix("event bracket.frame") }, "\(events)")
        let files = try #require(SimulatedBoardHarness.field("files", in: frame)).split(separator: ",")
        #expect(files.count == 1 && files[0].hasSuffix(suffix), "\(files)")
    }

    /// `media.dng.compression` reaches the capture service: the DNG's Compression tag follows it.
    @Test func theDNGCompressionSettingDecidesTheFilesCompression() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set capture.format dng") == "ok capture.format=dng")
        h.advance(.milliseconds(300))
        var compressions: [String] = []
        for setting in ["lossless", "none"] {
            #expect(h.reply("set media.dng.compression \(setting)") == "ok media.dng.compression=\(setting)")
            #expect(h.reply("capture").hasPrefix("ok bracket=started"))
            h.advance(.seconds(1))
            let events = h.output.take()
            let frame = try #require(events.first { $0.hasPrefix("event bracket.frame") }, "\(events)")
            let name = try #require(SimulatedBoardHarness.field("files", in: frame))
            let done = try #require(events.first { $0.hasPrefix("event bracket.done") }, "\(events)")
            let sidecar = try #require(SimulatedBoardHarness.field("sidecar", in: done), "\(done)")
            let folder = (sidecar as NSString).deletingLastPathComponent
            let out = try runTool("/usr/bin/exiftool", ["-s3", "-IFD0:Compression", h.captured(folder + "/" + name)])
            compressions.append(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(compressions == ["JPEG", "Uncompressed"], "\(compressions)")
    }
}
