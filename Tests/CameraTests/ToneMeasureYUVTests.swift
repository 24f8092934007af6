import Camera
import Hardware
import Testing
@testable import SimulatedHardware

/// Video HDR measures the video stream during a recording (the frame the recording draws anyway),
/// which is YUV420. The measure turns each sampled pixel back into R'G'B', so a scene measures the
/// same in YUV as in RGB: here packed both ways by the simulated ISP's own packer.
@Test(arguments: [(StreamRole.videoRecording, TonalExtremes.YCbCrEncoding.rec709Limited), (.viewfinder, .sYCCFull)])
func aYUVFrameMeasuresAsItsRGBDoes(role: StreamRole, encoding: TonalExtremes.YCbCrEncoding) throws {
    let size = PixelSize(width: 640, height: 360)
    // Top 12 % saturated red (only one channel clips: its luma is far below white), bottom 3 %
    // black, mid grey between.
    func pixel(_ row: Int) -> (UInt8, UInt8, UInt8) {
        row < size.height * 12 / 100 ? (255, 30, 30) : row >= size.height * 97 / 100 ? (0, 0, 0) : (128, 128, 128)
    }
    func packed(_ format: PixelFormat) throws -> FrameBuffer {
        var packer = try #require(FramePacker(format: format, size: size, role: role))
        var bytes = [UInt8](repeating: 0, count: packer.byteCount)
        var rgb = [UInt8](repeating: 0, count: 3 * size.width)
        bytes.withUnsafeMutableBufferPointer { frame in
            for row in 0..<size.height {
                let (r, g, b) = pixel(row)
                for x in 0..<size.width { rgb[x] = r; rgb[size.width + x] = g; rgb[2 * size.width + x] = b }
                rgb.withUnsafeBufferPointer { packer.pack(row: row, rgb: $0.baseAddress!, channelStride: size.width, into: frame.baseAddress!) }
            }
        }
        return FrameBuffer(pixelFormat: format, size: size, stride: packer.stride, bytes: bytes)
    }
    let rgb = try #require(TonalExtremes(try packed(.bgr888), clippedLevel: 250, crushedLevel: 10))
    let yuv = try #require(TonalExtremes(try packed(.yuv420), clippedLevel: 250, crushedLevel: 10, encoding: encoding))
    #expect(abs(rgb.clippedFraction - 0.12) < 0.005 && abs(rgb.crushedFraction - 0.03) < 0.005)
    #expect(abs(yuv.clippedFraction - rgb.clippedFraction) < 0.01, "YUV \(yuv.clippedFraction), RGB \(rgb.clippedFraction)")
    #expect(abs(yuv.crushedFraction - rgb.crushedFraction) < 0.01, "YUV \(yuv.crushedFraction), RGB \(rgb.crushedFraction)")
    // Read with the wrong encoding, limited-range black is not crushed: the encoding matters.
    if encoding == .rec709Limited {
        let wrong = try #require(TonalExtremes(try packed(.yuv420), clippedLevel: 250, crushedLevel: 10, encoding: .sYCCFull))
        #expect(wrong.crushedFraction < 0.005)
    }
}
