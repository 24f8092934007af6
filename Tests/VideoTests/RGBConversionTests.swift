import Foundation
import Hardware
import Testing
@testable import Video

/// Packed RGB frames (a camera with one stream, as vimc) are converted to I420 with libswscale:
/// the decoded video has the colour's Rec. 709 limited-range Y'CbCr.
@Suite struct RGBConversionTests {
    /// R, G, B (0…255) → limited-range Rec. 709 Y', Cb, Cr.
    static func rec709(_ r: Double, _ g: Double, _ b: Double) -> (y: Double, cb: Double, cr: Double) {
        let (kr, kb) = (0.2126, 0.0722)
        let y = kr * r + (1 - kr - kb) * g + kb * b
        return (16 + 219 * y / 255, 128 + 224 * (b - y) / (2 * (1 - kb)) / 255, 128 + 224 * (r - y) / (2 * (1 - kr)) / 255)
    }

    @Test(arguments: [PixelFormat.bgr888, .rgb888, .xrgb8888])
    func aSolidColourKeepsItsValues(_ format: PixelFormat) throws {
        let harness = try RecordingHarness()
        try harness.service.configure(VideoSettings())
        try harness.service.start(RecordingRequest(id: "RGB", folder: "d"))
        let size = PixelSize(width: 64, height: 48)
        let bytesPerPixel = format == .xrgb8888 ? 4 : 3
        // An orange: R 230, G 120, B 40, in each format's memory order.
        let memory: [UInt8] = format == .bgr888 ? [230, 120, 40] : format == .rgb888 ? [40, 120, 230] : [40, 120, 230, 255]
        let row = Array([[UInt8]](repeating: memory, count: size.width).joined())
        let image = Array([[UInt8]](repeating: row, count: size.height).joined())
        for i in 0..<5 {
            let buffer = FrameBuffer(pixelFormat: format, size: size, stride: size.width * bytesPerPixel, bytes: image)
            #expect(try harness.service.submit(buffer, sequence: UInt64(i), sensorTimestamp: MonotonicTime(nanoseconds: 1_000_000_000 + Int64(i) * 33_333_333)))
            harness.service.drain()
        }
        try harness.service.stop()
        #expect(harness.stops.first?.error == nil)
        let yuv = try firstFrameYUV420(harness.path("d/RGB.mp4"))
        let lumaBytes = size.width * size.height
        try #require(yuv.count == lumaBytes * 3 / 2)
        let expected = Self.rec709(230, 120, 40)
        let centreY = Double(yuv[size.width * 24 + 32])
        let centreCb = Double(yuv[lumaBytes + (size.width / 2) * 12 + 16])
        let centreCr = Double(yuv[lumaBytes + lumaBytes / 4 + (size.width / 2) * 12 + 16])
        #expect(abs(centreY - expected.y) <= 3, "Y \(centreY), expected \(expected.y)")
        #expect(abs(centreCb - expected.cb) <= 3, "Cb \(centreCb), expected \(expected.cb)")
        #expect(abs(centreCr - expected.cr) <= 3, "Cr \(centreCr), expected \(expected.cr)")
    }
}
