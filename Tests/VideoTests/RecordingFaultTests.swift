import Foundation
import Glibc
import Hardware
import LinuxHardware
import Testing
@testable import Video

/// Back-pressure, a full or failing disk, no room, and `kill -9`: frames are counted, files stay playable.
@Suite struct RecordingFaultTests {
    @Test func aStalledEncoderDropsNewFramesAndCountsEachWithItsTime() throws {
        let directory = try makeTemporaryDirectory()
        let storage = try FaultyStorage(root: directory)
        let harness = try RecordingHarness(storage: storage, directory: directory)
        var settings = VideoSettings()
        settings.codec = .mjpeg  // one packet per frame: the first frame's file write is the stall
        settings.queueCapacityFrames = 3
        try harness.service.configure(settings)
        let gate = DispatchSemaphore(value: 0)
        storage.gate = gate
        try harness.service.start(RecordingRequest(id: "BP", folder: "d"))
        let times = sensorTimes(count: 12)
        #expect(harness.service.submit(try makeFrame(0, at: times[0])))
        storage.stalled.wait()  // the encoder is inside the file's first write
        var accepted: [Bool] = []
        for i in 1..<12 { accepted.append(harness.service.submit(try makeFrame(UInt64(i), at: times[i]))) }
        #expect(accepted == Array(repeating: true, count: 3) + Array(repeating: false, count: 8))
        gate.signal()
        harness.service.drain()
        // The next frame after the drops is no "sequence gap": those frames are counted once.
        #expect(harness.service.submit(try makeFrame(12, at: sensorTimes(count: 13)[12])))
        harness.service.drain()
        try harness.service.stop()
        #expect(harness.stops.first?.error == nil)
        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.framesWritten == 5)
        #expect(sidecar.droppedFrames == (4..<12).map {
            DroppedFrame(sequence: UInt64($0), sensorTimestampNanoseconds: times[$0].nanoseconds, cause: .queueFull)
        })
        #expect(harness.service.status.droppedFrames == 8)
        let written = Array(times[0..<4]) + [sensorTimes(count: 13)[12]]
        #expect(try probe(harness.path("d/BP.mp4")).framePTS == written.map { ($0 - times[0]).nanoseconds / 1000 })
    }

    @Test func aLentCameraBufferIsCopiedOrNotTakenAtAll() throws {
        let harness = try RecordingHarness()
        let size = PixelSize(width: 64, height: 48)
        let released = LockedValue(0)
        let source = try makeFrame(0, at: MonotonicTime(nanoseconds: 5_000_000_000), size: size)
        func lent() -> FrameBuffer {
            let mapping = UnsafeRawBufferPointer(start: source.bytes.base, count: source.bytes.count)
            return FrameBuffer(pixelFormat: .yuv420, size: size, stride: source.stride, mapping: mapping) { released.withLock { $0 += 1 } }
        }
        // Idle without pre-record: not wanted, not copied.
        #expect(try harness.service.submit(lent(), sequence: 0, sensorTimestamp: MonotonicTime(nanoseconds: 5_000_000_000)) == false)
        try harness.service.configure(VideoSettings())
        try harness.service.start(RecordingRequest(id: "LENT", folder: "d"))
        for i in 0..<5 {
            #expect(try harness.service.submit(lent(), sequence: UInt64(i), sensorTimestamp: MonotonicTime(nanoseconds: 5_000_000_000 + Int64(i) * 33_333_333)))
        }
        // Every buffer went back on return from submit, before any encoding.
        #expect(released.withLock { $0 } == 6)
        // A whole camera request: its video buffer and metadata.
        #expect(try harness.service.submit(CompletedRequest(
            cookie: 1, sequence: 5, sensorTimestamp: MonotonicTime(nanoseconds: 5_200_000_000),
            metadata: [ControlName.exposureTime: .int32(8000), ControlName.analogueGain: .float(3),
                       ControlName.colourTemperature: .int32(4500), "FrameWallClock": .int64(1_790_000_000_000_000_000)],
            buffers: [.videoRecording: lent()])))
        #expect(try harness.service.submit(CompletedRequest(cookie: 2, sequence: 6, sensorTimestamp: MonotonicTime(nanoseconds: 5_300_000_000),
                                                            metadata: [:], buffers: [.viewfinder: lent()])) == false)
        #expect(released.withLock { $0 } == 8)
        // A raw Bayer buffer is no image the encoder can take (packed RGB would be converted).
        let wrong = FrameBuffer(pixelFormat: .srggb12, size: size, stride: 64 * 2, bytes: [UInt8](repeating: 0, count: 64 * 2 * 48))
        #expect(throws: VideoError.self) { try harness.service.submit(wrong, sequence: 9, sensorTimestamp: MonotonicTime(nanoseconds: 6_000_000_000)) }
        try harness.service.stop()
        #expect(try probe(harness.path("d/LENT.mp4")).framePTS.count == 6)
        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.exposure.exposureTimeMicroseconds == ValueRange(minimum: 8000, maximum: 8000, mean: 8000))
        #expect(sidecar.exposure.iso?.maximum == 300 && sidecar.exposure.colourTemperatureKelvin?.mean == 4500)
    }

    @Test(arguments: [(VideoSettings.Container.mp4, ENOSPC), (.mkv, ENOSPC), (.mp4, EIO)])
    func aFullOrFailingDiskStopsTheRecordingAndLeavesAPlayableFile(container: VideoSettings.Container, code: Int32) throws {
        let directory = try makeTemporaryDirectory()
        let storage = try FaultyStorage(root: directory)
        storage.failAfterBytes = 150_000
        if code == EIO { storage.fault = HardwareError(.io, "write: Input/output error (injected)", errno: EIO) }
        let harness = try RecordingHarness(storage: storage, directory: directory)
        var settings = VideoSettings()
        settings.container = container
        try harness.service.configure(settings)
        try harness.service.start(RecordingRequest(id: "FULL", folder: "d"))
        let times = sensorTimes(count: 300)
        try harness.feed((0..<300).map(UInt64.init), times)
        let stop = try #require(harness.stops.first)
        #expect(stop.error?.kind == .storage && stop.error?.storageError?.errno == code)
        #expect(harness.service.status.state == .idle)
        #expect(throws: VideoError.self) { try harness.service.stop() }

        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.status == "stopped" && sidecar.error?.contains(code == ENOSPC ? "No space" : "Input/output") == true)
        let file = harness.path("d/FULL.\(container.fileExtension)")
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        #expect(size == 150_000)
        // Playable up to the last whole fragment or cluster; PTS still the sensor's.
        let read = try probe(file)
        #expect(read.framePTS.count >= 30 && read.framePTS.count < 300)
        let expected = times.prefix(read.framePTS.count).map { ($0 - times[0]).nanoseconds / 1000 }
        #expect(read.framePTS == (container == .mp4 ? expected : expected.map { Int64((Double($0) / 1000).rounded()) }))
        // A new recording can start once there is space again.
        storage.failAfterBytes = nil
        try harness.service.start(RecordingRequest(id: "AGAIN", folder: "d"))
        try harness.feed((300..<310).map(UInt64.init), sensorTimes(count: 10, origin: MonotonicTime(nanoseconds: 50_000_000_000)))
        try harness.service.stop()
        #expect(try probe(harness.path("d/AGAIN.\(container.fileExtension)")).framePTS.count == 10)
    }

    @Test func roomIsCheckedBeforeStartAndWhileRecording() throws {
        let directory = try makeTemporaryDirectory()
        let storage = try FaultyStorage(root: directory)
        let harness = try RecordingHarness(storage: storage, directory: directory)
        try harness.service.configure(VideoSettings())
        storage.freeBytesOverride = RecordingService.requiredFreeBytes(VideoSettings()) - 1
        #expect { try harness.service.start(RecordingRequest(id: "NOROOM", folder: "d")) } throws: {
            ($0 as? VideoError)?.kind == .noRoom
        }
        #expect(!FileManager.default.fileExists(atPath: harness.path("d/NOROOM.mp4")))
        storage.freeBytesOverride = nil
        try harness.service.start(RecordingRequest(id: "LOW", folder: "d"))
        let times = sensorTimes(count: 90)
        try harness.feed((0..<40).map(UInt64.init), Array(times[0..<40]))
        storage.freeBytesOverride = 1 << 20  // the disk fills from elsewhere
        try harness.feed((40..<90).map(UInt64.init), Array(times[40..<90]))
        let stop = try #require(harness.stops.first)
        #expect(stop.error?.kind == .noRoom)
        // Stopped at the next keyframe written (every 30th frame; the encoder's lookahead decides
        // which), finalised cleanly with the trailer: every frame written is in the file.
        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.status == "stopped" && sidecar.error?.contains("bytes left") == true)
        #expect(sidecar.framesWritten > 30 && sidecar.framesWritten < 90 && (sidecar.framesWritten - 1) % 30 == 0)
        #expect(try probe(harness.path("d/LOW.mp4")).framePTS.count == sidecar.framesWritten)
    }
}
