import Hardware
import Testing
@testable import Viewfinder

@Suite struct ConversionTests {
    private func render(_ frame: FrameBuffer, to size: PixelSize, _ filter: ScalingFilter = .nearest) throws -> Canvas {
        var canvas = Canvas(size: size, fill: 0xABCDEF)
        try FrameScaler(filter: filter).draw(frame, into: &canvas)
        return canvas
    }

    @Test func bgr888IsRGBInMemoryAndRGB888IsBGR() throws {
        let bytes: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30]
        let size = PixelSize(width: 2, height: 2)
        let bgr = try render(FrameBuffer(pixelFormat: .bgr888, size: size, stride: 6, bytes: bytes), to: size)
        #expect(bgr.pixels == [0xFF0000, 0x00FF00, 0x0000FF, 0x0A141E])
        let rgb = try render(FrameBuffer(pixelFormat: .rgb888, size: size, stride: 6, bytes: bytes), to: size)
        #expect(rgb.pixels == [0x0000FF, 0x00FF00, 0xFF0000, 0x1E140A])
    }

    @Test func stridePaddingIsSkipped() throws {
        // 1×2 image, stride 8: five bytes of padding per row that must never show.
        let bytes: [UInt8] = [1, 2, 3, 99, 99, 99, 99, 99, 4, 5, 6, 99, 99, 99, 99, 99]
        let frame = FrameBuffer(pixelFormat: .bgr888, size: .init(width: 1, height: 2), stride: 8, bytes: bytes)
        #expect(try render(frame, to: .init(width: 1, height: 2)).pixels == [0x010203, 0x040506])
    }

    @Test func yuv420UsesFullRangeBT601() throws {
        // 2×2 luma, one chroma sample: Y = 100, 255, 0, 128; U = 128, V = 228.
        let bytes: [UInt8] = [100, 255, 0, 128, 128, 228]
        let frame = FrameBuffer(pixelFormat: .yuv420, size: .init(width: 2, height: 2), stride: 2, bytes: bytes)
        let c = try render(frame, to: .init(width: 2, height: 2))
        // R = Y + 1.402·100, G = Y − 0.714136·100, B = Y, rounded and clamped.
        #expect(c.pixels == [Pixel.rgb(240, 29, 100), Pixel.rgb(255, 184, 255), Pixel.rgb(140, 0, 0),
                             Pixel.rgb(255, 57, 128)])
        let gray = FrameBuffer(pixelFormat: .yuv420, size: .init(width: 2, height: 2), stride: 2,
                               bytes: [0, 77, 200, 255, 128, 128])
        #expect(try render(gray, to: .init(width: 2, height: 2)).pixels == [0x000000, 0x4D4D4D, 0xC8C8C8, 0xFFFFFF])
    }

    private func words(_ values: [UInt16]) -> [UInt8] { values.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }

    @Test func srggb12BinsEachCellToOnePixel() throws {
        // Sensor 4×2: cells (R G / G B) = (4095 2048 / 2048 0) and (160 320 / 480 1600).
        let bytes = words([4095, 2048, 160, 320, 2048, 0, 480, 1600])
        let frame = FrameBuffer(pixelFormat: .srggb12, size: .init(width: 4, height: 2), stride: 8, bytes: bytes)
        let c = try render(frame, to: .init(width: 2, height: 1))
        #expect(c.pixels == [Pixel.rgb(255, 128, 0), Pixel.rgb(10, 25, 100)])
    }

    @Test func sbggr10FindsRedAndBlueByOrder() throws {
        // B G / G R with 10-bit values: B = 1023, R = 4, G = 512 and 512.
        let frame = FrameBuffer(pixelFormat: .sbggr10, size: .init(width: 2, height: 2), stride: 4,
                                bytes: words([1023, 512, 512, 4]))
        #expect(try render(frame, to: .init(width: 1, height: 1)).pixels == [Pixel.rgb(1, 128, 255)])
    }

    @Test func nearestUpscaleDuplicatesPixels() throws {
        let frame = FrameBuffer(pixelFormat: .xrgb8888, size: .init(width: 2, height: 1), stride: 8,
                                bytes: [3, 2, 1, 0xFF, 6, 5, 4, 0xFF])
        let c = try render(frame, to: .init(width: 4, height: 2))
        #expect(c.pixels == [0x010203, 0x010203, 0x040506, 0x040506, 0x010203, 0x010203, 0x040506, 0x040506])
    }

    @Test func bilinearBlendsNeighboursWithCentreAlignment() throws {
        let frame = FrameBuffer(pixelFormat: .bgr888, size: .init(width: 2, height: 1), stride: 6,
                                bytes: [0, 0, 0, 255, 255, 255])
        let c = try render(frame, to: .init(width: 4, height: 2), .bilinear)
        #expect(c.pixels == [0x000000, 0x3F3F3F, 0xBFBFBF, 0xFFFFFF, 0x000000, 0x3F3F3F, 0xBFBFBF, 0xFFFFFF])
        let vertical = FrameBuffer(pixelFormat: .bgr888, size: .init(width: 1, height: 2), stride: 3,
                                   bytes: [0, 0, 0, 200, 100, 0])
        let v = try render(vertical, to: .init(width: 2, height: 4), .bilinear)
        let column: [UInt32] = [0x000000, Pixel.rgb(50, 25, 0), Pixel.rgb(150, 75, 0), Pixel.rgb(200, 100, 0)]
        #expect(v.pixels == column.flatMap { [$0, $0] })
    }

    @Test func letterboxCentresAndBarsAreBlack() throws {
        #expect(Letterbox.fit(source: .init(width: 1280, height: 720), in: .init(width: 320, height: 240))
            == PixelRect(x: 0, y: 30, width: 320, height: 180))
        #expect(Letterbox.fit(source: .init(width: 640, height: 480), in: .init(width: 1920, height: 1080))
            == PixelRect(x: 240, y: 0, width: 1440, height: 1080))
        let frame = FrameBuffer(pixelFormat: .bgr888, size: .init(width: 2, height: 1), stride: 6,
                                bytes: [255, 255, 255, 255, 255, 255])
        let c = try render(frame, to: .init(width: 2, height: 3))
        #expect(c.pixels == [0, 0, 0xFFFFFF, 0xFFFFFF, 0, 0])
    }

    @Test func unsupportedAndShortFramesThrow() {
        let packed = FrameBuffer(pixelFormat: PixelFormat("SRGGB12_CSI2P"), size: .init(width: 2, height: 2),
                                 stride: 3, bytes: [UInt8](repeating: 0, count: 6))
        #expect(throws: ViewfinderError.unsupportedPixelFormat(PixelFormat("SRGGB12_CSI2P"))) {
            try render(packed, to: .init(width: 2, height: 2))
        }
        let short = FrameBuffer(pixelFormat: .bgr888, size: .init(width: 4, height: 4), stride: 12, bytes: [0, 1])
        #expect(throws: ViewfinderError.bufferTooShort(format: .bgr888, size: .init(width: 4, height: 4),
                                                       needed: 48, have: 2)) {
            try render(short, to: .init(width: 2, height: 2))
        }
    }
}
