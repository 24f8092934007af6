import CTIFFShim
import Dispatch
import Foundation
import Hardware

/// What a DNG records besides the pixels.
public struct DNGDescription: Hashable, Sendable {
    /// Camera, settings, date, size.
    public var exif: CaptureExif
    /// BlackLevel in sample units (the raw format's scale, not 16-bit).
    public var blackLevel: Double
    /// ColorMatrix1 and CalibrationIlluminant1.
    public var colour: ColourCalibration

    /// A description; the generic colour matrix unless given.
    public init(exif: CaptureExif, blackLevel: Double, colour: ColourCalibration = .genericSRGB) {
        self.exif = exif; self.blackLevel = blackLevel; self.colour = colour
    }

    /// DNG AsShotNeutral from white-balance gains: (1/red, 1, 1/blue); neutral (1,1,1) without gains.
    public var asShotNeutral: [Double] {
        guard let g = exif.settings?.colourGains, g.red > 0, g.blue > 0 else { return [1, 1, 1] }
        return [1 / g.red, 1, 1 / g.blue]
    }
}

/// How a DNG stores the raw samples (setting `media.dng.compression`).
public enum DNGCompression: String, Hashable, Sendable, CaseIterable {
    /// Compression 7: tiles of lossless JPEG (T.81 process 14, predictor 1), the default.
    case lossless
    /// Compression 1: the 16-bit samples as they are, in strips.
    case none
}

/// What `DNGWriter.write` put in its stream.
public struct DNGFile: Hashable, Sendable {
    /// The file's size, bytes.
    public var byteCount: Int
    /// The SHA-256 of the file's bytes (lower-case hex), when asked for.
    public var sha256: String?
}

/// Writes a Bayer raw frame as a DNG 1.4 through libtiff, streamed into a `StorageStream` as it is
/// built (TIFFClientOpen over `TIFFSink`): IFD0 holds the raw image (lossless JPEG tiles or
/// uncompressed strips), its SubIFD a reduced baseline-JPEG preview (NewSubFileType 1), and an EXIF
/// IFD written first (TIFFCreateEXIFDirectory) so the main IFD is written once. Lossless tiles come
/// from our `LosslessJPEG` and go in with TIFFWriteRawTile, the preview JPEG from libjpeg with
/// TIFFWriteRawStrip: libtiff's JPEG codec never runs (it refuses 16-bit samples); uncompressed
/// strips go in with TIFFWriteRawStrip too, straight from the frame when its rows are back to back.
public enum DNGWriter {
    /// Tile width and length of lossless DNGs, samples (TIFF wants multiples of 16; edge tiles are
    /// full-size, padded with the image's last column and row). Narrower images get tiles of their
    /// width rounded down to 16, shorter ones one tile row of their height rounded up to 16; an
    /// image exactly 512 wide gets 240-wide tiles (see `write`).
    public static let tileSize = 256
    /// The preview's longest side at most, pixels.
    public static let previewMaximumSide = 1024

    /// The DNG file bytes for `frame`, built in memory (`write` into a `MemoryStorageStream`).
    public static func encode(_ frame: FrameBuffer, description: DNGDescription,
                              compression: DNGCompression = .lossless) throws -> [UInt8] {
        // Room for the samples, the preview and the tags: the array does not grow on the way.
        let stream = MemoryStorageStream(capacity: frame.size.area * 2 + (1 << 20))
        _ = try write(frame, description: description, compression: compression, to: stream)
        return stream.bytes
    }

    /// The lens position goes in EXIF SubjectDistance and UserComment, not ImageDescription: dcraw
    /// 9.28 reads 512 bytes at an ImageDescription and fails when that passes the end of the file.
    ///
    /// Writes `frame` (an unpacked Bayer format, 16-bit little-endian samples) as a DNG into
    /// `stream`, front to back as libtiff builds it (it seeks back to fill in offsets). The preview
    /// is rendered and compressed on another thread while the raw data is written; lossless tiles
    /// are encoded on all cores (`LosslessTiles`) and each is written, in order, as soon as it is
    /// done. With `sha256`, the result has the SHA-256 of the bytes that went into the stream, in
    /// file order (`TIFFSink`).
    /// Throws `MediaError` (.invalidFrame, e.g. a sample above the white level in a lossless DNG;
    /// .notYet; .encoding with libtiff's message, or libjpeg's for the preview), or the stream's
    /// own error (a `HardwareError` from the storage) as it is.
    public static func write(_ frame: FrameBuffer, description: DNGDescription, compression: DNGCompression = .lossless,
                             to stream: any StorageStream, sha256: Bool = false) throws -> DNGFile {
        let layout = try BayerLayout(frame.pixelFormat)
        let width = frame.size.width, height = frame.size.height
        let rowBytes = width * layout.bytesPerSample
        guard width > 0, height > 0, frame.stride >= rowBytes,
              frame.byteCount >= frame.stride * (height - 1) + rowBytes else {
            throw MediaError(.invalidFrame, "raw frame \(frame.size) \(frame.pixelFormat): \(frame.byteCount) bytes with stride \(frame.stride) is too small")
        }
        guard description.colour.colorMatrix1.count == 9 else {
            throw MediaError(.invalidFrame, "ColorMatrix1 needs 9 values, got \(description.colour.colorMatrix1.count)")
        }
        let preview = PreviewJob(frame: frame, layout: layout, description: description)
        defer { preview.wait() }  // never leaves it running
        // TIFF tiles are at least 16 wide and a tile must not be wider than the image (see below):
        // a frame under 16 samples wide is stored uncompressed.
        let stored = width < 16 ? DNGCompression.none : compression
        var tiles: LosslessTiles?
        var tileWidth = 0, tileLength = 0
        if stored == .lossless {
            // Never wider than the image: dcraw and LibRaw wrap a tile's rows at the image's width.
            // And never half the image's width: LibRaw 0.21 then reads 2-component tiles as twice as wide.
            tileWidth = min(tileSize, width / 16 * 16)
            if tileWidth * 2 == width { tileWidth -= 16 }
            tileLength = min(tileSize, roundUp(height, 16))
            tiles = LosslessTiles(frame, layout: layout, tileWidth: tileWidth, tileLength: tileLength)
        }
        defer { tiles?.cancel() }  // never leaves the encoder running
        // Strips of about 4 MiB: a few large writes (256 KiB strips took 95 writes, measurably slower).
        let rowsPerStrip = max(1, min(height, (4 * 1024 * 1024) / rowBytes))
        let sink = TIFFSink(stream: stream)

        /// The file's tags, image data and preview, in libtiff's order.
        func writeFile(_ tiff: OpaquePointer, pixels: UnsafeRawBufferPointer) throws {
            var writer = TagWriter(tiff: tiff, sink: sink)
            try writer.check(tripod_tiff_begin_exif(tiff), "TIFFCreateEXIFDirectory")
            try writeExifTags(&writer, exif: description.exif, in: .exif)
            var exifOffset: UInt64 = 0
            try writer.check(tripod_tiff_end_exif(tiff, &exifOffset), "TIFFWriteCustomDirectory (EXIF)")
            try writeMainTags(&writer, layout: layout, size: frame.size, description: description)
            switch stored {
            case .none:
                try writer.uint(Tag.compression, 1)
                try writer.uint(Tag.rowsPerStrip, rowsPerStrip)
            case .lossless:
                try writer.uint(Tag.compression, 7)
                try writer.uint(Tag.tileWidth, tileWidth)
                try writer.uint(Tag.tileLength, tileLength)
            }
            try writeExifTags(&writer, exif: description.exif, in: .primary)
            try writer.check(tripod_tiff_set_uint(tiff, Tag.exifIFD, UInt32(clamping: exifOffset)), "TIFFSetField ExifIFD")
            try writer.check(tripod_tiff_set_subifd_count(tiff, 1), "TIFFSetField SubIFDs")
            switch stored {
            case .none:
                guard let base = pixels.baseAddress else { throw MediaError(.invalidFrame, "raw frame has no bytes") }
                for strip in 0..<(height + rowsPerStrip - 1) / rowsPerStrip {
                    let rows = min(rowsPerStrip, height - strip * rowsPerStrip), first = strip * rowsPerStrip
                    if frame.stride == rowBytes {
                        // Rows back to back: the strip goes out from the frame itself (TIFFWriteRawStrip).
                        let piece = UnsafeRawBufferPointer(start: base + first * rowBytes, count: rows * rowBytes)
                        try writer.raw(piece, .pointer(base + first * rowBytes), strip: strip)
                    } else {
                        var packed = [UInt8]()
                        packed.reserveCapacity(rows * rowBytes)
                        for row in first..<(first + rows) {
                            packed.append(contentsOf: UnsafeRawBufferPointer(start: base + row * frame.stride, count: rowBytes))
                        }
                        try packed.withUnsafeBytes { try writer.raw($0, .array(packed, start: 0), strip: strip) }
                    }
                }
            case .lossless:
                let count = Int(tripod_tiff_tile_count(tiff)), made = tiles?.count ?? 0
                guard let tiles, count == made else {
                    throw MediaError(.encoding, "DNG: libtiff counts \(count) tiles of \(tileWidth)×\(tileLength) in \(frame.size), the encoder makes \(made)")
                }
                // In order, each as soon as it is encoded: the card takes tile n while later ones are encoded.
                for index in 0..<count {
                    let tile = try tiles.take(index)
                    try tile.withUnsafeBytes { try writer.raw($0, .array(tile, start: 0), tile: index) }
                }
            }
            try writer.check(tripod_tiff_write_directory(tiff), "TIFFWriteDirectory (IFD0)")
            stream.startWriteback()  // the card takes the image data while the preview is finished
            let (previewSize, previewJPEG) = try preview.value()
            try writePreviewTags(&writer, size: previewSize)
            try previewJPEG.withUnsafeBytes { try writer.raw($0, .array(previewJPEG, start: 0), strip: 0) }
            try writer.check(tripod_tiff_write_directory(tiff), "TIFFWriteDirectory (preview SubIFD)")
        }

        // The frame's memory stays valid until the checksum is taken: strips are noted by reference.
        return try frame.withUnsafeBytes { pixels in
            guard let tiff = tripod_tiff_open_sink(sink.callbacks) else { throw sink.failure ?? libtiffError("TIFFClientOpen") }
            do { try writeFile(tiff, pixels: pixels) } catch {
                _ = tripod_tiff_close(tiff)
                throw error
            }
            guard tripod_tiff_close(tiff) == 1 else { throw sink.failure ?? libtiffError("TIFFClose") }
            try relabelSubIFDsAsLong(sink)
            return DNGFile(byteCount: sink.size, sha256: sha256 ? try sink.sha256() : nil)
        }
    }

    /// libtiff writes IFD0's SubIFDs entry (330) with field type IFD (13), which TIFF Technical
    /// Note 1 and DNG allow ("LONG or IFD") but `exiftool -validate` warns about ("Non-standard
    /// format (ifd)"); Adobe's DNG Converter writes LONG (4). Same 4-byte offset either way, so
    /// only the entry's type field changes, patched in place through the sink.
    static func relabelSubIFDsAsLong(_ sink: TIFFSink) throws {
        func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
        let header = try sink.read(at: 0, count: 8)
        guard header[0] == 0x49, header[1] == 0x49 else {
            throw MediaError(.encoding, "DNG: libtiff did not write a little-endian TIFF header")
        }
        let ifd0 = u16(header, 4) | u16(header, 6) << 16
        let entries = u16(try sink.read(at: ifd0, count: 2), 0)
        let table = try sink.read(at: ifd0 + 2, count: 12 * entries)
        for index in 0..<entries where u16(table, 12 * index) == Int(Tag.subIFDs) {
            if u16(table, 12 * index + 2) == 13 { try sink.write([4, 0], at: ifd0 + 2 + 12 * index + 2) }
            return
        }
        throw MediaError(.encoding, "DNG: libtiff wrote no SubIFDs entry in IFD0")
    }

    /// The lossless JPEG of each tile, left to right then top to bottom (`LosslessTiles`), all at
    /// once. Throws `MediaError(.invalidFrame)` naming the first tile with a sample above the white level.
    static func losslessTiles(_ frame: FrameBuffer, layout: BayerLayout, tileWidth: Int, tileLength: Int) throws -> [[UInt8]] {
        let encoder = LosslessTiles(frame, layout: layout, tileWidth: tileWidth, tileLength: tileLength)
        defer { encoder.cancel() }
        return try (0..<encoder.count).map { try encoder.take($0) }
    }

    private static func writeMainTags(_ w: inout TagWriter, layout: BayerLayout, size: PixelSize,
                                      description: DNGDescription) throws {
        try w.uint(Tag.newSubfileType, 0)
        try w.uint(Tag.imageWidth, size.width)
        try w.uint(Tag.imageLength, size.height)
        try w.uint(Tag.bitsPerSample, layout.bytesPerSample * 8)
        try w.uint(Tag.photometric, 32803)  // CFA
        try w.uint(Tag.samplesPerPixel, 1)
        try w.uint(Tag.planarConfig, 1)
        try w.uint16s(Tag.cfaRepeatPatternDim, [2, 2])
        try w.bytes(Tag.cfaPattern, layout.cfaPattern)
        try w.bytes(Tag.dngVersion, [1, 4, 0, 0])
        try w.bytes(Tag.dngBackwardVersion, [1, 1, 0, 0])
        try w.string(Tag.uniqueCameraModel, description.exif.camera.uniqueCameraModel)
        try w.reals(Tag.blackLevel, [description.blackLevel])
        try w.uint32s(Tag.whiteLevel, [UInt32(layout.whiteLevel)])
        try w.reals(Tag.colorMatrix1, description.colour.colorMatrix1)
        try w.uint(Tag.calibrationIlluminant1, description.colour.calibrationIlluminant1)
        try w.reals(Tag.asShotNeutral, description.asShotNeutral)
    }

    /// The preview SubIFD's tags: a baseline JPEG (as libjpeg writes it: YCbCr 4:2:0) in one strip.
    private static func writePreviewTags(_ w: inout TagWriter, size: PixelSize) throws {
        try w.uint(Tag.newSubfileType, 1)  // reduced-resolution image: the preview
        try w.uint(Tag.imageWidth, size.width)
        try w.uint(Tag.imageLength, size.height)
        try w.uint(Tag.bitsPerSample, 8)  // per sample: libtiff writes 8, 8, 8
        try w.uint(Tag.compression, 7)
        try w.uint(Tag.photometric, 6)  // YCbCr
        try w.uint(Tag.samplesPerPixel, 3)
        try w.uint(Tag.rowsPerStrip, size.height)
        try w.uint(Tag.planarConfig, 1)
        try w.check(tripod_tiff_set_uint_pair(w.tiff, Tag.ycbcrSubSampling, 2, 2), "TIFFSetField YCbCrSubSampling")
        try w.uint(Tag.previewColorSpace, 2)  // sRGB
    }

    /// The tags of `directory` from `ExifTag.all` that a DNG carries (the list the JPEG writer uses too).
    private static func writeExifTags(_ w: inout TagWriter, exif: CaptureExif, in directory: ExifTag.Directory) throws {
        for (tag, value) in exif.exifFields(in: directory, for: .dng) { try w.exif(UInt32(tag.id), value) }
    }

    /// TIFF/DNG tag numbers (TIFF 6.0 and DNG 1.4 specifications); the EXIF tags are in `ExifTag.all`.
    enum Tag {
        static let newSubfileType: UInt32 = 254, imageWidth: UInt32 = 256, imageLength: UInt32 = 257
        static let bitsPerSample: UInt32 = 258, compression: UInt32 = 259, photometric: UInt32 = 262
        static let samplesPerPixel: UInt32 = 277, rowsPerStrip: UInt32 = 278
        static let planarConfig: UInt32 = 284, tileWidth: UInt32 = 322, tileLength: UInt32 = 323
        static let subIFDs: UInt32 = 330, ycbcrSubSampling: UInt32 = 530
        static let cfaRepeatPatternDim: UInt32 = 33421, cfaPattern: UInt32 = 33422
        static let exifIFD: UInt32 = 34665
        static let dngVersion: UInt32 = 50706, dngBackwardVersion: UInt32 = 50707
        static let uniqueCameraModel: UInt32 = 50708, blackLevel: UInt32 = 50714, whiteLevel: UInt32 = 50717
        static let colorMatrix1: UInt32 = 50721, asShotNeutral: UInt32 = 50728
        static let calibrationIlluminant1: UInt32 = 50778, previewColorSpace: UInt32 = 50970
    }

    /// Calls the typed TIFFSetField wrappers and the raw writes, turning a 0 return into the
    /// storage's error when the sink had one, else a MediaError naming the call.
    struct TagWriter {
        let tiff: OpaquePointer
        let sink: TIFFSink

        func check(_ ok: Int32, _ call: String) throws {
            if ok != 1 { throw sink.failure ?? libtiffError(call) }
        }
        /// TIFFWriteRawStrip of `bytes`, which the sink notes by reference (`source`) rather than copies.
        func raw(_ bytes: UnsafeRawBufferPointer, _ source: TIFFSink.Source, strip: Int) throws {
            sink.expect(bytes, from: source)
            try check(tripod_tiff_write_raw_strip(tiff, UInt32(strip), bytes.baseAddress, bytes.count), "TIFFWriteRawStrip \(strip)")
        }
        /// TIFFWriteRawTile of `bytes`, noted by reference as `raw(_:_:strip:)`.
        func raw(_ bytes: UnsafeRawBufferPointer, _ source: TIFFSink.Source, tile: Int) throws {
            sink.expect(bytes, from: source)
            try check(tripod_tiff_write_raw_tile(tiff, UInt32(tile), bytes.baseAddress, bytes.count), "TIFFWriteRawTile \(tile)")
        }
        func uint(_ tag: UInt32, _ v: Int) throws {
            try check(tripod_tiff_set_uint(tiff, tag, UInt32(clamping: v)), "TIFFSetField tag \(tag)")
        }
        func real(_ tag: UInt32, _ v: Double) throws {
            try check(tripod_tiff_set_real(tiff, tag, v), "TIFFSetField tag \(tag)")
        }
        func string(_ tag: UInt32, _ v: String) throws {
            try check(tripod_tiff_set_string(tiff, tag, v), "TIFFSetField tag \(tag)")
        }
        func bytes(_ tag: UInt32, _ v: [UInt8]) throws {
            try check(tripod_tiff_set_bytes(tiff, tag, UInt32(v.count), v), "TIFFSetField tag \(tag)")
        }
        func uint16s(_ tag: UInt32, _ v: [UInt16]) throws {
            try check(tripod_tiff_set_uint16_array(tiff, tag, UInt32(v.count), v), "TIFFSetField tag \(tag)")
        }
        func uint32s(_ tag: UInt32, _ v: [UInt32]) throws {
            try check(tripod_tiff_set_uint32_array(tiff, tag, UInt32(v.count), v), "TIFFSetField tag \(tag)")
        }
        func reals(_ tag: UInt32, _ v: [Double]) throws {
            try check(tripod_tiff_set_real_array(tiff, tag, UInt32(v.count), v), "TIFFSetField tag \(tag)")
        }
        /// An EXIF value through the setter for its type (libtiff stores rationals from a real).
        func exif(_ tag: UInt32, _ value: ExifValue) throws {
            switch value {
            case .ascii(let s): try string(tag, s)
            case .short(let v): try uint(tag, Int(v))
            case .shorts(let vs): try uint16s(tag, vs)
            case .long(let v): try uint(tag, Int(v))
            case .rational(let numerator, let denominator): try real(tag, Double(numerator) / Double(max(denominator, 1)))
            case .undefined(let b): try bytes(tag, b)
            }
        }
    }
}

private func libtiffError(_ call: String) -> MediaError {
    MediaError(.encoding, "DNG: libtiff \(call) failed: \(String(cString: tripod_tiff_last_error()))")
}

private func roundUp(_ v: Int, _ multiple: Int) -> Int { (v + multiple - 1) / multiple * multiple }

/// The preview JPEG (`DNGPreview`, libjpeg at quality 85), rendered on another thread from the
/// moment it is made, so it is ready by the time the raw data is written.
private final class PreviewJob: @unchecked Sendable {
    private let done = DispatchGroup()
    // Written once on the job's thread, read after `done` is waited for.
    private var result: Result<(PixelSize, [UInt8]), any Error> = .failure(MediaError(.encoding, "DNG: the preview was not rendered"))

    init(frame: FrameBuffer, layout: BayerLayout, description: DNGDescription) {
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            result = Result {
                let preview = try DNGPreview.render(frame, layout: layout, description: description)
                return (preview.size, try JPEGWriter.compress(preview, app1: [], quality: 85))
            }
            done.leave()
        }
    }

    /// Waits for the job to end.
    func wait() { done.wait() }

    /// The preview's size and JPEG bytes, once rendered.
    func value() throws -> (PixelSize, [UInt8]) {
        done.wait()
        return try result.get()
    }
}

/// Hands a buffer to concurrentPerform's iterations, each of which writes only its own index.
struct UncheckedSendable<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
