import Foundation
import Hardware
import Testing
@testable import Media

@Suite struct DNGWriterTests {
    @Test func exiftoolReadsDimensionsExposureISOAndDNGTags() throws {
        let frame = makeRawFrame(width: 64, height: 48, paddingBytes: 16)
        let description = DNGDescription(exif: testExif(size: frame.size), blackLevel: 256)
        let bytes = try DNGWriter.encode(frame, description: description)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/test.dng"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let tags = try exiftoolJSON(file)
        #expect(tags["EXIF:ImageWidth"] as? Int == 64)
        #expect(tags["EXIF:ImageHeight"] as? Int == 48)
        // libtiff stores EXIF rationals through a float: equal to ~7 significant digits.
        #expect(isClose(tags["EXIF:ExposureTime"], 0.01))
        #expect(tags["EXIF:ISO"] as? Int == 400)
        #expect(isClose(tags["EXIF:FNumber"], 1.8))
        #expect(isClose(tags["EXIF:FocalLength"], 4.74))
        #expect(isClose(tags["EXIF:SubjectDistance"], 0.4))
        #expect(tags["EXIF:DateTimeOriginal"] as? String == "2026:09:21 14:13:20")
        #expect(tags["EXIF:Make"] as? String == "Raspberry Pi")
        #expect(tags["EXIF:Model"] as? String == "Camera Module 3 (imx708)")
        #expect(tags["EXIF:UniqueCameraModel"] as? String == "Raspberry Pi imx708")
        #expect(tags["EXIF:DNGVersion"] as? String == "1 4 0 0")
        #expect(tags["EXIF:CFAPattern2"] as? String == "0 1 1 2")
        #expect(tags["EXIF:BlackLevel"] as? Double == 256)
        #expect(tags["EXIF:WhiteLevel"] as? Int == 4095)
        #expect(tags["EXIF:CalibrationIlluminant1"] as? Int == 21)
        #expect((tags["EXIF:UserComment"] as? String)?.contains("LensPosition 2.500 dioptres") == true)
        let neutral = (tags["EXIF:AsShotNeutral"] as? String)?.split(separator: " ").compactMap { Double($0) } ?? []
        #expect(neutral.count == 3 && abs(neutral[0] - 0.5) < 1e-6 && abs(neutral[2] - 0.625) < 1e-6)
        let matrix = (tags["EXIF:ColorMatrix1"] as? String)?.split(separator: " ").compactMap { Double($0) } ?? []
        #expect(matrix.count == 9 && abs(matrix[0] - 3.2406) < 1e-3)
    }

    @Test func dcrawDecodesToTheExpectedSizeAndTheRawSamplesSurvive() throws {
        let frame = makeRawFrame(width: 64, height: 48, format: .sbggr10, bits: 10)
        let bytes = try DNGWriter.encode(frame, description: DNGDescription(exif: testExif(size: frame.size), blackLevel: 64))
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/frame.dng"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        // Full decode (demosaic) to a 16-bit PPM on stdout.
        let decoded = try runTool("dcraw", ["-c", "-4", "-w", file])
        #expect(decoded.status == 0, "dcraw: \(decoded.stderr)")
        let full = ppmHeader(decoded.stdout)
        #expect(full?.0 == "P6" && full?.1 == 64 && full?.2 == 48)
        // Document mode (-D): the undemosaiced samples, which must be ours, unscaled.
        let raw = try runTool("dcraw", ["-c", "-4", "-D", file])
        let header = ppmHeader(raw.stdout)
        #expect(header?.0 == "P5" && header?.1 == 64 && header?.2 == 48)
        let pixels = [UInt8](raw.stdout.suffix(64 * 48 * 2))
        let original = frame.bytes
        try #require(pixels.count == 64 * 48 * 2)
        var mismatches = 0
        for i in 0..<(64 * 48) where UInt16(pixels[2 * i]) << 8 | UInt16(pixels[2 * i + 1]) != UInt16(original[2 * i + 1]) << 8 | UInt16(original[2 * i]) {
            mismatches += 1
        }
        #expect(mismatches == 0)
        let info = try runTool("tiffinfo", [file])
        let text = String(decoding: info.stdout, as: UTF8.self)
        #expect(text.contains("Image Width: 64 Image Length: 48"))
        #expect(text.contains("Bits/Sample: 16"))
    }

    /// Streamed into a stream that takes its writes in small pieces and seeks (libtiff fills in
    /// offsets afterwards), a DNG is byte for byte the one built in memory, and the SHA-256 the
    /// writer took as the bytes went out is the file's: padded rows, back-to-back rows, both
    /// compressions.
    @Test(arguments: [(DNGCompression.lossless, 0), (.none, 0), (.none, 16), (.lossless, 16)])
    func aStreamedDNGIsTheFileBuiltInMemoryAndItsChecksumIsTheFiles(compression: DNGCompression, padding: Int) throws {
        let frame = makeRawFrame(width: 600, height: 410, paddingBytes: padding)
        let description = DNGDescription(exif: testExif(size: frame.size), blackLevel: 256)
        let stream = ChoppyStream()
        let file = try DNGWriter.write(frame, description: description, compression: compression, to: stream, sha256: true)
        #expect(stream.seeks > 0, "libtiff seeks back: the hash cannot just follow the writes")
        #expect(file.byteCount == stream.inner.bytes.count)
        #expect(file.sha256 == (try SHA256.hexDigest(stream.inner.bytes)))
        #expect(stream.inner.bytes == (try DNGWriter.encode(frame, description: description, compression: compression)))
        #expect(try DNGWriter.write(frame, description: description, compression: compression, to: MemoryStorageStream()).sha256 == nil)
    }

    @Test func refusesNonBayerAndPackedFormats() throws {
        let rgb = makeRGBFrame()
        #expect(throws: MediaError.self) { try DNGWriter.encode(rgb, description: DNGDescription(exif: testExif(size: rgb.size), blackLevel: 0)) }
        let packed = FrameBuffer(pixelFormat: PixelFormat("SRGGB10_CSI2P"), size: PixelSize(width: 8, height: 8), stride: 10, bytes: [UInt8](repeating: 0, count: 80))
        do {
            _ = try DNGWriter.encode(packed, description: DNGDescription(exif: testExif(size: packed.size), blackLevel: 0))
            Issue.record("packed format accepted")
        } catch let error as MediaError {
            #expect(error.kind == .notYet)
        }
        let short = FrameBuffer(pixelFormat: .srggb12, size: PixelSize(width: 8, height: 8), stride: 16, bytes: [UInt8](repeating: 0, count: 100))
        #expect(throws: MediaError.self) { try DNGWriter.encode(short, description: DNGDescription(exif: testExif(size: short.size), blackLevel: 0)) }
    }
}

/// A stream into memory that counts seeks and copies each write in pieces of at most 1000 bytes.
private final class ChoppyStream: StorageStream {
    let inner = MemoryStorageStream()
    private(set) var seeks = 0
    var offset: Int64 { inner.offset }
    var size: Int64 { inner.size }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = min(1000, bytes.count - done)
            try inner.write(UnsafeRawBufferPointer(rebasing: bytes[done..<(done + n)]))
            done += n
        }
    }
    func seek(to offset: Int64) throws { seeks += 1; try inner.seek(to: offset) }
    func sync() throws {}
    func close() throws {}
}

/// The magic and size of a binary PNM ("P5"/"P6").
func ppmHeader(_ data: Data) -> (String, Int, Int)? {
    let head = String(decoding: data.prefix(64), as: UTF8.self)
    let fields = head.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(3).map(String.init)
    guard fields.count == 3, let w = Int(fields[1]), let h = Int(fields[2]) else { return nil }
    return (fields[0], w, h)
}

/// True when an exiftool number is within 1e-6 (relative) of `expected`.
func isClose(_ value: Any?, _ expected: Double) -> Bool {
    guard let v = (value as? Double) ?? (value as? Int).map(Double.init) else { return false }
    return abs(v - expected) <= 1e-6 * max(abs(expected), 1)
}
