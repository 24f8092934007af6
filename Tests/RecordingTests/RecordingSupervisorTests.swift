import Foundation
import Hardware
import Testing
import SimulatedHardware
import TestSupport
import Video
@testable import Supervisor

/// `record start|stop` on the simulated board, end to end: the camera's YUV420 video stream, the
/// encoder, the files, the events and `status`, checked with ffprobe.
@Suite(.serialized) struct RecordingSupervisorTests {
    /// The recording's files: captures/<date>/<id>.<ext>.
    static func file(_ harness: SimulatedBoardHarness, _ relative: String) -> String {
        harness.directory.appendingPathComponent("captures").appendingPathComponent(relative).path
    }

    @Test func recordsTheVideoStreamWithSensorTimestampsAndStatus() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set video.bitrate 2500k") == "ok video.bitrate=2.5M")
        let started = h.reply("record start")
        #expect(started.hasPrefix("ok recording=VID_000001"), "\(started)")
        let file = try #require(SimulatedBoardHarness.field("file", in: started))
        #expect(SimulatedBoardHarness.field("fps", in: started) == "30")
        #expect(h.reply("record start").hasPrefix("err busy already recording VID_000001"))
        #expect(h.reply("set video.codec mjpeg").hasPrefix("err busy recording VID_000001"))
        #expect(h.reply("format 1").hasPrefix("err busy recording VID_000001"))
        h.advance(.seconds(2))
        let status = h.reply("status")
        #expect(SimulatedBoardHarness.field("recording", in: status) == "VID_000001")
        let framesSoFar = Int(SimulatedBoardHarness.field("recording.frames", in: status) ?? "") ?? 0
        #expect(framesSoFar >= 40, "2 s at 30 fps, less the encoder's lookahead (libx264 holds about 10): \(status)")
        #expect(SimulatedBoardHarness.field("recording.dropped", in: status) == "0")
        #expect(Int(SimulatedBoardHarness.field("recording.bytes", in: status) ?? "") ?? 0 > 0)

        #expect(h.reply("record stop") == "ok stopping=VID_000001")
        h.advance(.milliseconds(100))
        let events = h.output.take()
        let stopped = try #require(events.first { $0.hasPrefix("event record.stopped") }, "\(events)")
        let frames = try #require(Int(SimulatedBoardHarness.field("frames", in: stopped) ?? ""))
        #expect(SimulatedBoardHarness.field("dropped", in: stopped) == "0")
        #expect(h.reply("status").contains("recording=off"))

        // The file: H.264 at the video stream's size, every frame there, PTS = SensorTimestamp − the first.
        let video = try probe(Self.file(h, file))
        #expect(video.codec == "h264")
        #expect(video.width == 1280 && video.height == 720)
        #expect(video.framePTS.count == frames)
        let sidecarURL = URL(fileURLWithPath: Self.file(h, file)).deletingPathExtension().appendingPathExtension("json")
        let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: sidecarURL)) as? [String: Any]
        #expect(sidecar?["framesWritten"] as? Int == frames)
        let deltas = zip(video.framePTS.dropFirst(), video.framePTS).map { $0 - $1 }
        #expect(deltas.allSatisfy { $0 > 0 }, "PTS strictly increasing")
        // The camera ran at video.fps (30): frame intervals of 1/30 s, as the sensor timestamped them.
        #expect(deltas.allSatisfy { abs($0 - 33_333) <= 1_000 }, "\(deltas.prefix(5))")
        // The video stream is given back after the stop.
        #expect(h.supervisor.camera?.videoStreamRequest == nil)
    }

    @Test func quitFinalisesTheRecordingBeforeStopping() throws {
        let h = try SimulatedBoardHarness()
        let started = h.reply("record start")
        let file = try #require(SimulatedBoardHarness.field("file", in: started))
        h.advance(.seconds(1))
        h.send("quit")
        h.advance(.milliseconds(200))
        #expect(h.stoppedWith == 0)
        let events = h.output.take()
        #expect(events.contains { $0.hasPrefix("event record.stopped id=VID_000001") }, "\(events)")
        let video = try probe(Self.file(h, file))
        #expect(video.framePTS.count >= 25)
    }

    @Test func videoSettingsAreCheckedAndNamedAsWritten() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set video.bitrate 12000000") == "ok video.bitrate=12M")
        #expect(h.reply("set video.bitrate 800k") == "ok video.bitrate=800k")
        #expect(h.reply("set video.bitrate fast").hasPrefix("err bad-value"))
        #expect(h.reply("set video.bitrate 500M").hasPrefix("err out-of-range"))
        #expect(h.reply("set video.fps 24") == "ok video.fps=24")
        #expect(h.reply("set video.fps 0").hasPrefix("err out-of-range"))
        #expect(h.reply("set video.container mkv") == "ok video.container=mkv")
        #expect(h.reply("set video.split 10min") == "ok video.split=10")
        #expect(h.reply("set video.slowmotion on") == "ok video.slowmotion=on")
        #expect(h.reply("record stop").hasPrefix("err usage not recording"))
        #expect(h.reply("record pause").hasPrefix("err usage"))
    }
}

/// Recording without a separate video stream, pre-record, and the button.
@Suite(.serialized) struct RecordingSupervisorPathTests {
    @Test func aCameraWithOneStreamRecordsItsProcessedStreamConverted() throws {
        let h = try SimulatedBoardHarness()
        let camera = try #require(h.supervisor.camera?.device as? SimulatedCamera)
        camera.pipeline.processedStreamLimit = 1  // as vimc
        let started = h.reply("record start")
        #expect(started.hasPrefix("ok recording=VID_000001"), "\(started)")
        #expect(started.contains("note=\"no separate video stream"), "\(started)")
        let file = try #require(SimulatedBoardHarness.field("file", in: started))
        h.advance(.seconds(1))
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(100))
        let stopped = try #require(h.output.take().first { $0.hasPrefix("event record.stopped") })
        let frames = try #require(Int(SimulatedBoardHarness.field("frames", in: stopped) ?? ""))
        #expect(frames >= 25)
        let video = try probe(RecordingSupervisorTests.file(h, file))
        #expect(video.codec == "h264" && video.width == 1280 && video.height == 720)
        #expect(video.framePTS.count == frames)
    }

    /// libcamera refuses to reconfigure while a viewer holds a frame (found on the virtual board):
    /// the recording starts, and streaming comes back with the video stream once the frame is given back.
    @Test func aHeldViewerFrameDelaysTheVideoStreamWithoutFailingTheStart() throws {
        let h = try SimulatedBoardHarness()
        let camera = try #require(h.supervisor.camera?.device as? SimulatedCamera)
        camera.pipeline.buffersHeldByApplication = 1
        let started = h.reply("record start")
        #expect(started.hasPrefix("ok recording=VID_000001"), "\(started)")
        h.advance(.milliseconds(200))
        #expect(h.supervisor.camera?.isStreaming == false, "configure refused while the frame is held")
        camera.pipeline.buffersHeldByApplication = 0
        h.advance(.seconds(1))
        #expect(h.supervisor.camera?.isStreaming == true)
        #expect(h.supervisor.camera?.videoStream != nil)
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(100))
        let stopped = try #require(h.output.take().first { $0.hasPrefix("event record.stopped") })
        #expect(Int(SimulatedBoardHarness.field("frames", in: stopped) ?? "") ?? 0 >= 20, "\(stopped)")
    }

    @Test func prerecordPutsTheSecondsBeforeStartInTheFile() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set video.prerecord 2s") == "ok video.prerecord=2")
        #expect(h.supervisor.camera?.videoStream != nil, "armed at once")
        h.advance(.seconds(3))
        let ring = Int(SimulatedBoardHarness.field("prerecord.bytes", in: h.reply("status")) ?? "") ?? 0
        #expect(ring > 0)
        let started = h.reply("record start")
        let file = try #require(SimulatedBoardHarness.field("file", in: started))
        h.advance(.seconds(1))
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(100))
        let video = try probe(RecordingSupervisorTests.file(h, file))
        // At least the 2 s window (from a keyframe at or before it) plus the second recorded.
        let span = Double((video.framePTS.last ?? 0) - (video.framePTS.first ?? 0)) / 1e6
        #expect(span >= 2.9, "span \(span) s over \(video.framePTS.count) frames")
        // Still armed for the next trigger.
        #expect(h.supervisor.camera?.videoStream != nil)
        #expect(h.reply("set video.prerecord 0") == "ok video.prerecord=0")
        #expect(h.supervisor.camera?.videoStream == nil)
    }

    /// A `capture` and a bracket while recording: their requests fill the video stream too, so the
    /// video loses no frame. The still has the video's exposure, so its frame keeps the 1/30 s
    /// rhythm; a bracket's longer exposures stretch their frames (the sensor's own timing).
    @Test func stillsDuringARecordingLeaveNoGapInTheVideo() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set capture.format jpeg") == "ok capture.format=jpeg")
        #expect(h.reply("set exposure.duration 1/100").hasPrefix("ok"))
        let started = h.reply("record start")
        let file = try #require(SimulatedBoardHarness.field("file", in: started))
        h.advance(.seconds(1))
        #expect(h.reply("capture").hasPrefix("ok bracket=started"))
        h.advance(.seconds(1))
        #expect(h.reply("bracket ev 3 1").hasPrefix("ok bracket=started"))
        h.advance(.seconds(1))
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(200))
        let events = h.output.take()
        let stopped = try #require(events.first { $0.hasPrefix("event record.stopped") }, "\(events)")
        #expect(SimulatedBoardHarness.field("brackets", in: h.reply("status")) == "2 saved, 0 failed")
        #expect(SimulatedBoardHarness.field("dropped", in: stopped) == "0", "\(stopped)")
        let frames = try #require(Int(SimulatedBoardHarness.field("frames", in: stopped) ?? ""))
        let video = try probe(RecordingSupervisorTests.file(h, file))
        #expect(video.framePTS.count == frames)
        let deltas = zip(video.framePTS.dropFirst(), video.framePTS).map { $0 - $1 }
        // 1/30 s apart throughout: no frame lost or stretched around the still or the bracket (its
        // exposures, 1/200 to 1/50 s, fit in a frame).
        #expect(deltas.allSatisfy { abs($0 - 33_333) <= 1_000 }, "\(deltas.filter { abs($0 - 33_333) > 1_000 })")
        // The sidecar lists the stills (1 + 3 frames), each at a frame of the video.
        let sidecarURL = URL(fileURLWithPath: RecordingSupervisorTests.file(h, file)).deletingPathExtension().appendingPathExtension("json")
        let sidecar = try JSONDecoder().decode(VideoSidecar.self, from: Data(contentsOf: sidecarURL))
        #expect(sidecar.stills.map(\.bracketID) == ["TRP_000001", "TRP_000002", "TRP_000002", "TRP_000002"])
        #expect(sidecar.stills.map(\.frame) == [1, 1, 2, 3])
        let ptsOfStills = sidecar.stills.map { ($0.sensorTimestampNanoseconds - sidecar.firstSensorTimestampNanoseconds) / 1000 }
        #expect(ptsOfStills.allSatisfy { video.framePTS.contains($0) }, "\(ptsOfStills)")
    }

    /// On a format whose output is smaller than its sensor mode (1920×1080 from 2304×1296), stills
    /// during a recording are the format table's `still` size, JPEG and DNG alike: the still stream
    /// runs at the full mode beside the 1920×1080 video stream, and the video loses no frame.
    @Test func stillsDuringARecordingAreTheFormatsFullStill() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("format 1920x1080@56") == "ok format=1920x1080@56")
        let still = try #require(h.supervisor.camera?.activeFormat.format.highResolutionStill)
        #expect(still == PixelSize(width: 2304, height: 1296))
        #expect(h.reply("set video.fps 30") == "ok video.fps=30")
        let started = h.reply("record start")
        #expect(SimulatedBoardHarness.field("size", in: started) == "1920x1080", "\(started)")
        let file = try #require(SimulatedBoardHarness.field("file", in: started))
        h.advance(.seconds(1))
        #expect(h.reply("capture").hasPrefix("ok bracket=started"))
        h.advance(.seconds(1))
        let captureEvents = h.output.take()
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(200))
        let events = h.output.take()
        let frameEvent = try #require(captureEvents.first { $0.hasPrefix("event bracket.frame") }, "\(captureEvents)")
        let files = try #require(SimulatedBoardHarness.field("files", in: frameEvent)).split(separator: ",").map(String.init)
        #expect(files.count == 2 && files.contains { $0.hasSuffix(".jpg") } && files.contains { $0.hasSuffix(".dng") }, "\(files)")
        let folder = (file as NSString).deletingLastPathComponent
        // The still began its exposure within one frame (1/30 s) of the trigger: it is the
        // recording's frame nearest the trigger (zero shutter lag), DNG included.
        let bracketID = try #require(SimulatedBoardHarness.field("id", in: frameEvent))
        let stillSidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
            RecordingSupervisorTests.file(h, folder + "/" + bracketID + ".json")))) as? [String: Any]
        let trigger = try #require((stillSidecar?["startMonotonicNanoseconds"] as? NSNumber)?.int64Value)
        let exposureStart = try #require(((stillSidecar?["frames"] as? [[String: Any]])?.first?["sensorTimestampNanoseconds"] as? NSNumber)?.int64Value)
        print("still: exposure began \(Double(exposureStart - trigger) / 1e6) ms after the trigger")
        #expect(abs(exposureStart - trigger) <= 33_333_333, "\(Double(exposureStart - trigger) / 1e6) ms")
        for name in files {
            let size = try imageSize(RecordingSupervisorTests.file(h, folder + "/" + name))
            #expect(size.width == still.width && size.height == still.height, "\(name): \(size)")
        }
        let video = try probe(RecordingSupervisorTests.file(h, file))
        #expect(video.width == 1920 && video.height == 1080)
        let deltas = zip(video.framePTS.dropFirst(), video.framePTS).map { $0 - $1 }
        #expect(deltas.allSatisfy { abs($0 - 33_333) <= 1_000 }, "\(deltas.filter { abs($0 - 33_333) > 1_000 })")
        let stopped = try #require(events.first { $0.hasPrefix("event record.stopped") }, "\(events)")
        #expect(SimulatedBoardHarness.field("dropped", in: stopped) == "0", "\(stopped)")
    }

    /// Gyroflow's own parser (telemetry-parser) reads the recording's .gcsv: samples over the whole
    /// video, with the handheld shake on the gyro.
    @Test func gyroflowsParserReadsTheGyroLog() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("sim motion handheld 5") == "ok motion=handheld amplitude=5")
        h.advance(.seconds(1))
        let started = h.reply("record start")
        let file = try #require(SimulatedBoardHarness.field("file", in: started))
        h.advance(.seconds(2))
        #expect(h.reply("record stop").hasPrefix("ok stopping="))
        h.advance(.milliseconds(200))
        let sidecarURL = URL(fileURLWithPath: RecordingSupervisorTests.file(h, file)).deletingPathExtension().appendingPathExtension("json")
        let sidecar = try JSONDecoder().decode(VideoSidecar.self, from: Data(contentsOf: sidecarURL))
        let gcsv = sidecarURL.deletingLastPathComponent().appendingPathComponent(try #require(sidecar.gyroLogFile)).path
        let reading = try readWithGyroflowParser(gcsv)
        #expect(reading.camera == "tripod")
        // 500 Hz from half a second before the first frame to past the end of the last one (the
        // parser counts from its first sample; the file's own t is 0 at the first frame).
        #expect(reading.samples >= Int((sidecar.durationSeconds + 0.5) * 500) - 2, "\(reading)")
        #expect(reading.lastMilliseconds - reading.firstMilliseconds >= (sidecar.durationSeconds + 0.49) * 1000, "\(reading)")
        let times = try String(contentsOfFile: gcsv, encoding: .utf8).split(separator: "\n")
            .drop { $0 != "t,gx,gy,gz,ax,ay,az" }.dropFirst().compactMap { Int64($0.split(separator: ",")[0]) }
        #expect((times.first ?? 0) < -490_000 && Double(times.last ?? 0) >= sidecar.durationSeconds * 1e6, "µs: \(times.first ?? 0)…\(times.last ?? 0)")
        #expect(reading.peakGyroDegreesPerSecond > 1, "the shake is on the gyro: \(reading)")
    }

    @Test func theButtonStartsAndStopsARecordingWithItsLEDPattern() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set button.press record") == "ok button.press=record")
        h.send("button press")
        h.advance(.milliseconds(500))
        #expect(h.supervisor.recorder.isRecording == true)
        #expect(h.supervisor.captureService.led.pattern == .recording)
        h.advance(.seconds(1))
        h.send("button press")
        h.advance(.milliseconds(500))
        let events = h.output.take()
        #expect(events.contains { $0.hasPrefix("event record.stopped id=VID_000001") }, "\(events)")
        #expect(h.supervisor.recorder.isRecording == false)
        #expect(h.supervisor.captureService.led.pattern == .ready)
    }
}
