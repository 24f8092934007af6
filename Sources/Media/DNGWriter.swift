import CTIFFShim
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

/// Writes a Bayer raw frame as an uncompressed DNG 1.4 through libtiff (TIFFClientOpen into
/// memory, TIFFSetField, TIFFWriteScanline, an EXIF IFD through TIFFCreateEXIFDirectory, written
/// first so the main IFD is written once).
public enum DNGWriter {
    /// The lens position goes in EXIF SubjectDistance and UserComment, not ImageDescription: dcraw
    /// 9.28 reads 512 bytes at an ImageDescription and fails when that passes the end of the file.
    ///
    /// The DNG file bytes for `frame` (an unpacked Bayer format, 16-bit little-endian samples).
    /// Throws `MediaError` (.invalidFrame, .notYet or .encoding with libtiff's message).
    public static func encode(_ frame: FrameBuffer, description: DNGDescription) throws -> [UInt8] {
        let layout = try BayerLayout(frame.pixelFormat)
        let width = frame.size.width, height = frame.size.height
        let rowBytes = width * layout.bytesPerSample
        guard width > 0, height > 0, frame.stride >= rowBytes,
              frame.byteCount >= frame.stride * (height - 1) + rowBytes else {
            throw MediaError(.invalidFrame, "raw frame \(frame.size) \(frame.pixelFormat): \(frame.byteCount) bytes with stride \(frame.stride) is too small")
        }
        guard let tiff = tripod_tiff_open_memory(height * rowBytes + 65_536) else { throw libtiffError("TIFFClientOpen") }
        var writer = TagWriter(tiff: tiff)
        do {
            try writer.check(tripod_tiff_begin_exif(tiff), "TIFFCreateEXIFDirectory")
            try writeExifTags(&writer, exif: description.exif, in: .exif)
            var exifOffset: UInt64 = 0
            try writer.check(tripod_tiff_end_exif(tiff, &exifOffset), "TIFFWriteCustomDirectory (EXIF)")
            try writeMainTags(&writer, layout: layout, size: frame.size, description: description)
            try writeExifTags(&writer, exif: description.exif, in: .primary)
            try writer.check(tripod_tiff_set_uint(tiff, Tag.exifIFD, UInt32(clamping: exifOffset)), "TIFFSetField ExifIFD")
            try frame.withUnsafeBytes { pixels in
                guard let base = pixels.baseAddress else { throw MediaError(.invalidFrame, "raw frame has no bytes") }
                for row in 0..<height where tripod_tiff_write_scanline(tiff, base + row * frame.stride, UInt32(row)) != 1 {
                    throw libtiffError("TIFFWriteScanline row \(row)")
                }
            }
            try writer.check(tripod_tiff_write_directory(tiff), "TIFFWriteDirectory")
        } catch {
            tripod_tiff_discard(tiff)
            throw error
        }
        var bytes: UnsafeMutablePointer<UInt8>?
        var count = 0
        guard tripod_tiff_finish(tiff, &bytes, &count) == 1, let bytes else { throw libtiffError("TIFFClose") }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }

    private static func writeMainTags(_ w: inout TagWriter, layout: BayerLayout, size: PixelSize,
                                      description: DNGDescription) throws {
        let exif = description.exif
        let rowBytes = size.width * layout.bytesPerSample
        try w.uint(Tag.newSubfileType, 0)
        try w.uint(Tag.imageWidth, size.width)
        try w.uint(Tag.imageLength, size.height)
        try w.uint(Tag.bitsPerSample, layout.bytesPerSample * 8)
        try w.uint(Tag.compression, 1)
        try w.uint(Tag.photometric, 32803)  // CFA
        try w.uint(Tag.samplesPerPixel, 1)
        try w.uint(Tag.rowsPerStrip, max(1, min(size.height, (256 * 1024) / max(rowBytes, 1))))
        try w.uint(Tag.planarConfig, 1)
        try w.uint16s(Tag.cfaRepeatPatternDim, [2, 2])
        try w.bytes(Tag.cfaPattern, layout.cfaPattern)
        try w.bytes(Tag.dngVersion, [1, 4, 0, 0])
        try w.bytes(Tag.dngBackwardVersion, [1, 1, 0, 0])
        try w.string(Tag.uniqueCameraModel, exif.camera.uniqueCameraModel)
        try w.reals(Tag.blackLevel, [description.blackLevel])
        try w.uint32s(Tag.whiteLevel, [UInt32(layout.whiteLevel)])
        guard description.colour.colorMatrix1.count == 9 else {
            throw MediaError(.invalidFrame, "ColorMatrix1 needs 9 values, got \(description.colour.colorMatrix1.count)")
        }
        try w.reals(Tag.colorMatrix1, description.colour.colorMatrix1)
        try w.uint(Tag.calibrationIlluminant1, description.colour.calibrationIlluminant1)
        try w.reals(Tag.asShotNeutral, description.asShotNeutral)
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
        static let planarConfig: UInt32 = 284
        static let cfaRepeatPatternDim: UInt32 = 33421, cfaPattern: UInt32 = 33422
        static let exifIFD: UInt32 = 34665
        static let dngVersion: UInt32 = 50706, dngBackwardVersion: UInt32 = 50707
        static let uniqueCameraModel: UInt32 = 50708, blackLevel: UInt32 = 50714, whiteLevel: UInt32 = 50717
        static let colorMatrix1: UInt32 = 50721, asShotNeutral: UInt32 = 50728
        static let calibrationIlluminant1: UInt32 = 50778
    }

    /// Calls the typed TIFFSetField wrappers, turning a 0 return into a MediaError naming the tag.
    struct TagWriter {
        let tiff: OpaquePointer

        func check(_ ok: Int32, _ call: String) throws {
            if ok != 1 { throw libtiffError(call) }
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
