import Foundation
import Hardware
import Testing
@testable import Video

/// A frame's warp (video stabilization's rotation) is done by the encoder queue's converter, on
/// the I420 image (after any conversion), and the frame keeps its sequence, times and records.
@Suite struct FrameWarpTests {
    /// Mirrors the luma left to right and sets every chroma sample to 77.
    struct Mirror: VideoFrameWarp {
        func warp(source: UnsafeRawPointer, sourceStride: Int, into target: UnsafeMutableRawPointer, targetStride: Int,
                  size: PixelSize) {
            let s = source.assumingMemoryBound(to: UInt8.self), t = target.assumingMemoryBound(to: UInt8.self)
            for y in 0..<size.height {
                for x in 0..<size.width { t[y * targetStride + x] = s[y * sourceStride + size.width - 1 - x] }
            }
            let chroma = 2 * (targetStride / 2) * ((size.height + 1) / 2)
            (t + targetStride * size.height).update(repeating: 77, count: chroma)
        }
    }

    static let size = PixelSize(width: 32, height: 16)
    static let record = StabilizedFrame(sequence: 7, correctionDegrees: [0.1, -0.2, 0.3], marginUse: 0.4, marginHit: false)

    @Test func anI420FrameLeavesWarpedWithItsRecords() throws {
        var frame = try VideoFrame(size: Self.size, stride: Self.size.width, sequence: 7, sensorTimestamp: MonotonicTime(nanoseconds: 5)) { bytes in
            for i in 0..<bytes.count { bytes[i] = UInt8(i % 251) }
        }
        frame.exposure = FrameExposure(exposureTimeMicroseconds: 1000, analogueGain: 2, colourTemperatureKelvin: 5000)
        frame.wallClockNanoseconds = 42
        frame.stabilized = Self.record
        let plain = try FrameConverter().convert(frame)
        frame.warp = Mirror()
        let out = try FrameConverter().convert(frame)
        #expect(out.warp == nil && out.pixelFormat == .yuv420 && out.size == Self.size)
        #expect(out.sequence == 7 && out.sensorTimestamp == MonotonicTime(nanoseconds: 5) && out.wallClockNanoseconds == 42)
        #expect(out.exposure == frame.exposure && out.stabilized == Self.record)
        let w = Self.size.width, h = Self.size.height
        let source = plain.withUnsafeBytes { Array($0) }, warped = out.withUnsafeBytes { Array($0) }
        let mirrored = (0..<h).flatMap { y in (0..<w).map { x in source[y * w + w - 1 - x] } }
        #expect(Array(warped[..<(w * h)]) == mirrored, "the luma mirrored")
        #expect(warped[(w * h)...].allSatisfy { $0 == 77 })
    }

    @Test func aPackedRGBFrameIsConvertedBeforeItsWarp() throws {
        // A left-to-right grey ramp in BGR888: mirrored, the luma falls from left to right.
        var bytes: [UInt8] = []
        for _ in 0..<Self.size.height { for x in 0..<Self.size.width { bytes += Array(repeating: UInt8(x * 8), count: 3) } }
        let buffer = FrameBuffer(pixelFormat: .bgr888, size: Self.size, stride: Self.size.width * 3, bytes: bytes)
        var frame = try VideoFrame(copying: buffer, sequence: 3, sensorTimestamp: MonotonicTime(nanoseconds: 9))
        frame.stabilized = Self.record
        frame.warp = Mirror()
        let out = try FrameConverter().convert(frame)
        #expect(out.pixelFormat == .yuv420 && out.size == Self.size && out.stabilized == Self.record)
        let luma = out.withUnsafeBytes { $0.prefix(Self.size.width).map { Int($0) } }
        #expect((luma.first ?? 0) > (luma.last ?? 0) + 100, "mirrored ramp \(luma)")
        #expect(out.withUnsafeBytes { Array($0[(Self.size.width * Self.size.height)...]) }.allSatisfy { $0 == 77 })
    }
}
