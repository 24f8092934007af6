import Foundation
import Testing
import TestSupport
import Viewfinder

@Suite struct PNGTests {
    @Test func pngRoundTripsACanvas() throws {
        var canvas = Canvas(size: .init(width: 37, height: 11))
        for i in canvas.pixels.indices { canvas.pixels[i] = UInt32(i &* 2_654_435_761 & 0xFFFFFF) }
        canvas.fill(.init(x: 3, y: 2, width: 20, height: 5), color: 0x123456)
        #expect(try PNG.decode(PNG.encode(canvas)) == canvas)
    }

    @Test func corruptedPNGIsRejectedWithLibpngsMessage() throws {
        var bytes = try PNG.encode(Canvas(size: .init(width: 4, height: 4), fill: 0xFFFFFF))
        bytes[20] ^= 0xFF  // inside IHDR: its CRC no longer matches
        let error = #expect(throws: PNG.Error.self) { try PNG.decode(bytes) }
        #expect(error?.description.contains("png_image_begin_read_from_memory failed: ") == true, "\(String(describing: error))")
        #expect(throws: PNG.Error.self) { try PNG.decode(Array(bytes.prefix(30))) }
    }

    /// A noisy gradient (thousands of colours, so no palette), as netpbm's P6 and as the canvas.
    static func noisyGradient(width: Int, height: Int) -> (ppm: [UInt8], canvas: Canvas) {
        var canvas = Canvas(size: .init(width: width, height: height))
        var ppm = Array("P6 \(width) \(height) 255\n".utf8)
        var state: UInt32 = 77
        for i in canvas.pixels.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            let r = UInt8(i % width * 255 / width), g = UInt8(truncatingIfNeeded: state >> 24), b = UInt8(i / width * 255 / height)
            ppm += [r, g, b]
            canvas.pixels[i] = Pixel.rgb(r, g, b)
        }
        return (ppm, canvas)
    }

    /// PNGs as netpbm's pnmtopng writes them (with zlib's dynamic-Huffman deflate): full-colour,
    /// Adam7-interlaced, at maximum compression, and a palette image; all read back exactly.
    @Test(arguments: [[], ["-interlace"], ["-compression", "9"]])
    func readsFullColourPNGsWrittenByPnmtopng(options: [String]) throws {
        let (ppm, expected) = Self.noisyGradient(width: 61, height: 37)
        let png = try pnmtopng(ppm, options: options)
        #expect(png[25] == 2, "colour type \(png[25]) (2 = truecolour)")  // IHDR colour type
        #expect(try PNG.decode(png) == expected)
    }

    @Test func readsAPalettePNGWrittenByPnmtopng() throws {
        let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (250, 250, 10)]
        var expected = Canvas(size: .init(width: 9, height: 5))
        var ppm = Array("P6 9 5 255\n".utf8)
        for i in expected.pixels.indices {
            let c = colours[(i * 7 / 3) % colours.count]
            ppm += [c.0, c.1, c.2]
            expected.pixels[i] = Pixel.rgb(c.0, c.1, c.2)
        }
        let png = try pnmtopng(ppm, options: [])
        #expect(png[25] == 3, "colour type \(png[25]) (3 = palette)")
        #expect(try PNG.decode(png) == expected)
    }

    @Test func readsAGreyPNGWrittenByPnmtopng() throws {
        var expected = Canvas(size: .init(width: 256, height: 2))
        var pgm = Array("P5 256 2 255\n".utf8)
        for i in expected.pixels.indices {
            let v = UInt8(i % 256)
            pgm.append(v)
            expected.pixels[i] = Pixel.rgb(v, v, v)
        }
        let png = try pnmtopng(pgm, options: [])
        #expect(png[25] == 0, "colour type \(png[25]) (0 = grey)")
        #expect(try PNG.decode(png) == expected)
    }

    /// Runs `pnmtopng OPTIONS FILE` (netpbm, installed by tools/setup) and returns its output.
    func pnmtopng(_ pnm: [UInt8], options: [String]) throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("png-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.pnm")
        try Data(pnm).write(to: input)
        let bytes = try runTool("/usr/bin/pnmtopng", options + [input.path])
        guard bytes.count > 26 else { throw PNG.Error(description: "pnmtopng \(options) wrote no PNG") }
        return Array(bytes)
    }
}
