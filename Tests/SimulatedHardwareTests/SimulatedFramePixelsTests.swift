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
    static let handheldDigests: [[StreamRole: UInt64]] = [
        [.raw: 0xa6a3f1477a018c2f, .stillCapture: 0x782a1ebed3d529ad, .videoRecording: 0x223dea8018909ca5],
        [.raw: 0xb3af5a4d22de7804, .stillCapture: 0xcf35b7c4e7ae434e, .videoRecording: 0x1b369bb33fa1dd2],
        [.raw: 0x5148884ebf69f588, .stillCapture: 0xec43ebaf55a96d82, .videoRecording: 0xbef473cc394b7324],
        [.raw: 0x643d97e09ff2b382, .stillCapture: 0xcf501ec13e3c2a73, .videoRecording: 0x391ee6bd0f2fb7fa],
        [.raw: 0x7592e36edce88c1f, .stillCapture: 0x8a97cf85fa10d2fa, .videoRecording: 0xda6c0f9517cf801f],
        [.raw: 0x7ac8147fc7ccfc67, .stillCapture: 0xf5d18b03b34d7e6e, .videoRecording: 0xbe8ef68bb8d0bb33],
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
