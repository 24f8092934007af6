import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Media

/// A Bayer frame of `bits`-bit samples: `pattern` chooses the content.
enum SamplePattern: String, CustomTestStringConvertible, Sendable {
    /// A ramp with noise over the whole range, with jumps between neighbours (hard for the predictor).
    case noisy
    /// Every sample 0.
    case black
    /// Every sample at the white level.
    case white
    /// Full-scale alternation: 0 next to the white level, the largest differences there are.
    case extremes

    var testDescription: String { rawValue }
}

func makePatternFrame(width: Int, height: Int, bits: Int, pattern: SamplePattern, seed: UInt32 = 7) -> FrameBuffer {
    let format = PixelFormat(bits == 8 ? "SRGGB8" : "SRGGB\(bits)")
    let bytesPerSample = bits > 8 ? 2 : 1
    let white = (1 << bits) - 1
    var bytes = [UInt8](repeating: 0, count: width * height * bytesPerSample)
    var state = seed
    for y in 0..<height {
        for x in 0..<width {
            state = state &* 1_664_525 &+ 1_013_904_223
            let v: Int
            switch pattern {
            case .black: v = 0
            case .white: v = white
            case .extremes: v = ((x / 2 + y) & 1 == 0) != (state >> 31 == 1) ? 0 : white
            case .noisy: v = min(white, (x * white / max(width, 1) + Int(state >> 16) % max(white / 8, 1)) % (white + 1))
            }
            let i = (y * width + x) * bytesPerSample
            bytes[i] = UInt8(v & 0xFF)
            if bytesPerSample == 2 { bytes[i + 1] = UInt8(v >> 8) }
        }
    }
    return FrameBuffer(pixelFormat: format, size: PixelSize(width: width, height: height), stride: width * bytesPerSample, bytes: bytes)
}

/// The frame's samples, row by row.
func samples(of frame: FrameBuffer) -> [UInt16] {
    let bytesPerSample = frame.pixelFormat.rawValue.hasSuffix("8") ? 1 : 2
    return frame.withUnsafeBytes { b in
        (0..<frame.size.height).flatMap { y in
            (0..<frame.size.width).map { x in
                let i = y * frame.stride + x * bytesPerSample
                return bytesPerSample == 2 ? UInt16(b[i]) | UInt16(b[i + 1]) << 8 : UInt16(b[i])
            }
        }
    }
}

func writeTemporary(_ bytes: [UInt8], name: String, in directory: String) throws -> String {
    let path = directory + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

/// The raw samples as LibRaw (rawpy, `raw_image_visible`) decodes them, row by row.
func rawpySamples(_ file: String) throws -> (width: Int, height: Int, samples: [UInt16]) {
    let script = """
    import rawpy, sys
    with rawpy.imread(sys.argv[1]) as r:
        a = r.raw_image_visible
        sys.stdout.write(f"{a.shape[1]} {a.shape[0]}\\n"); sys.stdout.flush()
        sys.stdout.buffer.write(a.astype('<u2').tobytes())
    """
    let result = try runExecutable(try testPython(), ["-c", script, file])
    guard result.status == 0, let newline = result.stdout.firstIndex(of: 0x0A) else {
        throw ToolError(description: "rawpy failed on \(file): \(result.stderr)")
    }
    let size = String(decoding: result.stdout[..<newline], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
    let body = [UInt8](result.stdout[(newline + 1)...])
    let values = stride(from: 0, to: body.count - 1, by: 2).map { UInt16(body[$0]) | UInt16(body[$0 + 1]) << 8 }
    return (size.first ?? 0, size.last ?? 0, values)
}

/// The raw samples as dcraw decodes them (`-D -4 -c`: document mode, 16-bit PGM, unscaled).
func dcrawSamples(_ file: String) throws -> (width: Int, height: Int, samples: [UInt16], stderr: String) {
    let result = try runTool("dcraw", ["-c", "-4", "-D", file])
    guard result.status == 0, let header = ppmHeader(result.stdout) else {
        throw ToolError(description: "dcraw failed on \(file): \(result.stderr)")
    }
    let body = [UInt8](result.stdout.suffix(header.1 * header.2 * 2))
    let values = stride(from: 0, to: body.count - 1, by: 2).map { UInt16(body[$0]) << 8 | UInt16(body[$0 + 1]) }
    return (header.1, header.2, values, result.stderr)
}

/// The test venv's python (tools/setup makes it); a missing venv is a clear failure.
func testPython() throws -> String {
    let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
    let python = cache + "/tripod/pyenv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        throw ToolError(description: "\(python) is missing: run tools/setup (it installs rawpy into that venv)")
    }
    return python
}

struct FrameCase: CustomTestStringConvertible, Sendable {
    var width: Int, height: Int, bits: Int, pattern: SamplePattern
    var testDescription: String { "\(width)x\(height) \(bits)-bit \(pattern)" }
}

@Suite struct LosslessDNGTests {
    static let cases: [FrameCase] = [
        FrameCase(width: 64, height: 48, bits: 12, pattern: .noisy),        // one tile smaller than 256
        FrameCase(width: 600, height: 300, bits: 10, pattern: .noisy),      // edge tiles padded right and below
        FrameCase(width: 301, height: 257, bits: 14, pattern: .noisy),      // odd width, one row into a second tile row
        FrameCase(width: 768, height: 256, bits: 16, pattern: .noisy),      // whole tiles, 16-bit
        FrameCase(width: 512, height: 64, bits: 12, pattern: .noisy),       // 2 tiles of 256 would trip LibRaw: 240 wide
        FrameCase(width: 260, height: 24, bits: 16, pattern: .extremes),    // differences of ±65535 (modulo 2^16)
        FrameCase(width: 130, height: 66, bits: 12, pattern: .extremes),
        FrameCase(width: 200, height: 100, bits: 12, pattern: .black),
        FrameCase(width: 200, height: 100, bits: 12, pattern: .white),
        FrameCase(width: 200, height: 100, bits: 16, pattern: .white),
        FrameCase(width: 96, height: 40, bits: 8, pattern: .noisy),
    ]

    @Test(arguments: cases)
    func libRawAndDcrawDecodeTheSamplesUnchanged(_ c: FrameCase) throws {
        let frame = makePatternFrame(width: c.width, height: c.height, bits: c.bits, pattern: c.pattern)
        let bytes = try DNGWriter.encode(frame, description: DNGDescription(exif: testExif(size: frame.size), blackLevel: 0),
                                         compression: .lossless)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try writeTemporary(bytes, name: "lossless.dng", in: directory)
        let expected = samples(of: frame)

        let libraw = try rawpySamples(file)
        #expect(libraw.width == c.width && libraw.height == c.height)
        #expect(libraw.samples.count == expected.count && mismatches(libraw.samples, expected) == nil,
                "LibRaw: \(String(describing: mismatches(libraw.samples, expected)))")

        let dcraw = try dcrawSamples(file)
        #expect(dcraw.width == c.width && dcraw.height == c.height)
        #expect(dcraw.samples.count == expected.count && mismatches(dcraw.samples, expected) == nil,
                "dcraw: \(String(describing: mismatches(dcraw.samples, expected))); \(dcraw.stderr)")

        let tags = try exiftoolJSON(file)
        #expect(tags["EXIF:Compression"] as? Int == 7)
        #expect(tags["EXIF:WhiteLevel"] as? Int == (1 << c.bits) - 1)
        #expect(tags["EXIF:TileWidth"] as? Int == (c.width == 512 ? 240 : min(256, c.width / 16 * 16)))
    }

    /// darktable-cli has no way to export the raw samples as they are (its pipeline always runs
    /// rawprepare, white balance, highlights, demosaic …), so rawspeed's decode is checked through
    /// the developed image: the lossless DNG must develop to exactly the bytes the uncompressed one
    /// does, and a frame with one sample changed must not (the comparison can see one sample).
    @Test(arguments: [FrameCase(width: 600, height: 300, bits: 12, pattern: .noisy),
                      FrameCase(width: 301, height: 257, bits: 16, pattern: .noisy)])
    func darktableDevelopsTheLosslessDNGExactlyAsTheUncompressedOne(_ c: FrameCase) throws {
        let frame = makePatternFrame(width: c.width, height: c.height, bits: c.bits, pattern: c.pattern)
        var changed = frame.bytes
        let at = 2 * (c.height / 2 * c.width + c.width / 2)
        changed[at + 1] ^= UInt8(1 << (c.bits - 10))  // ±256 (12-bit) or ±4096 (16-bit) in one mid-frame sample
        let altered = FrameBuffer(pixelFormat: frame.pixelFormat, size: frame.size, stride: frame.stride, bytes: changed)
        let description = DNGDescription(exif: testExif(size: frame.size), blackLevel: 256)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func develop(_ bytes: [UInt8], _ name: String) throws -> Data {
            let file = try writeTemporary(bytes, name: name + ".dng", in: directory)
            let configuration = directory + "/darktable-" + name  // one per run: darktable locks its library
            try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
            let result = try runTool("darktable-cli", [file, directory + "/" + name + ".pfm", "--core", "--configdir", configuration,
                                                       "--library", ":memory:", "--disable-opencl", "-d", "imageio"])
            let log = String(decoding: result.stdout, as: UTF8.self) + result.stderr
            #expect(result.status == 0, "darktable-cli \(name): \(log)")
            #expect(log.contains("rawprepare") && log.contains("demosaic"), "\(name) was not developed as a raw: \(log)")
            return try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name + ".pfm"))
        }
        let lossless = try develop(try DNGWriter.encode(frame, description: description, compression: .lossless), "lossless")
        let none = try develop(try DNGWriter.encode(frame, description: description, compression: .none), "none")
        let other = try develop(try DNGWriter.encode(altered, description: description, compression: .lossless), "altered")
        #expect(String(decoding: lossless.prefix(20), as: UTF8.self).hasPrefix("PF\n\(c.width) \(c.height)\n"))
        #expect(lossless.count > c.width * c.height * 12)
        #expect(lossless == none, "the lossless DNG develops differently from the uncompressed one")
        #expect(other != lossless, "one changed sample did not change the developed image: the comparison cannot fail")
    }

    @Test func theJPEGFramesAreLosslessProcess14WithTheTilesGeometryAndTheBitDepth() throws {
        for bits in [10, 12, 14, 16] {
            let frame = makePatternFrame(width: 600, height: 300, bits: bits, pattern: .noisy)
            let tiles = try DNGWriter.losslessTiles(frame, layout: try BayerLayout(frame.pixelFormat), tileWidth: 256, tileLength: 256)
            #expect(tiles.count == 3 * 2)
            for tile in tiles {
                // SOI, then the SOF3 segment: P, Y, X, Nf; the SOS's predictor (Ss) is 1.
                #expect(tile.prefix(2) == [0xFF, 0xD8] && tile.suffix(2) == [0xFF, 0xD9])
                let sof = try #require(segment(0xC3, in: tile))
                #expect(Int(sof[0]) == bits)
                #expect(Int(sof[1]) << 8 | Int(sof[2]) == 256 && Int(sof[3]) << 8 | Int(sof[4]) == 128 && sof[5] == 2)
                let sos = try #require(segment(0xDA, in: tile))
                #expect(sos[0] == 2 && sos[5] == 1 && sos[6] == 0 && sos[7] == 0)
            }
        }
    }

    @Test func huffmanTablesAreLimitedTo16BitsAndLeaveNoAllOnesCode() throws {
        // Fibonacci frequencies give optimal codes of up to 17 bits: Annex K.3 must shorten them.
        var fibonacci = [1, 1]
        while fibonacci.count < LosslessJPEG.categoryCount { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        for frequencies in [fibonacci, [Int](repeating: 5, count: 17), [1000] + [Int](repeating: 0, count: 16), [0, 0, 3, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1]] {
            let table = LosslessJPEG.HuffmanTable(frequencies: frequencies)
            let used = frequencies.indices.filter { frequencies[$0] > 0 }
            #expect(Set(table.values) == Set(used))
            #expect(table.bits.reduce(0, +) == used.count)
            var kraft = 0.0
            for symbol in used {
                let length = table.lengths[symbol]
                #expect(length >= 1 && length <= 16)
                kraft += pow(2, -Double(length))
                #expect(table.codes[symbol] != (1 << UInt32(length)) - 1, "all-ones code for \(symbol)")
                for other in used where other != symbol && table.lengths[other] >= length {
                    #expect(table.codes[other] >> UInt32(table.lengths[other] - length) != table.codes[symbol], "\(symbol) is a prefix of \(other)")
                }
            }
            #expect(kraft < 1)
            // Frequent symbols never get longer codes than rarer ones.
            for a in used { for b in used where frequencies[a] > frequencies[b] { #expect(table.lengths[a] <= table.lengths[b]) } }
        }
    }

    @Test func exiftoolValidatesBothCompressionsWithoutWarnings() throws {
        let frame = makePatternFrame(width: 600, height: 300, bits: 12, pattern: .noisy)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for compression in DNGCompression.allCases {
            let bytes = try DNGWriter.encode(frame, description: DNGDescription(exif: testExif(size: frame.size), blackLevel: 256),
                                             compression: compression)
            let file = try writeTemporary(bytes, name: "\(compression).dng", in: directory)
            let result = try runTool("exiftool", ["-validate", "-warning", "-a", "-s", file])
            let text = String(decoding: result.stdout, as: UTF8.self)
            #expect(result.status == 0)
            #expect(text.contains("Validate") && text.contains(": OK"), "\(compression): \(text)")
            #expect(!text.contains("Warning"), "\(compression): \(text)")
        }
    }

    @Test func eachDNGCarriesAPreviewJPEGThatExiftoolExtracts() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (size, expected) in [(PixelSize(width: 4608, height: 2592), PixelSize(width: 768, height: 432)),
                                 (PixelSize(width: 600, height: 300), PixelSize(width: 300, height: 150))] {
            let frame = makePatternFrame(width: size.width, height: size.height, bits: 12, pattern: .noisy)
            for compression in DNGCompression.allCases {
                let bytes = try DNGWriter.encode(frame, description: DNGDescription(exif: testExif(size: frame.size), blackLevel: 256),
                                                 compression: compression)
                let file = try writeTemporary(bytes, name: "preview.dng", in: directory)
                let extracted = try runTool("exiftool", ["-b", "-PreviewImage", file])
                #expect(extracted.status == 0 && extracted.stdout.count > 100, "\(compression): \(extracted.stderr)")
                let jpeg = try writeTemporary([UInt8](extracted.stdout), name: "preview.jpg", in: directory)
                let decoded = try runTool("djpeg", ["-pnm", jpeg])
                #expect(decoded.status == 0, "djpeg: \(decoded.stderr)")
                let header = ppmHeader(decoded.stdout)
                #expect(header?.0 == "P6" && header?.1 == expected.width && header?.2 == expected.height,
                        "\(size) \(compression): preview \(String(describing: header))")
                let tags = try exiftoolJSON(file)
                #expect(tags["EXIF:PreviewColorSpace"] as? Int == 2)
            }
        }
    }

    @Test func thePreviewShowsTheFrameWhiteBalanced() throws {
        // A grey scene as the sensor sees it (red and blue at 1/gain of green): neutral in the preview.
        let size = PixelSize(width: 64, height: 32)
        var bytes = [UInt8](repeating: 0, count: size.area * 2)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let v = (y & 1, x & 1) == (0, 0) ? 256 + 1000 / 2 : (y & 1, x & 1) == (1, 1) ? 256 + Int(1000 / 1.6) : 256 + 1000
                bytes[(y * size.width + x) * 2] = UInt8(v & 0xFF); bytes[(y * size.width + x) * 2 + 1] = UInt8(v >> 8)
            }
        }
        let frame = FrameBuffer(pixelFormat: .srggb12, size: size, stride: size.width * 2, bytes: bytes)
        let preview = try DNGPreview.render(frame, layout: try BayerLayout(frame.pixelFormat),
                                            description: DNGDescription(exif: testExif(size: size), blackLevel: 256))
        #expect(preview.size == PixelSize(width: 32, height: 16))
        let rgb = Array(preview.bytes.prefix(3)).map(Int.init)
        // 1000 / 3839 linear is sRGB 139.5.
        #expect(rgb.allSatisfy { abs(Double($0) - 139.5) <= 1 }, "\(rgb)")
    }

    @Test func aSampleAboveTheWhiteLevelIsRefusedNotWrapped() throws {
        var frame = makePatternFrame(width: 300, height: 20, bits: 10, pattern: .noisy)
        var bytes = frame.bytes
        bytes[2 * (10 * 300 + 290) + 1] = 0x04  // 1024 and more in a 10-bit frame, in the second tile
        frame = FrameBuffer(pixelFormat: frame.pixelFormat, size: frame.size, stride: frame.stride, bytes: bytes)
        do {
            _ = try DNGWriter.encode(frame, description: DNGDescription(exif: testExif(size: frame.size), blackLevel: 0))
            Issue.record("a sample above the white level was written")
        } catch let error as MediaError {
            #expect(error.kind == .invalidFrame && error.message.contains("tile 1") && error.message.contains("white level 1023"), "\(error.message)")
        }
        // Uncompressed DNGs keep the samples as they came.
        _ = try DNGWriter.encode(frame, description: DNGDescription(exif: testExif(size: frame.size), blackLevel: 0), compression: .none)
    }

    @Test func aSmoothFrameCompressesAndTheUncompressedDNGHoldsEverySample() throws {
        let frame = makeRawFrame(width: 1024, height: 512)
        let description = DNGDescription(exif: testExif(size: frame.size), blackLevel: 256)
        let lossless = try DNGWriter.encode(frame, description: description)
        let none = try DNGWriter.encode(frame, description: description, compression: .none)
        #expect(lossless.count < none.count / 2, "\(lossless.count) vs \(none.count)")
        #expect(none.count > frame.size.area * 2)
    }
}

/// How many samples differ and the first one that does (index, decoded, expected); nil when none.
func mismatches(_ decoded: [UInt16], _ expected: [UInt16]) -> (count: Int, first: (Int, UInt16, UInt16))? {
    let differing = zip(decoded, expected).enumerated().filter { $0.element.0 != $0.element.1 }
    guard let first = differing.first else { return nil }
    return (differing.count, (first.offset, first.element.0, first.element.1))
}

/// The payload of the first marker segment `marker` (after FF marker and its length).
private func segment(_ marker: UInt8, in jpeg: [UInt8]) -> [UInt8]? {
    var i = 2
    while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
        let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
        if jpeg[i + 1] == marker { return Array(jpeg[(i + 4)..<min(jpeg.count, i + 2 + length)]) }
        if jpeg[i + 1] == 0xDA { return nil }
        i += 2 + length
    }
    return nil
}


@Suite struct LosslessCaptureStoreTests {
    private static let utc = TimeZone(identifier: "UTC") ?? .current

    private func begin(_ store: CaptureStore, frames: Int, compression: DNGCompression? = nil, size: PixelSize) throws -> BracketRecorder {
        let outputs = BracketOutputs(rawSize: size, rgbSize: nil)
        let plan = BracketPlanRecord(kind: "manual", summary: "test", frameCount: frames)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        if let compression {
            return try store.beginBracket(BracketStart(plan: plan, outputs: outputs, startTime: start, dngCompression: compression))
        }
        return try store.beginBracket(BracketStart(plan: plan, outputs: outputs, startTime: start))
    }

    private func request(_ n: UInt64, _ raw: FrameBuffer) -> CompletedRequest {
        CompletedRequest(cookie: n, sequence: n, sensorTimestamp: MonotonicTime(nanoseconds: Int64(n) * 1_000_000),
                         metadata: [ControlName.exposureTime: .int32(10_000), ControlName.analogueGain: .float(1)],
                         buffers: [.raw: raw])
    }

    private func store(_ storage: SimulatedStorage) throws -> CaptureStore {
        try CaptureStore(storage: storage, configuration: CaptureStore.Configuration(
            camera: testCamera, safetyMarginBytes: 0, naming: CaptureNaming(timeZone: Self.utc)))
    }

    @Test func bracketsWriteLosslessDNGsUnlessToldAndTheFilesDecode() throws {
        let storage = SimulatedStorage()
        let store = try store(storage)
        let frame = makePatternFrame(width: 600, height: 300, bits: 10, pattern: .noisy)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (compression, code) in [(DNGCompression?.none, 7), (.lossless, 7), (DNGCompression.none, 1)] {
            let bracket = try begin(store, frames: 1, compression: compression, size: frame.size)
            try bracket.addFrame(request(1, frame), requested: FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 1))
            try bracket.finish()
            let bytes = try storage.read(bracket.folder + "/" + bracket.id + "_01.dng")
            let file = try writeTemporary(bytes, name: "\(bracket.id).dng", in: directory)
            #expect(try exiftoolJSON(file)["EXIF:Compression"] as? Int == code)
            #expect(try rawpySamples(file).samples == samples(of: frame))
        }
    }

    @Test func aFailedLosslessDNGWriteLeavesNothingOfThatFrame() throws {
        let storage = SimulatedStorage()
        let store = try store(storage)
        let frame = makePatternFrame(width: 600, height: 300, bits: 12, pattern: .noisy)
        let bracket = try begin(store, frames: 2, size: frame.size)
        try bracket.addFrame(request(1, frame), requested: FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 1))
        storage.failWrite(1, with: .noSpace)  // frame 2's DNG
        #expect(throws: MediaError.self) {
            try bracket.addFrame(request(2, frame), requested: FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 1))
        }
        #expect(try storage.list(bracket.folder) == [bracket.id + ".json", bracket.id + "_01.dng"])
    }

    @Test func aFrameTheLosslessEncoderRefusesWritesNothingAndTheBracketGoesOn() throws {
        let storage = SimulatedStorage()
        let store = try store(storage)
        let good = makePatternFrame(width: 64, height: 48, bits: 10, pattern: .noisy)
        var bytes = good.bytes
        bytes[1] = 0x80  // sample 0 far above the 10-bit white level
        let bad = FrameBuffer(pixelFormat: good.pixelFormat, size: good.size, stride: good.stride, bytes: bytes)
        let bracket = try begin(store, frames: 2, size: good.size)
        let writes = storage.writeCount
        do {
            try bracket.addFrame(request(1, bad), requested: FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 1))
            Issue.record("a frame above the white level was written")
        } catch let error as MediaError {
            #expect(error.kind == .invalidFrame)
        }
        let listed = try storage.list(bracket.folder)
        #expect(storage.writeCount == writes && listed.isEmpty)
        try bracket.addFrame(request(2, good), requested: FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 1))
        #expect(try storage.list(bracket.folder) == [bracket.id + ".json", bracket.id + "_01.dng"])
    }
}
