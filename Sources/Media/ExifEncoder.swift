/// Our own small TIFF/EXIF encoder for the JPEG APP1 segment: "Exif\0\0", then a little-endian
/// TIFF header, IFD0 with the ExifIFD pointer, and the EXIF IFD. The tags and their values come
/// from `ExifTag.all` (the list the DNG writer uses too): every tag `exiftool -validate` requires
/// of a JPEG. Entries are sorted by tag; values over 4 bytes follow each IFD.
public enum ExifEncoder {
    /// The APP1 payload (without the FFE1 marker and length, which libjpeg writes).
    public static func app1Payload(_ exif: CaptureExif) -> [UInt8] {
        var ifd0 = IFD(), sub = IFD()
        for (tag, value) in exif.exifFields(in: .primary, for: .jpeg) { ifd0.add(tag.id, value) }
        for (tag, value) in exif.exifFields(in: .exif, for: .jpeg) { sub.add(tag.id, value) }

        // Layout: header (8) | IFD0 (+ its data) | EXIF IFD (+ its data). Offsets are from the header.
        let ifd0Offset = 8
        ifd0.add(exifIFDPointer, .long(0))  // patched below once IFD0's size is known
        let exifOffset = ifd0Offset + ifd0.encodedSize
        ifd0.add(exifIFDPointer, .long(UInt32(exifOffset)))
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        appendUInt32(&tiff, UInt32(ifd0Offset))
        tiff += ifd0.encoded(at: ifd0Offset)
        tiff += sub.encoded(at: exifOffset)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// ExifIFD (0x8769): IFD0's pointer to the EXIF IFD.
    static let exifIFDPointer: UInt16 = 0x8769

    /// One image file directory being built.
    struct IFD {
        private var entries: [(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])] = []

        /// Adds (or replaces) `tag` with `value`, little-endian, in the TIFF type of its case.
        mutating func add(_ tag: UInt16, _ value: ExifValue) {
            var b: [UInt8] = []
            switch value {
            case .ascii(let s):
                b = Array(s.utf8.map { $0 == 0 ? 0x20 : $0 }) + [0]
                add(tag, 2, UInt32(b.count), b)
            case .short(let v):
                add(tag, 3, 1, [UInt8(v & 0xFF), UInt8(v >> 8)])
            case .shorts(let vs):
                add(tag, 3, UInt32(vs.count), vs.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
            case .long(let v):
                appendUInt32(&b, v); add(tag, 4, 1, b)
            case .rational(let numerator, let denominator):
                appendUInt32(&b, numerator); appendUInt32(&b, denominator); add(tag, 5, 1, b)
            case .undefined(let bytes):
                add(tag, 7, UInt32(bytes.count), bytes)
            }
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
