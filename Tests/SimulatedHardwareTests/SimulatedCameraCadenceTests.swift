import Boards
import Hardware
import ManualLoop
import SimulatedHardware
import Testing

/// The simulated sensor keeps its own cadence when the loop runs late: frame n+1 starts at frame
/// n's start plus its FrameDuration, and frames the loop was too late for are lost (sequence
/// skipped, no request used up), as a real sensor's are when the pipeline falls behind.
@Suite struct SimulatedCameraCadenceTests {
    final class Log: @unchecked Sendable { var completed: [CompletedRequest] = [] }

    static let frameMicroseconds: Int64 = 33_333

    /// A streaming camera at a fixed 30 fps (manual exposure), with `requests` queued.
    static func streaming(requests: Int) throws -> (ManualEventLoop, SimulatedCamera, Log) {
        let loop = ManualEventLoop()
        let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"))
        provider.maximumRenderSize = PixelSize(width: 96, height: 54)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let log = Log()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { log.completed.append(c) } }
        _ = try camera.configure([StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: PixelSize(width: 1920, height: 1080))])
        try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(5000),
                                    ControlName.analogueGain: .float(2), ControlName.awbEnable: .bool(false),
                                    ControlName.colourGains: .floatArray([2, 1.5]),
                                    ControlName.frameDurationLimits: .int64Array([frameMicroseconds, frameMicroseconds])])
        for cookie in 1...requests { try camera.queueRequest(CaptureRequest(cookie: UInt64(cookie), roles: [.videoRecording])) }
        return (loop, camera, log)
    }

    /// Each frame's start is the previous one's plus its FrameDuration times the frames between.
    static func checkCadence(_ frames: [CompletedRequest]) throws {
        for (a, b) in zip(frames, frames.dropFirst()) {
            let duration = try #require(a.metadata[ControlName.frameDuration]?.int64Value)
            #expect(b.sequence > a.sequence)
            #expect(b.sensorTimestamp - a.sensorTimestamp == .microseconds(duration * Int64(b.sequence - a.sequence)),
                    "frames \(a.sequence) → \(b.sequence)")
            #expect(b.sensorTimestamp.nanoseconds == b.metadata[ControlName.sensorTimestamp]?.int64Value)
        }
    }

    @Test func aLateLoopLosesFramesInsteadOfSlowingTheSensor() throws {
        let (loop, camera, log) = try Self.streaming(requests: 40)
        let frame = Duration.microseconds(Self.frameMicroseconds)
        loop.advance(by: frame * 5)
        // The loop is held 3.5 frames mid-frame (a slow command, a loaded machine), then runs on.
        loop.schedule(after: frame / 2) { loop.hold(for: frame * 7 / 2) }
        loop.advance(by: frame * 10)
        let frames = log.completed
        try Self.checkCadence(frames)
        let origin = try #require(frames.first?.sensorTimestamp)
        for f in frames {
            #expect((f.sensorTimestamp - origin).nanoseconds % frame.nanoseconds == 0)
            #expect(f.sensorTimestamp - origin == frame * Int(f.sequence))
        }
        let jumps = zip(frames, frames.dropFirst()).map { $1.sequence - $0.sequence }
        #expect(jumps.contains(4) && jumps.allSatisfy { $0 == 1 || $0 == 4 })
        #expect(camera.framesMissed == 3)
        // No request went to a lost frame: cookies stay in order, one frame each.
        #expect(frames.map(\.cookie) == (1...UInt64(frames.count)).map { $0 })
        #expect(frames.count + camera.requestsWaiting + 1 == 40)  // one frame in progress
    }

    @Test func aTimestampIsTheFramesScheduledStartNotWhenTheLoopRan() throws {
        let (loop, _, log) = try Self.streaming(requests: 20)
        let frame = Duration.microseconds(Self.frameMicroseconds)
        loop.advance(by: frame * 3)
        // The next frame runs a quarter frame late: none is lost, and the timestamps keep the cadence.
        loop.schedule(after: frame * 3 / 4) { loop.hold(for: frame / 2) }
        loop.advance(by: frame * 5)
        let frames = log.completed
        try Self.checkCadence(frames)
        #expect(frames.map(\.sequence) == (0..<UInt64(frames.count)).map { $0 })
    }

    @Test func aFrameDurationChangeAppliesFromTheNextScheduledFrame() throws {
        let (loop, camera, log) = try Self.streaming(requests: 4)
        let frame = Duration.microseconds(Self.frameMicroseconds)
        for cookie in 5...30 {
            let controls: ControlList = cookie == 8 ? [ControlName.frameDurationLimits: .int64Array([50_000, 50_000])] : [:]
            try camera.queueRequest(CaptureRequest(cookie: UInt64(cookie), controls: controls, roles: [.videoRecording]))
        }
        loop.advance(by: frame * 12)
        loop.schedule(after: .milliseconds(5)) { loop.hold(for: .milliseconds(120)) }
        loop.advance(by: .milliseconds(400))
        let frames = log.completed
        try Self.checkCadence(frames)
        let durations = Set(frames.compactMap { $0.metadata[ControlName.frameDuration]?.int64Value })
        #expect(durations == [Self.frameMicroseconds, 50_000])
        #expect(camera.framesMissed > 0)
    }
}
