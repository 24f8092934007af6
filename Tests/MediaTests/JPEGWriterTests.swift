import Foundation
import Hardware
import Testing
@testable import Media

@Suite struct JPEGWriterTests {
    @Test(arguments: [PixelFormat.bgr888, .rgb888])
    func exiftoolReadsEXIFAndDjpegDecodesTheColours(format: PixelFormat) throws {
        let frame = makeRGBFrame(width: 64, height: 48, format: format)
        let bytes = try JPEGWriter.encode(frame, exif: testExif(size: frame.size, exposureMicroseconds: 1_250, gain: 2.5, lens: 0), quality: 95)
        #expect(Array(bytes.prefix(4)) == [0xFF, 0xD8, 0xFF, 0xE1])  // SOI, then APP1 (EXIF) first
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/frame.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let tags = try exiftoolJSON(file)
        #expect(tags["File:ImageWidth"] as? Int == 64)
        #expect(tags["File:ImageHeight"] as? Int == 48)
        #expect(tags["EXIF:ExifImageWidth"] as? Int == 64)
        #expect(tags["EXIF:ExifImageHeight"] as? Int == 48)
        #expect(isClose(tags["EXIF:ExposureTime"], 0.00125))
        #expect(tags["EXIF:ISO"] as? Int == 250)
        #expect(isClose(tags["EXIF:FNumber"], 1.8))
        #expect(isClose(tags["EXIF:FocalLength"], 4.74))
        #expect(tags["EXIF:Make"] as? String == "Raspberry Pi")
        #expect(tags["EXIF:Model"] as? String == "Camera Module 3 (imx708)")
        #expect(tags["EXIF:DateTimeOriginal"] as? String == "2026:09:21 14:13:20")
        // Lens at 0 dioptres is focused at infinity: EXIF's 0xFFFFFFFF/1.
        #expect(isClose(tags["EXIF:SubjectDistance"], 4_294_967_295))
        #expect((tags["EXIF:ImageDescription"] as? String)?.contains("LensPosition 0.000 dioptres (infinity)") == true)
        #expect((tags["EXIF:UserComment"] as? String)?.contains("LensPosition 0.000 dioptres") == true)
        let warnings = try runTool("exiftool", ["-validate", "-warning", "-a", "-s", file])
        #expect(!String(decoding: warnings.stdout, as: UTF8.self).contains("Warning"), "\(String(decoding: warnings.stdout, as: UTF8.self))")

        // Decode with djpeg: the top-right pixel is red-ish, the bottom-left green-ish, whatever the input order.
        let decoded = try runTool("djpeg", ["-pnm", file])
        #expect(decoded.status == 0, "djpeg: \(decoded.stderr)")
        let header = ppmHeader(decoded.stdout)
        #expect(header?.0 == "P6" && header?.1 == 64 && header?.2 == 48)
        let pixels = [UInt8](decoded.stdout.suffix(64 * 48 * 3))
        try #require(pixels.count == 64 * 48 * 3)
        let topRight = Array(pixels[(63 * 3)..<(63 * 3 + 3)])
        let bottomLeft = Array(pixels[(47 * 64 * 3)..<(47 * 64 * 3 + 3)])
        #expect(topRight[0] > 200 && topRight[1] < 40, "top right \(topRight)")
        #expect(bottomLeft[0] < 40 && bottomLeft[1] > 200, "bottom left \(bottomLeft)")
    }

    /// Tripod's JPEG is libjpeg-turbo's own: from the first DQT on (tables, frame, scan) it is the
    /// same bytes as `cjpeg -quality Q` writes for the same pixels, both when it fits the room
    /// `compress` gives it in the returned array and when libjpeg outgrows that (q100 noise).
    @Test(arguments: [(92, false), (100, true)])
    func sameBytesAsCjpegWhetherItFitsOrOutgrowsItsRoom(quality: Int, noise: Bool) throws {
        let width = 512, height = 384
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 0x9E37_79B9
        for i in pixels.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            pixels[i] = noise ? UInt8(truncatingIfNeeded: state >> 24) : UInt8(truncatingIfNeeded: (i / 3 % width) / 2 + Int(state >> 29))
        }
        let frame = FrameBuffer(pixelFormat: .bgr888, size: PixelSize(width: width, height: height), stride: width * 3, bytes: pixels)
        let ours = try JPEGWriter.encode(frame, quality: quality)
        // The room in the array is 1 byte per pixel + 64 KiB: q100 noise must go past it.
        #expect((ours.count > width * height + 65_536) == noise, "\(ours.count) bytes")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(Array("P6\n\(width) \(height)\n255\n".utf8) + pixels).write(to: URL(fileURLWithPath: dir + "/frame.ppm"))
        let reference = try runTool("cjpeg", ["-quality", "\(quality)", "-outfile", dir + "/cjpeg.jpg", dir + "/frame.ppm"])
        #expect(reference.status == 0, "cjpeg: \(reference.stderr)")
        let theirs = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/cjpeg.jpg")))
        func fromDQT(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
            let at = (0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDB } ?? bytes.count
            return bytes[at...]
        }
        #expect(!fromDQT(ours).isEmpty)
        #expect(fromDQT(ours) == fromDQT(theirs), "ours \(ours.count) B, cjpeg \(theirs.count) B")
    }

    @Test func refusesYUVAndShortBuffers() throws {
        let yuv = FrameBuffer(pixelFormat: .yuv420, size: PixelSize(width: 16, height: 16), stride: 16, bytes: [UInt8](repeating: 0, count: 384))
        do {
            _ = try JPEGWriter.encode(yuv, exif: testExif(size: yuv.size))
            Issue.record("YUV420 accepted")
        } catch let error as MediaError {
            #expect(error.kind == .notYet)
        }
        let short = FrameBuffer(pixelFormat: .bgr888, size: PixelSize(width: 16, height: 16), stride: 48, bytes: [UInt8](repeating: 0, count: 100))
        #expect(throws: MediaError.self) { try JPEGWriter.encode(short, exif: testExif(size: short.size)) }
    }

    @Test func libjpegErrorsComeBackAsThrownErrorsNotExits() throws {
        // libjpeg itself refuses widths over 65500 (JERR_IMAGE_TOO_BIG): its error_exit must
        // longjmp back into the shim and come out as a thrown error with libjpeg's message.
        let wide = FrameBuffer(pixelFormat: .bgr888, size: PixelSize(width: 70_000, height: 1), stride: 210_000,
                               bytes: [UInt8](repeating: 0, count: 210_000))
        do {
            _ = try JPEGWriter.encode(wide, exif: testExif(size: wide.size))
            Issue.record("libjpeg accepted a 70000-pixel-wide image")
        } catch let error as MediaError {
            #expect(error.kind == .encoding)
            #expect(error.message.contains("65500"), "\(error.message)")
        }
    }
}
