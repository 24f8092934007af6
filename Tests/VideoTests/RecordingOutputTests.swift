import Foundation
import Hardware
import Testing
@testable import Video

/// Files ffprobe reads back: codec, size, one frame per frame written, PTS = SensorTimestamps.
@Suite struct RecordingOutputTests {
    /// Expected PTS in µs: each frame's SensorTimestamp minus the first's.
    func expectedMicroseconds(_ times: [MonotonicTime]) -> [Int64] {
        times.map { ($0 - times[0]).nanoseconds / 1000 }
    }

    @Test(arguments: [VideoSettings.Codec.h264, .mjpeg])
    func mp4HasSensorTimestampsAsPTS(codec: VideoSettings.Codec) throws {
        let harness = try RecordingHarness()
        var settings = VideoSettings()
        settings.codec = codec
        try harness.service.configure(settings)
        try harness.service.start(RecordingRequest(id: "VID_0001", folder: "2026-12-01"))
        // 45 frames with a variable interval, and a camera drop: sequence 20 and 21 never arrive.
        let sequences = (0..<47).map(UInt64.init).filter { $0 != 20 && $0 != 21 }
        let allTimes = sensorTimes(count: 47)
        let times = sequences.map { allTimes[Int($0)] }
        try harness.feed(sequences, times)
        try harness.service.stop()
        let stops = harness.stops
        #expect(stops.count == 1 && stops.first?.error == nil)

        let probe = try probe(harness.path("2026-12-01/VID_0001.mp4"))
        #expect(probe.codec == (codec == .h264 ? "h264" : "mjpeg"))
        #expect(probe.width == 320 && probe.height == 240)
        #expect(probe.timeBase == "1/1000000")
        #expect(probe.framePTS == expectedMicroseconds(times))
        #expect(zip(probe.framePTS, probe.framePTS.dropFirst()).allSatisfy { $0 < $1 })

        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.framesWritten == 45 && sidecar.status == "complete")
        #expect(sidecar.droppedFrames.map(\.sequence) == [20, 21])
        #expect(sidecar.droppedFrames.allSatisfy { $0.cause == .sequenceGap && $0.sensorTimestampNanoseconds == allTimes[22].nanoseconds })
        #expect(sidecar.firstSensorTimestampNanoseconds == times[0].nanoseconds)
        #expect(sidecar.format.encoder == (codec == .h264 ? "libx264" : "mjpeg"))
        #expect(sidecar.exposure.iso == ValueRange(minimum: 200, maximum: 200, mean: 200))
        #expect(sidecar.startWallClockSeconds == Double(1_790_000_000_000_000_000 + times[0].nanoseconds) / 1e9)
        let status = harness.service.status
        #expect(status.framesWritten == 45 && status.droppedFrames == 2 && status.state == .idle)
        #expect(status.bytesWritten == Int64(try FileManager.default.attributesOfItem(atPath: harness.path("2026-12-01/VID_0001.mp4"))[.size] as? Int ?? -1))

        // The mkvmerge timecode file: a header and one PTS in ms per frame.
        let timecodes = try String(contentsOfFile: harness.path("2026-12-01/VID_0001.timecodes.txt"), encoding: .utf8)
        let lines = timecodes.split(separator: "\n")
        #expect(lines.first == "# timecode format v2")
        #expect(lines.dropFirst().compactMap { Double($0) } == expectedMicroseconds(times).map { (Double($0) / 1000 * 1000).rounded() / 1000 })
    }

    @Test func mkvHasSensorTimestampsToTheMillisecond() throws {
        let harness = try RecordingHarness()
        var settings = VideoSettings()
        settings.container = .mkv
        try harness.service.configure(settings)
        try harness.service.start(RecordingRequest(id: "VID_0002", folder: "d"))
        let times = sensorTimes(count: 40)
        try harness.feed((0..<40).map(UInt64.init), times)
        try harness.service.stop()
        #expect(harness.stops.first?.error == nil)
        let probe = try probe(harness.path("d/VID_0002.mkv"))
        #expect(probe.codec == "h264" && probe.width == 320 && probe.timeBase == "1/1000")
        // Matroska's timestamps are whole milliseconds (libavformat 59 has no finer scale).
        let expected = expectedMicroseconds(times).map { Int64((Double($0) / 1000).rounded()) }
        #expect(probe.framePTS == expected)
    }

    @Test func slowMotionStretchesPTSByCaptureOverPlaybackRate() throws {
        let harness = try RecordingHarness()
        var settings = VideoSettings()
        settings.captureFramesPerSecond = 120
        settings.slowMotion = true
        settings.playbackFramesPerSecond = 30
        try harness.service.configure(settings)
        try harness.service.start(RecordingRequest(id: "SLOW", folder: "d"))
        let times = sensorTimes(count: 48, interval: .nanoseconds(8_333_333), jitterMicroseconds: 200)
        try harness.feed((0..<48).map(UInt64.init), times)
        try harness.service.stop()
        let probe = try probe(harness.path("d/SLOW.mp4"))
        let expected = times.map { ($0 - times[0]).nanoseconds * 4 / 1000 }
        #expect(probe.framePTS == expected)
        #expect(harness.sidecars.first?.format.timeStretch == 4)
    }

    /// A slow-motion file's nominal rate is the playback rate (MKV's default frame duration and the
    /// stream's average rate), not the capture rate players would otherwise show.
    @Test(arguments: [VideoSettings.Container.mkv, .mp4])
    func slowMotionFilesAnnounceThePlaybackRate(container: VideoSettings.Container) throws {
        let harness = try RecordingHarness()
        var settings = VideoSettings()
        settings.container = container
        settings.captureFramesPerSecond = 120
        settings.slowMotion = true
        settings.playbackFramesPerSecond = 30
        try harness.service.configure(settings)
        try harness.service.start(RecordingRequest(id: "SLOW", folder: "d"))
        try harness.feed((0..<48).map(UInt64.init), sensorTimes(count: 48, interval: .nanoseconds(8_333_333)))
        try harness.service.stop()
        let rates = try runTool("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate,avg_frame_rate",
                                                     "-of", "csv=p=0", harness.path("d/SLOW.\(container.fileExtension)")])
        let text = String(decoding: rates, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // MKV states it (30/1); for MP4 ffprobe works it out from the timestamps (about 30).
        let values = text.split(separator: ",").map { rational -> Double in
            let parts = rational.split(separator: "/").compactMap { Double($0) }
            return parts.count == 2 && parts[1] > 0 ? parts[0] / parts[1] : 0
        }
        #expect(values.count == 2 && values.allSatisfy { abs($0 - 30) < 0.3 }, "\(text)")
    }

    @Test func preferredHardwareEncoderFallsBackToLibx264WithANote() throws {
        let harness = try RecordingHarness()
        var settings = VideoSettings()
        settings.encoderName = "no_such_encoder_h264"
        try harness.service.configure(settings)
        try harness.service.start(RecordingRequest(id: "FB", folder: "d"))
        try harness.feed((0..<5).map(UInt64.init), sensorTimes(count: 5))
        try harness.service.stop()
        let events = harness.settle()
        let note = events.compactMap { if case .encoderFallback(let n) = $0 { n } else { nil } }.first
        #expect(note?.contains("no_such_encoder_h264") == true && note?.contains("libx264") == true)
        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.format.encoder == "libx264" && sidecar.format.encoderNote == note)
        #expect(try probe(harness.path("d/FB.mp4")).framePTS.count == 5)
    }

    @Test func theHardwareEncoderIsUsedWhereItOpensAndOtherwiseNamedInTheNote() throws {
        var settings = VideoSettings()
        settings.encoderName = "h264_v4l2m2m"
        let encoder = try VideoEncoder(settings: settings, size: PixelSize(width: 320, height: 240))
        if encoder.encoderName == "h264_v4l2m2m" {
            #expect(encoder.fallbackNote == nil)  // a board with the bcm2835 M2M encoder
        } else {
            #expect(encoder.encoderName == "libx264")
            #expect(encoder.fallbackNote?.hasPrefix("avcodec_open2(h264_v4l2m2m)") == true)
        }
        let packets = try (0..<40).flatMap { i in
            try encoder.encode(makeFrame(UInt64(i), at: MonotonicTime(nanoseconds: 1_000_000_000 + Int64(i) * 33_333_333)), forceKeyframe: i == 0)
        } + encoder.flush()
        #expect(packets.count == 40 && packets.first?.isKeyframe == true)
        #expect(packets.map(\.sequence) == (0..<40).map(UInt64.init))
    }

    @Test func anEncoderForAnotherCodecIsRefusedClearly() throws {
        var settings = VideoSettings()
        settings.codec = .mjpeg
        settings.encoderName = "libx264"
        let encoder = try VideoEncoder(settings: settings, size: PixelSize(width: 64, height: 48))
        #expect(encoder.encoderName == "mjpeg")
        #expect(encoder.fallbackNote?.contains("does not encode mjpeg") == true)
    }

    @Test func aWildSequenceJumpIsCountedWithoutListingEveryFrame() throws {
        let harness = try RecordingHarness()
        try harness.service.configure(VideoSettings())
        try harness.service.start(RecordingRequest(id: "JUMP", folder: "d"))
        let times = sensorTimes(count: 3)
        try harness.feed([0, 1, 1_000_000_000_000], times)
        try harness.service.stop()
        #expect(harness.service.status.droppedFrames == 999_999_999_998)
        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.droppedFrames.count == 1000 && sidecar.droppedFrames.first?.sequence == 2)
        #expect(sidecar.framesWritten == 3)
    }

    @Test func badSettingsAndStatesAreClearErrors() throws {
        let harness = try RecordingHarness()
        var settings = VideoSettings()
        settings.bitrateBitsPerSecond = 10
        #expect(throws: VideoError.self) { try harness.service.configure(settings) }
        #expect(throws: VideoError.self) { try harness.service.stop() }
        try harness.service.start(RecordingRequest(id: "A", folder: "d"))
        #expect(throws: VideoError.self) { try harness.service.start(RecordingRequest(id: "B", folder: "d")) }
        #expect(throws: VideoError.self) { try harness.service.configure(VideoSettings()) }
        // A frame of another size than the first is refused and counted, the file goes on.
        try harness.feed([0, 1], sensorTimes(count: 2))
        try harness.feed([2], [sensorTimes(count: 3)[2]], size: PixelSize(width: 160, height: 120))
        try harness.service.stop()
        #expect(harness.stops.first?.error == nil)
        #expect(harness.sidecars.first?.droppedFrames.map(\.cause) == [.refused])
        #expect(try probe(harness.path("d/A.mp4")).framePTS.count == 2)
    }
}
