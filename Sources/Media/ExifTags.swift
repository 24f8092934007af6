/// One tag value as EXIF stores it; the case is its TIFF field type (TIFF 6.0 §2, EXIF 2.31 §4.6.2).
enum ExifValue: Equatable, Sendable {
    /// ASCII (type 2): text, written NUL-terminated.
    case ascii(String)
    /// SHORT (type 3), a single value.
    case short(UInt16)
    /// SHORT (type 3), a list (tags whose count is "any", such as ISOSpeedRatings).
    case shorts([UInt16])
    /// LONG (type 4), a single value.
    case long(UInt32)
    /// RATIONAL (type 5): numerator / denominator.
    case rational(UInt32, UInt32)
    /// UNDEFINED (type 7): bytes.
    case undefined([UInt8])
}

/// One EXIF/TIFF tag Tripod writes about a picture, described once for both writers: its number,
/// the directory it lives in, which files carry it, the units of its value and where the value
/// comes from. `ExifEncoder` (JPEG) and `DNGWriter` (through libtiff) both write from `ExifTag.all`.
struct ExifTag: Sendable {
    /// Where a tag goes: IFD0 (the primary image) or the EXIF sub-IFD it points to.
    enum Directory: Sendable { case primary, exif }

    /// The files a tag is written to.
    struct Files: OptionSet, Sendable {
        let rawValue: UInt8
        static let jpeg = Files(rawValue: 1)
        static let dng = Files(rawValue: 2)
        static let both: Files = [.jpeg, .dng]
    }

    /// Tag number (EXIF 2.31 / TIFF 6.0).
    let id: UInt16
    /// Tag name as the specification (and exiftool) spells it.
    let name: String
    let directory: Directory
    let files: Files
    /// Units of the value, for the reader; nil when it has none.
    let units: String?
    /// The value for one picture; nil to leave the tag out (e.g. no exposure reported).
    let value: @Sendable (CaptureExif) -> ExifValue?

    init(_ id: UInt16, _ name: String, _ directory: Directory, _ files: Files, units: String? = nil,
         value: @escaping @Sendable (CaptureExif) -> ExifValue?) {
        self.id = id; self.name = name; self.directory = directory; self.files = files
        self.units = units; self.value = value
    }
}

extension ExifTag {
    /// Every tag Tripod writes. DNG leaves out ImageDescription (dcraw 9.28 reads 512 bytes at it
    /// and fails past the end of the file; the same text goes in UserComment) and the tags that
    /// describe JPEG's YCbCr, colour space and resolution; DNG's own tags (CFA, levels, colour
    /// matrices) stay in `DNGWriter`. The ExifIFD pointer is layout, written by each writer.
    static let all: [ExifTag] = [
        // IFD0
        ExifTag(0x010E, "ImageDescription", .primary, .jpeg) { .ascii($0.imageDescription) },
        ExifTag(0x010F, "Make", .primary, .both) { .ascii($0.camera.make) },
        ExifTag(0x0110, "Model", .primary, .both) { .ascii($0.camera.model) },
        ExifTag(0x0112, "Orientation", .primary, .both) { _ in .short(1) },  // top-left: rows as stored
        ExifTag(0x011A, "XResolution", .primary, .jpeg, units: "pixels per inch") { _ in .rational(72, 1) },
        ExifTag(0x011B, "YResolution", .primary, .jpeg, units: "pixels per inch") { _ in .rational(72, 1) },
        ExifTag(0x0128, "ResolutionUnit", .primary, .jpeg) { _ in .short(2) },  // inch
        ExifTag(0x0131, "Software", .primary, .both) { _ in .ascii("Tripod") },
        ExifTag(0x0132, "DateTime", .primary, .both, units: "local time") { .ascii($0.exifDateString) },
        ExifTag(0x0213, "YCbCrPositioning", .primary, .jpeg) { _ in .short(1) },  // centred (libjpeg's subsampling)
        // DNG 1.4: the camera's serial number (the JPEG's is BodySerialNumber, below).
        ExifTag(0xC62F, "CameraSerialNumber", .primary, .dng) { $0.camera.serialNumber.map { .ascii($0) } },
        // EXIF IFD
        ExifTag(0x829A, "ExposureTime", .exif, .both, units: "seconds") {
            $0.exposureTimeRational.map { .rational($0.numerator, $0.denominator) }
        },
        ExifTag(0x829D, "FNumber", .exif, .both) {
            $0.camera.fNumber.map { rational($0) }.map { .rational($0.numerator, $0.denominator) }
        },
        ExifTag(0x8827, "ISOSpeedRatings", .exif, .both, units: "ISO") { $0.isoSpeed.map { .shorts([$0]) } },
        ExifTag(0x9000, "ExifVersion", .exif, .both) { _ in .undefined(Array("0231".utf8)) },
        ExifTag(0x9003, "DateTimeOriginal", .exif, .both, units: "local time") { .ascii($0.exifDateString) },
        ExifTag(0x9101, "ComponentsConfiguration", .exif, .jpeg) { _ in .undefined([1, 2, 3, 0]) },  // Y, Cb, Cr
        ExifTag(0x9206, "SubjectDistance", .exif, .both, units: "metres (0xFFFFFFFF/1 = infinity)") {
            $0.subjectDistanceRational.map { .rational($0.numerator, $0.denominator) }
        },
        ExifTag(0x920A, "FocalLength", .exif, .both, units: "millimetres") {
            $0.camera.focalLengthMillimetres.map { rational($0) }.map { .rational($0.numerator, $0.denominator) }
        },
        ExifTag(0x9286, "UserComment", .exif, .both) { .undefined($0.userComment) },
        ExifTag(0xA000, "FlashpixVersion", .exif, .jpeg) { _ in .undefined(Array("0100".utf8)) },
        ExifTag(0xA001, "ColorSpace", .exif, .jpeg) { _ in .short(1) },  // sRGB
        ExifTag(0xA002, "PixelXDimension", .exif, .jpeg, units: "pixels") { .long(UInt32(clamping: $0.size.width)) },
        ExifTag(0xA003, "PixelYDimension", .exif, .jpeg, units: "pixels") { .long(UInt32(clamping: $0.size.height)) },
        // The focal plane's resolution in this picture's pixels per centimetre: its width over the
        // width of the array area it shows (`imagedArea`: a cropped mode or a zoom shows less, a
        // binned mode counts its own pixels), from the sensor's pixel pitch.
        ExifTag(0xA20E, "FocalPlaneXResolution", .exif, .both, units: "pixels per centimetre") { exif in
            exif.focalPlaneMillimetres.map { rational(Double(exif.size.width) / ($0.width / 10)) }.map { .rational($0.numerator, $0.denominator) }
        },
        ExifTag(0xA20F, "FocalPlaneYResolution", .exif, .both, units: "pixels per centimetre") { exif in
            exif.focalPlaneMillimetres.map { rational(Double(exif.size.height) / ($0.height / 10)) }.map { .rational($0.numerator, $0.denominator) }
        },
        ExifTag(0xA210, "FocalPlaneResolutionUnit", .exif, .both) { $0.focalPlaneMillimetres == nil ? nil : .short(3) },  // centimetre
        ExifTag(0xA405, "FocalLengthIn35mmFilm", .exif, .both, units: "millimetres") {
            $0.focalLengthIn35mmFormat.map { .short(UInt16(clamping: $0)) }
        },
        ExifTag(0xA431, "BodySerialNumber", .exif, .jpeg) { $0.camera.serialNumber.map { .ascii($0) } },
    ]
}

extension CaptureExif {
    /// The tags of `directory` that `file` carries for this picture, with their values, in
    /// `ExifTag.all`'s order; tags without a value (nothing known) are left out.
    func exifFields(in directory: ExifTag.Directory, for file: ExifTag.Files) -> [(tag: ExifTag, value: ExifValue)] {
        ExifTag.all.compactMap { tag in
            guard tag.directory == directory, tag.files.contains(file), let value = tag.value(self) else { return nil }
            return (tag, value)
        }
    }
}
