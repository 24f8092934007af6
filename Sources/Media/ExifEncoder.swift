/// Our own small TIFF/EXIF encoder for the JPEG APP1 segment: "Exif\0\0", then a little-endian
/// TIFF header, IFD0 (Make, Model, Orientation, resolution, Software, DateTime,
/// ImageDescription, ExifIFD pointer) and an EXIF IFD (exposure and ISO when known, f-number, date, subject
/// distance, user comment, focal length, pixel dimensions): every tag `exiftool -validate`
/// requires of a JPEG. Entries are sorted by tag; values over 4 bytes follow each IFD.
public enum ExifEncoder {
    /// The APP1 payload (without the FFE1 marker and length, which libjpeg writes).
    public static func app1Payload(_ exif: CaptureExif) -> [UInt8] {
        var ifd0 = IFD()
        ifd0.ascii(0x010E, exif.imageDescription)
        ifd0.ascii(0x010F, exif.camera.make)
        ifd0.ascii(0x0110, exif.camera.model)
        ifd0.short(0x0112, 1)  // Orientation: top-left
        ifd0.rational(0x011A, (72, 1))  // XResolution, YResolution, ResolutionUnit (inch): EXIF requires them
        ifd0.rational(0x011B, (72, 1))
        ifd0.short(0x0128, 2)
        ifd0.short(0x0213, 1)  // YCbCrPositioning: centred (libjpeg's subsampling)
        ifd0.ascii(0x0131, "Tripod")
        ifd0.ascii(0x0132, exif.exifDateString)

        var sub = IFD()
        if let t = exif.exposureTimeRational { sub.rational(0x829A, t) }
        if let f = exif.camera.fNumber { sub.rational(0x829D, rational(f)) }
        if let iso = exif.isoSpeed { sub.short(0x8827, iso) }
        sub.undefined(0x9000, Array("0231".utf8))
        sub.ascii(0x9003, exif.exifDateString)
        sub.undefined(0x9101, [1, 2, 3, 0])  // ComponentsConfiguration: Y, Cb, Cr
        if let d = exif.subjectDistanceRational { sub.rational(0x9206, d) }
        sub.undefined(0x9286, exif.userComment)
        if let f = exif.camera.focalLengthMillimetres { sub.rational(0x920A, rational(f)) }
        sub.undefined(0xA000, Array("0100".utf8))  // FlashpixVersion
        sub.short(0xA001, 1)  // ColorSpace: sRGB
        sub.long(0xA002, UInt32(clamping: exif.size.width))
        sub.long(0xA003, UInt32(clamping: exif.size.height))

        // Layout: header (8) | IFD0 (+ its data) | EXIF IFD (+ its data). Offsets are from the header.
        let ifd0Offset = 8
        ifd0.long(0x8769, 0)  // ExifIFD pointer, patched below once IFD0's size is known
        let exifOffset = ifd0Offset + ifd0.encodedSize
        ifd0.setLong(0x8769, UInt32(exifOffset))
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        appendUInt32(&tiff, UInt32(ifd0Offset))
        tiff += ifd0.encoded(at: ifd0Offset)
        tiff += sub.encoded(at: exifOffset)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// One image file directory being built.
    struct IFD {
        private var entries: [(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])] = []

        mutating func ascii(_ tag: UInt16, _ s: String) {
            let bytes = Array(s.utf8.map { $0 == 0 ? 0x20 : $0 }) + [0]
            add(tag, 2, UInt32(bytes.count), bytes)
        }
        mutating func short(_ tag: UInt16, _ v: UInt16) { add(tag, 3, 1, [UInt8(v & 0xFF), UInt8(v >> 8)]) }
        mutating func long(_ tag: UInt16, _ v: UInt32) { var b: [UInt8] = []; appendUInt32(&b, v); add(tag, 4, 1, b) }
        mutating func rational(_ tag: UInt16, _ r: (numerator: UInt32, denominator: UInt32)) {
            var b: [UInt8] = []; appendUInt32(&b, r.numerator); appendUInt32(&b, r.denominator); add(tag, 5, 1, b)
        }
        mutating func undefined(_ tag: UInt16, _ bytes: [UInt8]) { add(tag, 7, UInt32(bytes.count), bytes) }

        mutating func setLong(_ tag: UInt16, _ v: UInt32) {
            guard let i = entries.firstIndex(where: { $0.tag == tag }) else { return }
            var b: [UInt8] = []; appendUInt32(&b, v); entries[i].value = b
        }

        private mutating func add(_ tag: UInt16, _ type: UInt16, _ count: UInt32, _ value: [UInt8]) {
            entries.removeAll { $0.tag == tag }
            entries.append((tag, type, count, value))
            entries.sort { $0.tag < $1.tag }
        }

        /// Count (2) + 12 per entry + next-IFD offset (4) + out-of-line values (each padded to even).
        var encodedSize: Int {
            2 + 12 * entries.count + 4 + entries.reduce(0) { $0 + ($1.value.count > 4 ? ($1.value.count + 1) & ~1 : 0) }
        }

        /// The IFD bytes when placed at `offset` from the TIFF header; next-IFD offset 0.
        func encoded(at offset: Int) -> [UInt8] {
            var out: [UInt8] = [UInt8(entries.count & 0xFF), UInt8(entries.count >> 8)]
            var data: [UInt8] = []
            let dataStart = offset + 2 + 12 * entries.count + 4
            for e in entries {
                out += [UInt8(e.tag & 0xFF), UInt8(e.tag >> 8), UInt8(e.type & 0xFF), UInt8(e.type >> 8)]
                appendUInt32(&out, e.count)
                if e.value.count <= 4 {
                    out += e.value + Array(repeating: 0, count: 4 - e.value.count)
                } else {
                    appendUInt32(&out, UInt32(dataStart + data.count))
                    data += e.value
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            appendUInt32(&out, 0)
            return out + data
        }
    }
}

func appendUInt32(_ bytes: inout [UInt8], _ v: UInt32) {
    bytes += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
}
