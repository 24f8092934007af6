import Foundation
import Hardware
import Testing
@testable import Video

/// libx264's preset from the mode's rate and the speed measured at the start: the rule with
/// injected speeds (no verdict depends on this machine's load), and the recording that uses it.
@Suite struct EncoderPresetChoiceTests {
    let p1080 = PixelSize(width: 1920, height: 1080), p720 = PixelSize(width: 1280, height: 720)

    /// Speeds by preset; records which presets were measured, in order.
    final class Speeds: @unchecked Sendable {
        let fps: [String: Double]
        let failing: Set<String>
        private(set) var asked: [String] = []
        private(set) var sizes: [PixelSize] = []
        init(_ fps: [String: Double], failing: Set<String> = []) { self.fps = fps; self.failing = failing }
        func measure(_ preset: String, _ size: PixelSize) throws(VideoError) -> Double {
            asked.append(preset); sizes.append(size)
            if failing.contains(preset) { throw VideoError(.encoderUnavailable, "injected failure") }
            return fps[preset] ?? 0
        }
    }

    /// `speeds` as the measure closure `choose` takes.
    func measuring(_ speeds: Speeds) -> (String) throws(VideoError) -> Double {
        { (preset: String) throws(VideoError) -> Double in try speeds.measure(preset, PixelSize(width: 0, height: 0)) }
    }

    @Test func theFirstPresetThatKeepsUpWithHeadroomAndNoFurtherMeasurement() {
        let speeds = Speeds(["superfast": 80, "ultrafast": 400])
        // 1080p30 needs 60 fps (×2): superfast's 80 do, ultrafast is never measured.
        let choice = EncoderPresetChoice.choose(size: p1080, captureFramesPerSecond: 30, measure: measuring(speeds))
        #expect(choice.preset == "superfast")
        #expect(speeds.asked == ["superfast"])
        #expect(choice.reason.contains("needs 60 fps") && choice.reason.contains("superfast 80 fps"), "\(choice.reason)")
        #expect(choice.reason.contains("62.2 Mpixel/s"), "\(choice.reason)")
    }

    @Test func aFasterModeGetsTheFasterPreset() {
        let speeds = Speeds(["superfast": 80, "ultrafast": 400])
        // 1080p60 needs 120: superfast's 80 do not (nor 119.9: the headroom is a floor), ultrafast's 400 do.
        let choice = EncoderPresetChoice.choose(size: p1080, captureFramesPerSecond: 60, measure: measuring(speeds))
        #expect(choice.preset == "ultrafast")
        #expect(speeds.asked == ["superfast", "ultrafast"])
        #expect(choice.reason.contains("superfast 80 fps, ultrafast 400 fps"), "\(choice.reason)")
        let justShort = EncoderPresetChoice.choose(size: p1080, captureFramesPerSecond: 60) { $0 == "superfast" ? 119.9 : 400 }
        #expect(justShort.preset == "ultrafast")
        let exactly = EncoderPresetChoice.choose(size: p1080, captureFramesPerSecond: 60) { $0 == "superfast" ? 120 : 400 }
        #expect(exactly.preset == "superfast")
    }

    @Test func whenNoneKeepsUpTheFastestMeasuredAndTheReasonSaysFramesMayDrop() {
        // 720p120 needs 240: neither does; the fastest measured is used, whatever the list's order.
        let choice = EncoderPresetChoice.choose(size: p720, captureFramesPerSecond: 120, candidates: ["ultrafast", "superfast"]) {
            $0 == "ultrafast" ? 170 : 150
        }
        #expect(choice.preset == "ultrafast")
        #expect(choice.reason.contains("frames may drop"), "\(choice.reason)")
        // A larger headroom asked for moves the threshold: 3× of 60 = 180 > 150.
        let strict = EncoderPresetChoice.choose(size: p1080, captureFramesPerSecond: 60, headroom: 3) { $0 == "superfast" ? 150 : 500 }
        #expect(strict.preset == "ultrafast" && strict.reason.contains("needs 180 fps"))
    }

    @Test func aFailedMeasurementIsSkippedAndNamed() {
        let speeds = Speeds(["ultrafast": 400], failing: ["superfast"])
        let choice = EncoderPresetChoice.choose(size: p1080, captureFramesPerSecond: 30, measure: measuring(speeds))
        #expect(choice.preset == "ultrafast")
        #expect(choice.reason.contains("superfast failed (injected failure)"), "\(choice.reason)")
        let none = EncoderPresetChoice.choose(size: p1080, captureFramesPerSecond: 30) { (_: String) throws(VideoError) -> Double in
            throw VideoError(.encoderUnavailable, "no libx264")
        }
        #expect(none.preset == "ultrafast" && none.reason.contains("no measurement"), "\(none.reason)")
    }

    @Test func settingsPresetIsReplacedOrAdded() {
        var settings = VideoSettings()
        #expect(settings.x264Preset == "superfast")
        #expect(settings.withX264Preset("ultrafast").x264Preset == "ultrafast")
        #expect(settings.withX264Preset("ultrafast").x264Options.count == settings.x264Options.count)
        settings.x264Options.removeAll { $0.name == "preset" }
        #expect(settings.withX264Preset("veryfast").x264Options.first == VideoSettings.EncoderOption("preset", "veryfast"))
    }

    /// A probe that answers from `Speeds` (the size it was asked for is recorded).
    struct InjectedProbe: EncoderSpeedProbe {
        let speeds: Speeds
        func framesPerSecond(settings: VideoSettings, size: PixelSize) throws(VideoError) -> Double {
            try speeds.measure(settings.x264Preset ?? "?", size)
        }
    }

    /// The recording measures at its start (the request's frame size), opens libx264 with the chosen
    /// preset, and the sidecar names it with the reason. libx264 writes its options into the
    /// stream (an SEI): ultrafast turns CABAC off, superfast keeps it on, so the file shows which one ran.
    @Test(arguments: [(30.0, "superfast", "cabac=1"), (60.0, "ultrafast", "cabac=0")])
    func theRecordingUsesAndNamesTheChosenPreset(fps: Double, preset: String, cabac: String) throws {
        let speeds = Speeds(["superfast": 70, "ultrafast": 400])
        let harness = try RecordingHarness(speedProbe: InjectedProbe(speeds: speeds))
        var settings = VideoSettings()
        settings.captureFramesPerSecond = fps
        try harness.service.configure(settings)
        let size = PixelSize(width: 160, height: 120)
        try harness.service.start(RecordingRequest(id: "PRESET", folder: "d", frameSize: size))
        harness.service.drain()  // the measurement is done: frames are taken from here on
        let times = sensorTimes(count: 12, interval: .nanoseconds(Int64(1e9 / fps)))
        try harness.feed((0..<12).map(UInt64.init), times, size: size)
        try harness.service.stop()
        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.framesWritten == 12 && sidecar.droppedFrames.isEmpty)
        #expect(sidecar.format.encoderPreset == preset)
        #expect(sidecar.format.encoderPresetReason?.contains("measured at start: superfast 70 fps") == true, "\(sidecar.format.encoderPresetReason ?? "nil")")
        #expect(speeds.sizes.allSatisfy { $0 == size })
        #expect(harness.service.status.encoderPreset == preset)
        let file = try Data(contentsOf: URL(fileURLWithPath: harness.path("d/PRESET.mp4")))
        #expect(file.range(of: Data(cabac.utf8)) != nil, "libx264's SEI should say \(cabac)")
        // The JSON beside the video names it too.
        let json = try String(contentsOfFile: harness.path("d/PRESET.json"), encoding: .utf8)
        #expect(json.contains("\"encoderPreset\" : \"\(preset)\""), "\(json.prefix(400))")
    }

    /// A probe that holds the measurement until released (the start in progress).
    struct HeldProbe: EncoderSpeedProbe {
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        func framesPerSecond(settings: VideoSettings, size: PixelSize) throws(VideoError) -> Double {
            started.signal()
            release.wait()
            return 1000
        }
    }

    /// While the start measures, the camera side is never held up: `start` and `submit` return at
    /// once, and frames offered meanwhile are refused, not queued and not counted as drops (the
    /// recording begins when the measurement ends).
    @Test func theMeasurementNeitherBlocksTheCameraSideNorCountsItsFramesAsDrops() throws {
        let probe = HeldProbe()
        let harness = try RecordingHarness(speedProbe: probe)
        try harness.service.configure(VideoSettings())
        let size = PixelSize(width: 160, height: 120)
        try harness.service.start(RecordingRequest(id: "HELD", folder: "d", frameSize: size))
        probe.started.wait()
        let times = sensorTimes(count: 8)
        #expect(!harness.service.submit(try makeFrame(0, at: times[0], size: size)))
        #expect(harness.service.queuedFrames == 0 && harness.service.status.droppedFrames == 0)
        probe.release.signal()
        probe.release.signal()  // ultrafast is not measured (superfast's 1000 fps keep up), but never leave it waiting
        harness.service.drain()
        try harness.feed((1..<8).map(UInt64.init), Array(times[1...]), size: size)
        try harness.service.stop()
        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.framesWritten == 7 && sidecar.firstSequence == 1 && sidecar.droppedFrames.isEmpty)
        #expect(sidecar.format.encoderPreset == "superfast")
    }

    @Test func withoutTheFrameSizeTheSettingsPresetIsUsedUnmeasuredAndSaidSo() throws {
        let speeds = Speeds(["superfast": 50, "ultrafast": 400])
        let harness = try RecordingHarness(speedProbe: InjectedProbe(speeds: speeds))
        var settings = VideoSettings()
        settings.captureFramesPerSecond = 60
        try harness.service.configure(settings)
        try harness.service.start(RecordingRequest(id: "NOSIZE", folder: "d"))
        try harness.feed((0..<4).map(UInt64.init), sensorTimes(count: 4), size: PixelSize(width: 160, height: 120))
        try harness.service.stop()
        let sidecar = try #require(harness.sidecars.first)
        #expect(speeds.asked.isEmpty)
        #expect(sidecar.format.encoderPreset == "superfast")
        #expect(sidecar.format.encoderPresetReason?.contains("not measured: the frame size was not known") == true)
    }

    /// The real probe times libx264 on synthetic frames: a positive, finite rate (no speed verdict).
    @Test func theRealProbeMeasuresARate() throws {
        let fps = try X264SpeedProbe(minimumFrames: 4, minimumSeconds: 0).framesPerSecond(settings: VideoSettings().withX264Preset("ultrafast"), size: PixelSize(width: 64, height: 48))
        #expect(fps.isFinite && fps > 0)
    }
}
