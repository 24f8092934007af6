/// A small zlib (RFC 1950/1951) codec for the test PNGs: the encoder does LZ77 with one hash
/// candidate per position and the fixed Huffman code; the decoder reads stored and fixed-Huffman
/// blocks (what this encoder writes, and stored blocks from simple tools), not dynamic ones.
enum Deflate {
    struct Error: Swift.Error, CustomStringConvertible { var description: String }

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                             67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                               1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
                                12, 12, 13, 13]

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var i = 0
        while i < data.count {
            let end = min(i + 5552, data.count)
            while i < end { a &+= UInt32(data[i]); b &+= a; i += 1 }
            a %= 65521; b %= 65521
        }
        return b << 16 | a
    }

    // MARK: Encoder

    private struct BitWriter {
        var bytes: [UInt8] = []
        var bitBuffer: UInt64 = 0
        var bitCount = 0
        /// Appends the low `count` bits of `value`, least significant first.
        mutating func write(_ value: Int, _ count: Int) {
            bitBuffer |= UInt64(value) << UInt64(bitCount)
            bitCount += count
            while bitCount >= 8 { bytes.append(UInt8(truncatingIfNeeded: bitBuffer)); bitBuffer >>= 8; bitCount -= 8 }
        }
        /// Appends a Huffman code, most significant bit first.
        mutating func writeCode(_ code: Int, _ length: Int) {
            var reversed = 0
            for i in 0..<length { reversed |= ((code >> i) & 1) << (length - 1 - i) }
            write(reversed, length)
        }
        mutating func flush() { if bitCount > 0 { write(0, 8 - bitCount) } }
    }

    private static func writeLiteralLength(_ s: Int, _ w: inout BitWriter) {
        switch s {
        case 0...143: w.writeCode(0x30 + s, 8)
        case 144...255: w.writeCode(0x190 + s - 144, 9)
        case 256...279: w.writeCode(s - 256, 7)
        default: w.writeCode(0xC0 + s - 280, 8)
        }
    }

    private static func writeMatch(length: Int, distance: Int, _ w: inout BitWriter) {
        var li = lengthBase.count - 1
        while lengthBase[li] > length { li -= 1 }
        writeLiteralLength(257 + li, &w)
        w.write(length - lengthBase[li], lengthExtra[li])
        var di = distanceBase.count - 1
        while distanceBase[di] > distance { di -= 1 }
        w.writeCode(di, 5)
        w.write(distance - distanceBase[di], distanceExtra[di])
    }

    /// zlib stream of `data`: header, one final fixed-Huffman block, Adler-32.
    static func zlibCompress(_ data: [UInt8]) -> [UInt8] {
        var w = BitWriter()
        w.bytes.reserveCapacity(data.count / 4)
        w.bytes += [0x78, 0x01]
        w.write(1, 1); w.write(1, 2)  // BFINAL, BTYPE = fixed Huffman
        var head = [Int](repeating: -1, count: 1 << 15)
        let n = data.count
        var i = 0
        data.withUnsafeBufferPointer { d in
            func hash(_ p: Int) -> Int { (Int(d[p]) << 10 ^ Int(d[p + 1]) << 5 ^ Int(d[p + 2])) & 0x7FFF }
            while i < n {
                var best = 0, bestDistance = 0
                if i + 2 < n {
                    let h = hash(i), candidate = head[h]
                    head[h] = i
                    if candidate >= 0, i - candidate <= 32768 {
                        var l = 0
                        while l < 258, i + l < n, d[candidate + l] == d[i + l] { l += 1 }
                        if l >= 3 { best = l; bestDistance = i - candidate }
                    }
                }
                if best >= 3 {
                    writeMatch(length: best, distance: bestDistance, &w)
                    for p in (i + 1)..<min(i + best, n - 2) { head[hash(p)] = p }
                    i += best
                } else {
                    writeLiteralLength(Int(d[i]), &w)
                    i += 1
                }
            }
        }
        writeLiteralLength(256, &w)
        w.flush()
        let adler = adler32(data)
        w.bytes += [UInt8(adler >> 24), UInt8(truncatingIfNeeded: adler >> 16),
                    UInt8(truncatingIfNeeded: adler >> 8), UInt8(truncatingIfNeeded: adler)]
        return w.bytes
    }

    // MARK: Decoder

    private struct BitReader {
        let bytes: [UInt8]
        var position = 0, bit = 0
        init(_ bytes: [UInt8], start: Int) { self.bytes = bytes; position = start }
        mutating func read(_ count: Int) throws -> Int {
            var v = 0
            for i in 0..<count {
                guard position < bytes.count else { throw Error(description: "deflate: truncated stream") }
                v |= Int((bytes[position] >> UInt8(bit)) & 1) << i
                bit += 1
                if bit == 8 { bit = 0; position += 1 }
            }
            return v
        }
        mutating func readCodeBit(_ code: Int) throws -> Int { code << 1 | (try read(1)) }
        mutating func alignToByte() { if bit != 0 { bit = 0; position += 1 } }
    }

    private static func readFixedSymbol(_ r: inout BitReader) throws -> Int {
        var code = 0
        for _ in 0..<7 { code = try r.readCodeBit(code) }
        if code <= 23 { return 256 + code }
        code = try r.readCodeBit(code)
        if (0x30...0xBF).contains(code) { return code - 0x30 }
        if (0xC0...0xC7).contains(code) { return 280 + code - 0xC0 }
        code = try r.readCodeBit(code)
        return 144 + code - 0x190
    }

    /// The bytes of a zlib stream written with stored or fixed-Huffman blocks; checks Adler-32.
    static func zlibDecompress(_ z: [UInt8]) throws -> [UInt8] {
        guard z.count >= 6, z[0] & 0x0F == 8, (Int(z[0]) << 8 | Int(z[1])) % 31 == 0 else {
            throw Error(description: "zlib: bad header")
        }
        var r = BitReader(z, start: 2)
        var out: [UInt8] = []
        var final = 0
        repeat {
            final = try r.read(1)
            switch try r.read(2) {
            case 0:
                r.alignToByte()
                let len = try r.read(16)
                _ = try r.read(16)
                guard r.position + len <= z.count else { throw Error(description: "deflate: stored block overruns") }
                out += z[r.position..<(r.position + len)]
                r.position += len
            case 1:
                while true {
                    let s = try readFixedSymbol(&r)
                    if s < 256 { out.append(UInt8(s)); continue }
                    if s == 256 { break }
                    guard s - 257 < lengthBase.count else { throw Error(description: "deflate: bad length code") }
                    let length = lengthBase[s - 257] + (try r.read(lengthExtra[s - 257]))
                    var dc = 0
                    for _ in 0..<5 { dc = try r.readCodeBit(dc) }
                    guard dc < distanceBase.count else { throw Error(description: "deflate: bad distance code") }
                    let distance = distanceBase[dc] + (try r.read(distanceExtra[dc]))
                    guard distance <= out.count else { throw Error(description: "deflate: distance too far") }
                    let start = out.count - distance
                    for k in 0..<length { out.append(out[start + k]) }
                }
            default:
                throw Error(description: "deflate: dynamic-Huffman blocks not supported by this test decoder")
            }
        } while final == 0
        r.alignToByte()
        guard r.position + 4 <= z.count else { throw Error(description: "zlib: missing Adler-32") }
        let stored = z[r.position..<(r.position + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard stored == adler32(out) else { throw Error(description: "zlib: Adler-32 mismatch") }
        return out
    }
}
