/// A lossless JPEG encoder: ITU-T T.81 (ISO/IEC 10918-1) process 14, Huffman-coded, predictor 1,
/// no point transform, one scan, no restart intervals. Written from the standard for DNG
/// Compression 7 tiles (no Debian bookworm library encodes lossless JPEG: libjpeg-turbo 2.1.5).
///
/// The frame is `components` interleaved components of `width / components` columns (H = V = 1,
/// so an MCU is one sample of each, in order, and a row of the frame is the row of samples as
/// given). A Bayer row R G R G … as 2 components puts each colour in its own component, so the
/// predictor's left neighbour (Ra) is the same colour.
enum LosslessJPEG {
    /// The largest code length T.81 allows (Annex C: BITS has 16 entries).
    static let maximumCodeLength = 16
    /// Difference categories SSSS 0...16 (T.81 Table H.2).
    static let categoryCount = 17

    /// The JPEG bytes (SOI … EOI) of `height` rows of `width` samples each, every sample below
    /// 2^`precision` (2...16). `width` must be a multiple of `components` (1...4).
    static func encode(_ samples: UnsafeBufferPointer<UInt16>, width: Int, height: Int, components: Int,
                       precision: Int) -> [UInt8] {
        precondition(width > 0 && height > 0 && components >= 1 && components <= 4 && width % components == 0
                     && samples.count >= width * height && (2...16).contains(precision))
        // Pass 1: how often each difference category occurs (T.81 K.2 needs the frequencies).
        var frequencies = [Int](repeating: 0, count: categoryCount)
        forEachDifference(samples, width: width, height: height, components: components, precision: precision) { d in
            frequencies[category(d)] += 1
        }
        let table = HuffmanTable(frequencies: frequencies)

        var header: [UInt8] = [0xFF, 0xD8]  // SOI (B.2.1)
        // DHT (B.2.4.2): table class 0 (DC/lossless), identifier 0.
        header += [0xFF, 0xC4]
        appendUInt16(&header, 2 + 1 + 16 + table.values.count)
        header.append(0x00)
        header += table.bits.map { UInt8($0) }
        header += table.values.map { UInt8($0) }
        // SOF3 (B.2.2): lossless, Huffman; P, Y, X, Nf, then Ci, Hi|Vi, Tq per component.
        header += [0xFF, 0xC3]
        appendUInt16(&header, 8 + 3 * components)
        header.append(UInt8(precision))
        appendUInt16(&header, height)
        appendUInt16(&header, width / components)
        header.append(UInt8(components))
        for c in 0..<components { header += [UInt8(c + 1), 0x11, 0x00] }
        // SOS (B.2.3): Ns, Cs and Td|Ta per component (all table 0), Ss = predictor 1, Se = 0, Ah|Al = Pt 0.
        header += [0xFF, 0xDA]
        appendUInt16(&header, 6 + 2 * components)
        header.append(UInt8(components))
        for c in 0..<components { header += [UInt8(c + 1), 0x00] }
        header += [0x01, 0x00, 0x00]

        // Entropy-coded segment (H.1.2, F.1.2.3 for the bits, B.1.1.5 for 0xFF stuffing). Its size is
        // known from the frequencies: room for every byte stuffed, the padding byte and EOI.
        let bits = (0..<categoryCount).reduce(0) { $0 + frequencies[$1] * (table.lengths[$1] + ($1 == 16 ? 0 : $1)) }
        let capacity = header.count + (bits + 7) / 8 * 2 + 4
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            guard let base = buffer.baseAddress else { count = 0; return }
            for (i, byte) in header.enumerated() { base[i] = byte }
            var writer = BitWriter(base, at: header.count)
            let codes = table.codes, lengths = table.lengths
            forEachDifference(samples, width: width, height: height, components: components, precision: precision) { d in
                let ssss = category(d)
                // H.1.2.2: SSSS additional bits; negative differences as d − 1 in the low SSSS bits; none for 16.
                let extraBits = ssss == 16 ? 0 : ssss
                let extra = UInt64(truncatingIfNeeded: d < 0 ? d - 1 : d) & ((1 << UInt64(extraBits)) - 1)
                writer.put(UInt64(codes[ssss]) << UInt64(extraBits) | extra, count: lengths[ssss] + extraBits)
            }
            var end = writer.finish()
            base[end] = 0xFF; base[end + 1] = 0xD9  // EOI (B.2.1)
            end += 2
            count = end
        }
    }

    /// Calls `body` with each sample's difference from its prediction, modulo 2^16 as
    /// −32767...32768 (T.81 H.1.2.1): predictor 1 is Ra (the same component's left neighbour);
    /// the first sample of a row takes Rb (the one above), and of the first row 2^(P−1).
    @inline(__always)
    private static func forEachDifference(_ s: UnsafeBufferPointer<UInt16>, width: Int, height: Int, components: Int,
                                          precision: Int, _ body: (Int) -> Void) {
        let initial = 1 << (precision - 1)
        for y in 0..<height {
            let row = y * width
            for x in 0..<width {
                let prediction: Int
                if x >= components { prediction = Int(s[row + x - components]) }
                else if y > 0 { prediction = Int(s[row - width + x]) }
                else { prediction = initial }
                var d = (Int(s[row + x]) - prediction) & 0xFFFF
                if d > 32768 { d -= 65536 }
                body(d)
            }
        }
    }

    /// SSSS of a difference: the bits of |d| (T.81 Table H.2), 16 for 32768.
    @inline(__always)
    static func category(_ d: Int) -> Int {
        d == 0 ? 0 : Int.bitWidth - d.magnitude.leadingZeroBitCount
    }

    /// A Huffman table for the 17 difference categories, optimal for given frequencies and
    /// limited to 16-bit codes (T.81 Annex K.2), with the codes of Annex C.
    struct HuffmanTable {
        /// BITS: how many codes of each length 1...16.
        var bits: [Int]
        /// HUFFVAL: the categories in order of code length.
        var values: [Int]
        /// EHUFCO / EHUFSI (C.2, Figure C.3): code and its length per category (0 when unused).
        var codes: [UInt32]
        var lengths: [Int]

        init(frequencies: [Int]) {
            // Figure K.1 (Code_size): one reserved symbol of frequency 1, so no code is all 1-bits.
            let reserved = frequencies.count
            var freq = frequencies + [1]
            var codeSize = [Int](repeating: 0, count: freq.count)
            var others = [Int](repeating: -1, count: freq.count)
            while true {
                // V1: least frequency > 0, the largest symbol on a tie; V2: the next least.
                var v1 = -1, v2 = -1
                for v in freq.indices where freq[v] > 0 && (v1 < 0 || freq[v] <= freq[v1]) { v1 = v }
                for v in freq.indices where v != v1 && freq[v] > 0 && (v2 < 0 || freq[v] <= freq[v2]) { v2 = v }
                if v2 < 0 { break }
                freq[v1] += freq[v2]
                freq[v2] = 0
                codeSize[v1] += 1
                while others[v1] >= 0 { v1 = others[v1]; codeSize[v1] += 1 }
                others[v1] = v2
                codeSize[v2] += 1
                while others[v2] >= 0 { v2 = others[v2]; codeSize[v2] += 1 }
            }
            // Figure K.2 (Count_BITS), then K.3 (Adjust_BITS) to at most 16 bits and drop the reserved code.
            var counts = [Int](repeating: 0, count: 33)
            for size in codeSize where size > 0 { counts[size] += 1 }
            var i = 32
            while i > maximumCodeLength {
                while counts[i] > 0 {
                    var j = i - 2
                    while counts[j] == 0 { j -= 1 }
                    counts[i] -= 2
                    counts[i - 1] += 1
                    counts[j + 1] += 2
                    counts[j] -= 1
                }
                i -= 1
            }
            while counts[i] == 0 { i -= 1 }
            counts[i] -= 1
            bits = Array(counts[1...maximumCodeLength])
            // Figure K.4 (Sort_input): symbols by code size, then by value; the reserved one is last.
            values = (1...32).flatMap { size in codeSize.indices.filter { codeSize[$0] == size && $0 != reserved } }
            // C.2 (Figures C.1–C.3): sizes from BITS, canonical codes, then per-symbol tables.
            codes = [UInt32](repeating: 0, count: frequencies.count)
            lengths = [Int](repeating: 0, count: frequencies.count)
            var code: UInt32 = 0, k = 0
            for length in 1...maximumCodeLength {
                for _ in 0..<bits[length - 1] {
                    codes[values[k]] = code
                    lengths[values[k]] = length
                    code += 1
                    k += 1
                }
                code <<= 1
            }
        }
    }

    /// Packs codes most significant bit first into memory with room for them, stuffing a 0x00
    /// after every 0xFF byte (B.1.1.5) and padding the last byte with 1-bits (F.1.2.3).
    struct BitWriter {
        private let base: UnsafeMutablePointer<UInt8>
        private var position: Int
        private var accumulator: UInt64 = 0
        private var count = 0

        init(_ base: UnsafeMutablePointer<UInt8>, at position: Int) { self.base = base; self.position = position }

        /// Appends the low `count` (≤ 32) bits of `bits`.
        @inline(__always)
        mutating func put(_ bits: UInt64, count n: Int) {
            accumulator = accumulator << UInt64(n) | bits
            count += n
            while count >= 8 {
                count -= 8
                let byte = UInt8(truncatingIfNeeded: accumulator >> UInt64(count))
                base[position] = byte
                position += 1
                if byte == 0xFF { base[position] = 0x00; position += 1 }
            }
        }

        /// Pads the last byte; returns the position after it.
        mutating func finish() -> Int {
            if count > 0 { put((1 << UInt64(8 - count)) - 1, count: 8 - count) }
            return position
        }
    }
}

private func appendUInt16(_ bytes: inout [UInt8], _ v: Int) {
    bytes += [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
}
