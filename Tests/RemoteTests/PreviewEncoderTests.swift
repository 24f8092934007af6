import Foundation
import Testing
import Hardware
@testable import Remote
import TestSupport

/// The preview's one encoder: a frame is encoded once whatever the number of clients, at most
/// 30 a second, only while someone watches; a slow client gets the newest frame, skipping.
@Suite struct PreviewEncoderTests {
    /// A 1280x720 RGB frame whose left part is `shade`.
    static func frame(_ shade: UInt8) -> FrameBuffer {
        let size = PixelSize(width: 1280, height: 720)
        var bytes = [UInt8](repeating: 40, count: size.area * 3)
        for y in 0..<size.height { for x in 0..<400 { let i = (y * size.width + x) * 3; bytes[i] = shade; bytes[i + 1] = shade } }
        return FrameBuffer(pixelFormat: .bgr888, size: size, stride: size.width * 3, bytes: bytes)
    }

    /// Waits (up to 10 s) until the encoder has encoded `count` frames.
    static func waitForEncoded(_ encoder: PreviewEncoder, _ count: Int) -> Bool {
        _ = waitUntil(seconds: 10) { encoder.frameCounts.encoded >= count }
        return encoder.frameCounts.encoded == count
    }

    static func readPart(_ stream: MJPEGStream) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        // One part: header, JPEG, CRLF; a part is at most one read of this size.
        let n = buffer.withUnsafeMutableBytes { stream.read(into: $0) } ?? 0
        bytes += buffer[0..<n]
        return bytes
    }

    @Test func eachFrameIsEncodedOnceForEveryClient() throws {
        let encoder = PreviewEncoder()
        defer { encoder.stop() }
        let clients = (0..<3).map { _ in MJPEGStream(encoder: encoder) }
        defer { clients.forEach { $0.finished() } }
        #expect(encoder.watcherCount == 3)
        let start = ContinuousClock.now
        for i in 0..<5 {
            encoder.offer(Self.frame(UInt8(60 + 40 * i)), at: start + .milliseconds(50 * i))
            #expect(Self.waitForEncoded(encoder, i + 1))
            let parts = clients.map(Self.readPart)
            #expect(Set(parts).count == 1, "every client gets the same bytes")
            #expect(parts[0].count > 1000)
        }
        #expect(encoder.frameCounts.encoded == 5, "5 frames, 3 clients: 5 encodings")
        let jpeg = MJPEGParts.jpegs(in: Self.readPartAfterNext(encoder, clients[0]))
        #expect(jpeg.first.flatMap(MJPEGParts.jpegWidth) == 640)
    }

    static func readPartAfterNext(_ encoder: PreviewEncoder, _ client: MJPEGStream) -> [UInt8] {
        encoder.offer(frame(250), at: .now + .seconds(10))
        _ = waitForEncoded(encoder, encoder.frameCounts.encoded + 1)
        return readPart(client)
    }

    @Test func nobodyWatchingCostsNothingAndTheRateIsAtMost30PerSecond() {
        let encoder = PreviewEncoder()
        defer { encoder.stop() }
        let frame = Self.frame(100)
        let start = ContinuousClock.now
        for i in 0..<120 { encoder.offer(frame, at: start + .microseconds(8_333 * i)) }
        #expect(encoder.frameCounts.accepted == 0, "no client: no frame kept")
        let client = MJPEGStream(encoder: encoder)
        defer { client.finished() }
        // One second of a 120 fps camera.
        let later = start + .seconds(5)
        for i in 0..<120 { encoder.offer(frame, at: later + .microseconds(8_333 * i)) }
        let accepted = encoder.frameCounts.accepted
        #expect((29...31).contains(accepted), "\(accepted) frames kept of 120 in one second")
        // A 30 fps camera keeps every frame, its jitter notwithstanding.
        let next = later + .seconds(5)
        for i in 0..<30 { encoder.offer(frame, at: next + .microseconds(33_333 * i + (i % 2 == 0 ? 1_500 : -1_500))) }
        #expect(encoder.frameCounts.accepted - accepted == 30)
    }

    @Test func aSlowClientSkipsToTheNewestFrame() {
        let encoder = PreviewEncoder()
        defer { encoder.stop() }
        let fast = MJPEGStream(encoder: encoder), slow = MJPEGStream(encoder: encoder)
        defer { fast.finished(); slow.finished() }
        let start = ContinuousClock.now
        var last: [UInt8] = []
        for i in 0..<4 {
            encoder.offer(Self.frame(UInt8(50 * i + 20)), at: start + .milliseconds(100 * i))
            #expect(Self.waitForEncoded(encoder, i + 1))
            last = Self.readPart(fast)
        }
        // The slow client reads once, now: the fourth frame, the three before skipped.
        #expect(Self.readPart(slow) == last)
        #expect(encoder.watcherCount == 2)
    }

    @Test func aClientJoiningAfterEveryoneLeftWaitsForAFreshFrame() {
        let encoder = PreviewEncoder()
        defer { encoder.stop() }
        let first = MJPEGStream(encoder: encoder)
        encoder.offer(Self.frame(60), at: .now)
        #expect(Self.waitForEncoded(encoder, 1))
        let old = Self.readPart(first)
        first.finished()
        // Nobody watches: the slot's JPEG grows old. Two clients join at once; neither gets it.
        let late = [MJPEGStream(encoder: encoder), MJPEGStream(encoder: encoder)]
        defer { late.forEach { $0.finished() } }
        encoder.offer(Self.frame(200), at: .now + .seconds(10))
        #expect(Self.waitForEncoded(encoder, 2))
        let parts = late.map(Self.readPart)
        #expect(parts[0] == parts[1])
        #expect(parts[0] != old && parts[0].count > 1000)
        // A client joining while they watch gets that newest JPEG at once.
        let third = MJPEGStream(encoder: encoder)
        defer { third.finished() }
        #expect(Self.readPart(third) == parts[0])
    }

    /// A frame drawn when first read (as the simulated camera's are), with a smaller drawing of itself.
    static func lazyFrame(_ size: PixelSize, smaller: FrameBuffer? = nil) -> FrameBuffer {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: size.area * 3, alignment: 16)
        let address = UInt(bitPattern: memory.baseAddress)
        return FrameBuffer(pixelFormat: .bgr888, size: size, stride: size.width * 3, memory: memory,
                           render: { $0.initializeMemory(as: UInt8.self, repeating: 90) },
                           release: { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }, smaller: smaller)
    }

    @Test func theFramesSmallerDrawingIsEncodedWhenTheWholeFrameIsNotDrawnYet() {
        let encoder = PreviewEncoder()
        defer { encoder.stop() }
        let client = MJPEGStream(encoder: encoder)
        defer { client.finished() }
        let small = Self.lazyFrame(PixelSize(width: 640, height: 360))
        let whole = Self.lazyFrame(PixelSize(width: 1920, height: 1080), smaller: small)
        encoder.offer(whole, at: .now)
        #expect(Self.waitForEncoded(encoder, 1))
        #expect(small.isRendered && !whole.isRendered, "the smaller drawing, not the whole frame")
        #expect(MJPEGParts.jpegs(in: Self.readPart(client)).first.flatMap(MJPEGParts.jpegWidth) == 640)
        // Drawn already (a recording read it): scaling it costs less than drawing again.
        let small2 = Self.lazyFrame(PixelSize(width: 640, height: 360))
        let drawn = Self.lazyFrame(PixelSize(width: 1920, height: 1080), smaller: small2)
        _ = drawn.withUnsafeBytes { $0.count }
        encoder.offer(drawn, at: .now + .seconds(1))
        #expect(Self.waitForEncoded(encoder, 2))
        #expect(!small2.isRendered)
        // A smaller drawing narrower than the preview is not used.
        let tiny = Self.lazyFrame(PixelSize(width: 320, height: 180))
        let wide = Self.lazyFrame(PixelSize(width: 1920, height: 1080), smaller: tiny)
        encoder.offer(wide, at: .now + .seconds(2))
        #expect(Self.waitForEncoded(encoder, 3))
        #expect(wide.isRendered && !tiny.isRendered)
    }

    /// The clients wait on the slot's condition; the encoder must still wake for every frame taken
    /// (a wake-up meant for it once went to a waiting client, and the frame sat pending).
    @Test func everyFrameTakenIsEncodedWhileSixteenClientsWait() {
        let encoder = PreviewEncoder()
        let clients = (0..<16).map { _ in MJPEGStream(encoder: encoder) }
        let readers = DispatchGroup()
        for client in clients {
            readers.enter()
            Thread {
                var buffer = [UInt8](repeating: 0, count: 1 << 20)
                while buffer.withUnsafeMutableBytes({ client.read(into: $0) }) != nil {}
                readers.leave()
            }.start()
        }
        usleep(200_000)  // the readers wait for a JPEG (were they late, the test would only be weaker)
        let start = ContinuousClock.now
        for i in 0..<10 {
            encoder.offer(Self.frame(UInt8(20 * i)), at: start + .milliseconds(50 * i))
            #expect(Self.waitForEncoded(encoder, i + 1), "frame \(i + 1) taken, \(encoder.frameCounts.encoded) encoded")
        }
        #expect(encoder.frameCounts == PreviewEncoder.Counts(offered: 10, accepted: 10, encoded: 10))
        encoder.stop()
        readers.wait()
        clients.forEach { $0.finished() }
    }

    @Test func theRateCapCountsOnTheSensorsTimestampsNotOnArrival() {
        let encoder = PreviewEncoder()
        defer { encoder.stop() }
        let client = MJPEGStream(encoder: encoder)
        defer { client.finished() }
        let frame = Self.frame(100)
        // A 30 fps sensor whose frames reach the encoder in pairs (a late loop): every one is kept.
        let start = ContinuousClock.now
        for i in 0..<30 {
            let arrival = start + .milliseconds(66 * (i / 2))
            encoder.offer(frame, sensorTimestampNanoseconds: Int64(i) * 33_333_333, at: arrival)
        }
        #expect(encoder.frameCounts.accepted == 30)
        // A 120 fps sensor keeps 30 a second whenever its frames arrive.
        for i in 0..<120 {
            encoder.offer(frame, sensorTimestampNanoseconds: 2_000_000_000 + Int64(i) * 8_333_333, at: start + .seconds(5))
        }
        let accepted = encoder.frameCounts.accepted - 30
        #expect((29...31).contains(accepted), "\(accepted) of 120 frames in one second of sensor time")
    }
}
