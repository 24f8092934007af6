import Boards
import Hardware
import ManualLoop
import SimulatedHardware
import Testing

/// The pixels of full-size frames (a video, a still and a raw stream, handheld), as digests: the
/// renderer's speed-ups (lazy drawing, bands on several threads) must not change a byte.
@Suite struct SimulatedFramePixelsTests {
    final class Log: @unchecked Sendable { var completed: [CompletedRequest] = [] }

    /// FNV-1a over the bytes.
    static func digest(_ buffer: FrameBuffer) -> UInt64 {
        buffer.withUnsafeBytes { bytes in
            var h: UInt64 = 0xCBF2_9CE4_8422_2325
            for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
            return h
        }
    }

    /// Digests per frame and role of six frames of 1080p video, a 2304x1296 still and its raw.
    static func digests(motion amplitude: Double) throws -> [[StreamRole: UInt64]] {
        try frames(motion: amplitude).map { $0.buffers.mapValues(digest) }
    }

    /// The completed frames, none read yet.
    static func frames(motion amplitude: Double) throws -> [CompletedRequest] {
        let loop = ManualEventLoop()
        let motion = MotionProfile.handheld.make(amplitudeDegreesPerSecond: amplitude, seed: 5, origin: loop.now())
        let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"), motion: motion, seed: 9)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let log = Log()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { log.completed.append(c) } }
        let mode = PixelSize(width: 2304, height: 1296)
        _ = try camera.configure([StreamConfiguration(role: .stillCapture, pixelFormat: .bgr888, size: mode),
                                  StreamConfiguration(role: .raw, pixelFormat: PixelFormat("SRGGB10"), size: mode),
                                  StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: PixelSize(width: 1920, height: 1080))])
        try camera.start(controls: [:])
        for cookie in 1...6 { try camera.queueRequest(CaptureRequest(cookie: UInt64(cookie), roles: [.stillCapture, .raw, .videoRecording])) }
        loop.advance(by: .seconds(1))
        camera.stop()
        return log.completed.filter(\.isComplete)
    }

    /// Digests of the frames as drawn before frames were drawn lazily and in bands (eagerly, on one thread).
    static let stillDigests: [[StreamRole: UInt64]] = [
        [.raw: 0x3b1794d391f94ef8, .stillCapture: 0xa945ab03d371c3f, .videoRecording: 0x81bba79ef573e073],
        [.raw: 0xdd94fbbbf5fc35b6, .stillCapture: 0xc2ba3142599e9887, .videoRecording: 0x4c8328b59e48d19f],
        [.raw: 0xc08994aaf4ea260d, .stillCapture: 0x4da3803eb33b19df, .videoRecording: 0x6faa98849a0b2148],
        [.raw: 0x39d52d4d7f3272bd, .stillCapture: 0x413135583418f78b, .videoRecording: 0xee6b5c6b79ce6938],
        [.raw: 0x3beae248d90b38a8, .stillCapture: 0xb9929e673de0c006, .videoRecording: 0xd624681bb830c252],
        [.raw: 0x124eb23eb391119, .stillCapture: 0x1d41ce63a6f6764a, .videoRecording: 0xcb0153e93edf2dab],
    ]
    /// Handheld: since the camera's rotation is rendered per row through its homography (issue 41:
    /// yaw, pitch, roll and the rolling shutter as a pinhole camera sees them), recorded from the
    /// banded, late and concurrent reads below; in-order reads on one thread must give the same bytes.
    /// Re-recorded when the row warp began stepping its source points in 16-pixel blocks (within
    /// 1/1024 px of the exact map, `theRowWarpIsTheExactProjectiveMapOfEachRow`; frames looked at).
    static let handheldDigests: [[StreamRole: UInt64]] = [
        [.raw: 0x61cf28c1523a9035, .stillCapture: 0xe48f67e0c70fbc10, .videoRecording: 0xe02432b1d78164ed],
        [.raw: 0xf73b8664815fcf63, .stillCapture: 0x6028778be99ea7fb, .videoRecording: 0x37784d15144fd62b],
        [.raw: 0xa9eca57cea3b0dcb, .stillCapture: 0x12b35a48035753ed, .videoRecording: 0x5484837da3c1e9e0],
        [.raw: 0x3845ad1c6d600b6f, .stillCapture: 0xd12844a391017c02, .videoRecording: 0xf2c89cf1d1a724c7],
        [.raw: 0x46462003e470e63a, .stillCapture: 0x7e52bb208472628e, .videoRecording: 0xd63bbf10c78bf772],
        [.raw: 0x2893e4e535131ddb, .stillCapture: 0xf1932129a3b68776, .videoRecording: 0x6cb118259c7098d2],
    ]

    @Test func fullSizeFramesAreTheSameBytesStillAndHandheld() throws {
        #expect(try Self.digests(motion: 0) == Self.stillDigests)
        #expect(try Self.digests(motion: 10) == Self.handheldDigests)
    }

    @Test func aFrameIsDrawnWhenFirstReadTheSameWhenReadLateOrElsewhere() async throws {
        let frames = try Self.frames(motion: 10)
        #expect(frames.allSatisfy { $0.buffers.values.allSatisfy { !$0.isRendered } })
        // Read after the camera stopped, newest first, each stream on a thread of its own.
        var read: [[StreamRole: UInt64]] = Array(repeating: [:], count: frames.count)
        for (index, frame) in frames.enumerated().reversed() {
            let buffers = frame.buffers
            read[index] = await withTaskGroup(of: (StreamRole, UInt64).self) { group in
                for (role, buffer) in buffers { group.addTask { (role, Self.digest(buffer)) } }
                var digests: [StreamRole: UInt64] = [:]
                for await (role, digest) in group { digests[role] = digest }
                return digests
            }
        }
        #expect(read == Self.handheldDigests)
        #expect(frames.allSatisfy { $0.buffers.values.allSatisfy(\.isRendered) })
    }
}
