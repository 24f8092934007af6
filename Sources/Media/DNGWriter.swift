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

/// Writes a Bayer raw frame as a DNG 1.4: IFD0 holds the raw image (lossless JPEG tiles or
/// uncompressed strips), its SubIFD a reduced baseline-JPEG preview (NewSubFileType 1), then the
/// EXIF IFD. Our own TIFF layout (`ExifEncoder.IFD`): header, the three IFDs with their values,
/// then the image data. libtiff's JPEG codec refuses 16-bit samples and its SubIFD and raw-tile
/// calls are not reachable through CTIFFShim, so the file is laid out here.
public enum DNGWriter {
    /// Tile width and length of lossless DNGs, samples (TIFF wants multiples of 16; edge tiles are
    /// full-size, padded with the image's last column and row). Narrower images get tiles of their
    /// width rounded down to 16, shorter ones one tile row of their height rounded up to 16; an
    /// image exactly 512 wide gets 240-wide tiles (see `encode`).
    public static let tileSize = 256
    /// The preview's longest side at most, pixels.
    public static let previewMaximumSide = 1024

    /// The lens position goes in EXIF SubjectDistance and UserComment, not ImageDescription: dcraw
    /// 9.28 reads 512 bytes at an ImageDescription and fails when that passes the end of the file.
    ///
    /// The DNG file bytes for `frame` (an unpacked Bayer format, 16-bit little-endian samples).
    /// Lossless tiles are encoded on all cores (DispatchQueue.concurrentPerform).
    /// Throws `MediaError` (.invalidFrame, e.g. a sample above the white level in a lossless DNG;
    /// .notYet; .encoding from libjpeg for the preview).
    public static func encode(_ frame: FrameBuffer, description: DNGDescription,
                              compression: DNGCompression = .lossless) throws -> [UInt8] {
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
        let chunks: [[UInt8]]
        var raw = ExifEncoder.IFD()
        // TIFF tiles are at least 16 wide and a tile must not be wider than the image (see below):
        // a frame under 16 samples wide is stored uncompressed.
        let stored = width < 16 ? DNGCompression.none : compression
        switch stored {
        case .none:
            let rowsPerStrip = max(1, min(height, (256 * 1024) / rowBytes))
            chunks = frame.withUnsafeBytes { pixels in
                stride(from: 0, to: height, by: rowsPerStrip).map { top in
                    var strip: [UInt8] = []
                    strip.reserveCapacity(rowsPerStrip * rowBytes)
                    for row in top..<min(height, top + rowsPerStrip) {
                        strip.append(contentsOf: UnsafeRawBufferPointer(rebasing: pixels[(row * frame.stride)..<(row * frame.stride + rowBytes)]))
                    }
                    return strip
                }
            }
            raw.add(Tag.compression, .short(1))
            raw.add(Tag.rowsPerStrip, .long(UInt32(rowsPerStrip)))
        case .lossless:
            // Never wider than the image: dcraw and LibRaw wrap a tile's rows at the image's width.
            // And never half the image's width: LibRaw 0.21 then reads 2-component tiles as twice as wide.
            var tileWidth = min(tileSize, width / 16 * 16)
            if tileWidth * 2 == width { tileWidth -= 16 }
            let tileLength = min(tileSize, roundUp(height, 16))
            chunks = try losslessTiles(frame, layout: layout, tileWidth: tileWidth, tileLength: tileLength)
            raw.add(Tag.compression, .short(7))
            raw.add(Tag.tileWidth, .long(UInt32(tileWidth)))
            raw.add(Tag.tileLength, .long(UInt32(tileLength)))
        }
        let preview = try DNGPreview.render(frame, layout: layout, description: description)
        let previewJPEG = try JPEGWriter.compress(preview, app1: [], quality: 85)

        try addMainTags(&raw, layout: layout, size: frame.size, description: description)
        for (tag, value) in description.exif.exifFields(in: .primary, for: .dng) { raw.add(tag.id, value) }
        var exif = ExifEncoder.IFD()
        for (tag, value) in description.exif.exifFields(in: .exif, for: .dng) { exif.add(tag.id, value) }
        var sub = ExifEncoder.IFD()
        sub.add(Tag.newSubfileType, .long(1))  // reduced-resolution image: the preview
        sub.add(Tag.imageWidth, .long(UInt32(preview.size.width)))
        sub.add(Tag.imageLength, .long(UInt32(preview.size.height)))
        sub.add(Tag.bitsPerSample, .shorts([8, 8, 8]))
        sub.add(Tag.compression, .short(7))  // JPEG (baseline, as libjpeg writes it)
        sub.add(Tag.photometric, .short(6))  // YCbCr
        sub.add(Tag.samplesPerPixel, .short(3))
        sub.add(Tag.rowsPerStrip, .long(UInt32(preview.size.height)))
        sub.add(Tag.planarConfig, .short(1))
        sub.add(Tag.ycbcrSubSampling, .shorts([2, 2]))  // libjpeg's default 4:2:0
        sub.add(Tag.previewColorSpace, .long(2))  // sRGB

        // Offsets: every entry whose value is an offset is added twice, first with a placeholder of
        // the same size, so the IFDs' sizes (and so all offsets) are known before they are filled.
        let offsetTag = stored == .none ? Tag.stripOffsets : Tag.tileOffsets
        let countTag = stored == .none ? Tag.stripByteCounts : Tag.tileByteCounts
        func longs(_ values: [Int]) -> [UInt8] {
            var b: [UInt8] = []
            for v in values { appendUInt32(&b, UInt32(truncatingIfNeeded: v)) }
            return b
        }
        let placeholders = [Int](repeating: 0, count: chunks.count)
        raw.add(offsetTag, 4, UInt32(chunks.count), longs(placeholders))
        raw.add(countTag, 4, UInt32(chunks.count), longs(chunks.map(\.count)))
        raw.add(Tag.subIFDs, .long(0))
        raw.add(Tag.exifIFD, .long(0))
        sub.add(Tag.stripOffsets, .long(0))
        sub.add(Tag.stripByteCounts, .long(UInt32(previewJPEG.count)))
        let rawAt = 8, subAt = rawAt + raw.encodedSize, exifAt = subAt + sub.encodedSize
        var position = exifAt + exif.encodedSize
        var offsets: [Int] = []
        for chunk in chunks + [previewJPEG] {
            offsets.append(position)
            position += (chunk.count + 1) & ~1  // word-aligned, as TIFF recommends
        }
        guard position <= Int(UInt32.max) else {
            throw MediaError(.invalidFrame, "raw frame \(frame.size): a DNG of \(position) bytes needs BigTIFF offsets")
        }
        raw.add(offsetTag, 4, UInt32(chunks.count), longs(Array(offsets.dropLast())))
        raw.add(Tag.subIFDs, .long(UInt32(subAt)))
        raw.add(Tag.exifIFD, .long(UInt32(exifAt)))
        sub.add(Tag.stripOffsets, .long(UInt32(offsets[chunks.count])))

        var file: [UInt8] = [0x49, 0x49, 0x2A, 0x00]  // little-endian TIFF (TIFF 6.0 §2)
        file.reserveCapacity(position)
        appendUInt32(&file, UInt32(rawAt))
        file += raw.encoded(at: rawAt)
        file += sub.encoded(at: subAt)
        file += exif.encoded(at: exifAt)
        for chunk in chunks + [previewJPEG] {
            file += chunk
            if chunk.count % 2 == 1 { file.append(0) }
        }
        return file
    }

    /// The lossless JPEG of each tile, left to right then top to bottom (TIFF 6.0 §15): 2
    /// components of tileWidth/2 columns, so the frame's geometry is the tile's and each colour
    /// of a Bayer row has its own predictor (as Adobe's DNG Converter writes them).
    static func losslessTiles(_ frame: FrameBuffer, layout: BayerLayout, tileWidth: Int, tileLength: Int) throws -> [[UInt8]] {
        let width = frame.size.width, height = frame.size.height
        let across = (width + tileWidth - 1) / tileWidth, down = (height + tileLength - 1) / tileLength
        let bits = layout.bitsPerSample, white = layout.whiteLevel
        var tiles = [[UInt8]](repeating: [], count: across * down)
        var overWhite = [Int](repeating: -1, count: across * down)  // a sample above the white level, per tile
        frame.withUnsafeBytes { pixels in
            tiles.withUnsafeMutableBufferPointer { results in
                overWhite.withUnsafeMutableBufferPointer { over in
                    let results = UncheckedSendable(results), over = UncheckedSendable(over), source = UncheckedSendable(pixels)
                    DispatchQueue.concurrentPerform(iterations: across * down) { index in
                        let left = (index % across) * tileWidth, top = (index / across) * tileLength
                        var samples = [UInt16](repeating: 0, count: tileWidth * tileLength)
                        var largest: UInt16 = 0
                        samples.withUnsafeMutableBufferPointer { tile in
                            let pixels = source.value
                            for y in 0..<tileLength {
                                let row = min(top + y, height - 1) * frame.stride
                                for x in 0..<tileWidth {
                                    let column = min(left + x, width - 1)
                                    let v = layout.bytesPerSample == 2
                                        ? UInt16(littleEndian: pixels.loadUnaligned(fromByteOffset: row + column * 2, as: UInt16.self))
                                        : UInt16(pixels[row + column])
                                    largest = max(largest, v)
                                    tile[y * tileWidth + x] = v
                                }
                            }
                        }
                        if Int(largest) > white { over.value[index] = Int(largest); return }
                        results.value[index] = samples.withUnsafeBufferPointer {
                            LosslessJPEG.encode($0, width: tileWidth, height: tileLength, components: 2, precision: max(bits, 2))
                        }
                    }
                }
            }
        }
        if let index = overWhite.firstIndex(where: { $0 >= 0 }) {
            throw MediaError(.invalidFrame, "raw frame \(frame.size) \(frame.pixelFormat): sample \(overWhite[index]) in tile \(index) "
                + "is above the \(bits)-bit white level \(white); a lossless DNG cannot hold it")
        }
        return tiles
    }

    private static func addMainTags(_ ifd: inout ExifEncoder.IFD, layout: BayerLayout, size: PixelSize,
                                    description: DNGDescription) throws {
        ifd.add(Tag.newSubfileType, .long(0))
        ifd.add(Tag.imageWidth, .long(UInt32(size.width)))
        ifd.add(Tag.imageLength, .long(UInt32(size.height)))
        ifd.add(Tag.bitsPerSample, .short(UInt16(layout.bytesPerSample * 8)))
        ifd.add(Tag.photometric, .short(32803))  // CFA
        ifd.add(Tag.samplesPerPixel, .short(1))
        ifd.add(Tag.planarConfig, .short(1))
        ifd.add(Tag.cfaRepeatPatternDim, .shorts([2, 2]))
        ifd.add(Tag.cfaPattern, 1, 4, layout.cfaPattern)
        ifd.add(Tag.dngVersion, 1, 4, [1, 4, 0, 0])
        ifd.add(Tag.dngBackwardVersion, 1, 4, [1, 1, 0, 0])
        ifd.add(Tag.uniqueCameraModel, .ascii(description.exif.camera.uniqueCameraModel))
        ifd.add(Tag.blackLevel, 5, 1, rationals([description.blackLevel], signed: false))
        ifd.add(Tag.whiteLevel, .long(UInt32(layout.whiteLevel)))
        ifd.add(Tag.colorMatrix1, 10, 9, rationals(description.colour.colorMatrix1, signed: true))
        ifd.add(Tag.calibrationIlluminant1, .short(UInt16(clamping: description.colour.calibrationIlluminant1)))
        ifd.add(Tag.asShotNeutral, 5, 3, rationals(description.asShotNeutral, signed: false))
    }

    /// RATIONAL (type 5) or SRATIONAL (type 10) bytes: whole numbers over 1, others over 10^6
    /// (fewer when the numerator would not fit 32 bits).
    static func rationals(_ values: [Double], signed: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        for v in values {
            let limit = signed ? Double(Int32.max) : Double(UInt32.max)
            var denominator = v == v.rounded() ? 1.0 : 1_000_000
            while denominator > 1 && abs(v * denominator) > limit { denominator /= 10 }
            let numerator = min(max((v * denominator).rounded(), signed ? -limit : 0), limit)
            appendUInt32(&bytes, signed ? UInt32(bitPattern: Int32(numerator)) : UInt32(numerator))
            appendUInt32(&bytes, UInt32(denominator))
        }
        return bytes
    }

    /// TIFF/DNG tag numbers (TIFF 6.0 and DNG 1.4 specifications); the EXIF tags are in `ExifTag.all`.
    enum Tag {
        static let newSubfileType: UInt16 = 254, imageWidth: UInt16 = 256, imageLength: UInt16 = 257
        static let bitsPerSample: UInt16 = 258, compression: UInt16 = 259, photometric: UInt16 = 262
        static let stripOffsets: UInt16 = 273, samplesPerPixel: UInt16 = 277, rowsPerStrip: UInt16 = 278
        static let stripByteCounts: UInt16 = 279, planarConfig: UInt16 = 284
        static let tileWidth: UInt16 = 322, tileLength: UInt16 = 323, tileOffsets: UInt16 = 324, tileByteCounts: UInt16 = 325
        static let subIFDs: UInt16 = 330, ycbcrSubSampling: UInt16 = 530
        static let cfaRepeatPatternDim: UInt16 = 33421, cfaPattern: UInt16 = 33422
        static let exifIFD: UInt16 = 34665
        static let dngVersion: UInt16 = 50706, dngBackwardVersion: UInt16 = 50707
        static let uniqueCameraModel: UInt16 = 50708, blackLevel: UInt16 = 50714, whiteLevel: UInt16 = 50717
        static let colorMatrix1: UInt16 = 50721, asShotNeutral: UInt16 = 50728
        static let calibrationIlluminant1: UInt16 = 50778, previewColorSpace: UInt16 = 50970
    }
}

private func roundUp(_ v: Int, _ multiple: Int) -> Int { (v + multiple - 1) / multiple * multiple }

/// Hands a buffer to concurrentPerform's iterations, each of which writes only its own index.
struct UncheckedSendable<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
