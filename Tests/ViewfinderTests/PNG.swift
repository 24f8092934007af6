import Foundation
import Viewfinder

/// Minimal PNG for the reference images: writes 8-bit RGB (colour type 2) with a per-row filter
/// choice and the fixed-Huffman deflate in `Deflate`; reads back 8-bit RGB/RGBA non-interlaced
/// files whose IDAT uses stored or fixed-Huffman blocks.
enum PNG {
    struct Error: Swift.Error, CustomStringConvertible { var description: String }

    private static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    private static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    /// PNG bytes of an XRGB8888 canvas.
    static func encode(_ canvas: Canvas) -> [UInt8] {
        let w = canvas.width, h = canvas.height, rowBytes = w * 3
        var raw = [UInt8](); raw.reserveCapacity((rowBytes + 1) * h)
        var previous = [UInt8](repeating: 0, count: rowBytes)
        var row = previous
        for y in 0..<h {
            for x in 0..<w {
                let p = canvas.pixels[y * w + x]
                row[3 * x] = UInt8(truncatingIfNeeded: p >> 16)
                row[3 * x + 1] = UInt8(truncatingIfNeeded: p >> 8)
                row[3 * x + 2] = UInt8(truncatingIfNeeded: p)
            }
            // Filter 1 (Sub) or 2 (Up), whichever leaves smaller residuals; 0 (None) if neither helps.
            let sub = (0..<rowBytes).map { row[$0] &- ($0 >= 3 ? row[$0 - 3] : 0) }
            let up = (0..<rowBytes).map { row[$0] &- previous[$0] }
            func cost(_ r: [UInt8]) -> Int { r.reduce(0) { $0 + Int(Int8(bitPattern: $1).magnitude) } }
            let options: [(UInt8, [UInt8])] = [(0, row), (1, sub), (2, up)]
            let best = options.min { cost($0.1) < cost($1.1) } ?? (0, row)
            raw.append(best.0); raw += best.1
            previous = row
        }
        let header = be32(UInt32(w)) + be32(UInt32(h)) + [8, 2, 0, 0, 0]
        return signature + chunk("IHDR", header) + chunk("IDAT", Deflate.zlibCompress(raw)) + chunk("IEND", [])
    }

    /// The canvas in a PNG written by `encode` (or any 8-bit RGB/RGBA PNG with simple deflate).
    static func decode(_ bytes: [UInt8]) throws -> Canvas {
        guard bytes.count > 8, Array(bytes[0..<8]) == signature else { throw Error(description: "png: bad signature") }
        var p = 8, width = 0, height = 0, channels = 0
        var idat: [UInt8] = []
        func u32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        while p + 12 <= bytes.count {
            let length = u32(p), type = String(decoding: bytes[(p + 4)..<(p + 8)], as: UTF8.self)
            guard p + 12 + length <= bytes.count else { throw Error(description: "png: chunk \(type) overruns") }
            let data = Array(bytes[(p + 8)..<(p + 8 + length)])
            guard crc32(bytes[(p + 4)..<(p + 8 + length)]) == UInt32(u32(p + 8 + length)) else {
                throw Error(description: "png: CRC mismatch in \(type)")
            }
            switch type {
            case "IHDR":
                width = u32(p + 8); height = u32(p + 12)
                guard data.count == 13, data[8] == 8, data[12] == 0, [2, 6].contains(data[9]) else {
                    throw Error(description: "png: only 8-bit non-interlaced RGB/RGBA")
                }
                channels = data[9] == 2 ? 3 : 4
            case "IDAT": idat += data
            default: break
            }
            p += 12 + length
        }
        let raw = try Deflate.zlibDecompress(idat)
        let rowBytes = width * channels
        guard width > 0, raw.count == (rowBytes + 1) * height else { throw Error(description: "png: wrong data size") }
        var canvas = Canvas(size: .init(width: width, height: height))
        var previous = [UInt8](repeating: 0, count: rowBytes), row = previous
        for y in 0..<height {
            let base = y * (rowBytes + 1), filter = raw[base]
            for i in 0..<rowBytes {
                let a = i >= channels ? Int(row[i - channels]) : 0, b = Int(previous[i])
                let c = i >= channels ? Int(previous[i - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
                    predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: throw Error(description: "png: bad filter \(filter)")
                }
                row[i] = raw[base + 1 + i] &+ UInt8(truncatingIfNeeded: predictor)
            }
            for x in 0..<width {
                canvas.pixels[y * width + x] = Pixel.rgb(row[x * channels], row[x * channels + 1], row[x * channels + 2])
            }
            previous = row
        }
        return canvas
    }
}
