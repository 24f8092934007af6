import Boards
import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
@testable import Video

/// A recording of the simulated camera on a loop that runs late: the frames the sensor lost are
/// reported dropped, and every PTS step is a whole number of frame durations.
@Suite struct RecordingCadenceTests {
    static let frameMicroseconds: Int64 = 33_333

    final class Frames: @unchecked Sendable { var delivered: [CompletedRequest] = [] }

    /// Streams the simulated camera at a fixed 30 fps into `harness` for `frames` frame times,
    /// the loop held `holdFrames` frame durations after every `holdEvery`th frame.
    static func record(_ harness: RecordingHarness, id: String, frames: Int, holdEvery: Int, holdFrames: Double) throws -> [CompletedRequest] {
        let loop = harness.loop
        let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"))
        provider.maximumRenderSize = PixelSize(width: 96, height: 54)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let service = harness.service
        let log = Frames()
        let frame = Duration.microseconds(frameMicroseconds)
        let bound = LoopBound(camera, loop: loop)
        camera.setEventHandler { event in
            guard case .requestCompleted(let c) = event, c.isComplete else { return }
            log.delivered.append(c)
            _ = try? service.submit(c)
            service.drain()
            try? bound.value.queueRequest(CaptureRequest(cookie: c.cookie + 100, roles: [.videoRecording]))
            if log.delivered.count % holdEvery == 0 {
                loop.hold(for: .nanoseconds(Int64(Double(frame.nanoseconds) * holdFrames)))
            }
        }
        _ = try camera.configure([StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: PixelSize(width: 1920, height: 1080))])
        try harness.service.configure(VideoSettings())
        try harness.service.start(RecordingRequest(id: id, folder: "2026-12-02"))
        try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(5000),
                                    ControlName.analogueGain: .float(2), ControlName.awbEnable: .bool(false),
                                    ControlName.colourGains: .floatArray([2, 1.5]),
                                    ControlName.frameDurationLimits: .int64Array([frameMicroseconds, frameMicroseconds])])
        for cookie in 1...4 { try camera.queueRequest(CaptureRequest(cookie: UInt64(cookie), roles: [.videoRecording])) }
        loop.advance(by: frame * frames)
        camera.stop()
        try harness.service.stop()
        _ = harness.settle()
        return log.delivered
    }

    @Test func framesTheSensorLostAreDroppedAndPTSKeepsWholeFrames() throws {
        let harness = try RecordingHarness()
        let delivered = try Self.record(harness, id: "VID_0001", frames: 90, holdEvery: 7, holdFrames: 2.6)
        let sidecar = try #require(harness.sidecars.first)
        let first = try #require(delivered.first), last = try #require(delivered.last)
        let gaps = Int(last.sequence - first.sequence + 1) - delivered.count
        #expect(gaps > 0)
        #expect(sidecar.framesWritten == delivered.count)
        #expect(harness.service.status.droppedFrames == gaps)
        #expect(sidecar.droppedFrames.count == gaps && sidecar.droppedFrames.allSatisfy { $0.cause == .sequenceGap })

        let pts = try probe(harness.path("2026-12-02/VID_0001.mp4")).framePTS
        #expect(pts.count == delivered.count)
        let steps = zip(pts, pts.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 && $0 % Self.frameMicroseconds == 0 }, "\(steps)")
        #expect(steps.reduce(0, +) / Self.frameMicroseconds == Int64(last.sequence - first.sequence))
    }

    @Test func frameNumbersBeforeARecordingAreNotItsDrops() throws {
        let harness = try RecordingHarness()
        try harness.service.configure(VideoSettings())
        let times = sensorTimes(count: 60, jitterMicroseconds: 0)
        try harness.service.start(RecordingRequest(id: "VID_0001", folder: "2026-12-02"))
        try harness.feed(Array(0..<10), Array(times[0..<10]))
        try harness.service.stop()
        _ = harness.settle()
        // The camera streams on between recordings; the second starts 40 frames later.
        try harness.service.start(RecordingRequest(id: "VID_0002", folder: "2026-12-02"))
        try harness.feed(Array(50..<60), Array(times[50..<60]))
        try harness.service.stop()
        let sidecars = harness.sidecars
        #expect(sidecars.count == 2)
        #expect(sidecars.map(\.framesWritten) == [10, 10])
        #expect(sidecars.map(\.droppedFrames.count) == [0, 0])
    }
}
