/// Decodes the Raspberry Pi ISP's compressed Bayer formats (libcamera `RGGB_PISP_COMP1` and the
/// other orders, `MONO_PISP_COMP1`; V4L2 'PC1R', 'PC1G', 'PC1g', 'PC1B', 'PC1M') as the Linux
/// kernel's format documentation describes them: Documentation/userspace-api/media/v4l/
/// pixfmt-srggb8-pisp-comp.rst, "Raspberry Pi PiSP compressed 8-bit Bayer formats". Section names
/// below are that page's paragraphs.
///
/// What the page leaves out of band, and what is taken here:
/// - Which compression mode a format uses: COMP1 is read as Mode 1 (the quantisation and delta
///   scheme, "up to 12 significant bits"), the one the page describes in full (rpicam-apps' DNG
///   writer assumes the same). COMP2 (Mode 2's companding, whose chords the page does not give)
///   is refused in words.
/// - The black-level offset subtracted before coding: `offset16`, 2048 on the 16-bit scale by
///   default, the offset libcamera's PiSP pipeline uses for all compressed buffers.
/// - FSD (full-scale data) is taken as 65536: decoded samples are on the 16-bit scale, multiples of
///   16 (12 significant bits), plus the offset, saturating at 65535.
public enum PiSPCompression {
    /// The offset libcamera's PiSP pipeline uses for compressed buffers, 16-bit scale.
    public static let defaultOffset16 = 2048
    /// "Each block of 8 horizontally-contiguous pixels is coded using 8 bytes."
    public static let pixelsPerBlock = 8

    /// Bytes of one row of `width` pixels: "each scanline is padded to a multiple of 8 pixels wide".
    public static func rowBytes(width: Int) -> Int { (width + pixelsPerBlock - 1) / pixelsPerBlock * pixelsPerBlock }

    /// Decodes rows `rows` of `width` pixels from `source` (rows `stride` bytes apart) into the
    /// same rows of `destination` (`width` samples a row), 16-bit scale. The caller checks that
    /// `source` holds `stride × (last row) + rowBytes(width)` bytes.
    static func decode(_ source: UnsafeRawBufferPointer, width: Int, rows: Range<Int>, stride: Int,
                       offset16: Int = defaultOffset16, into destination: UnsafeMutableBufferPointer<UInt16>) {
        guard let base = source.baseAddress, let out = destination.baseAddress else { return }
        let table = offset16 == defaultOffset16 ? defaultSamples : samples(offset16: offset16)
        table.withUnsafeBufferPointer { table in
            guard let t = table.baseAddress else { return }
            for y in rows {
                let row = base + y * stride, line = out + y * width
                var x = 0
                while x < width {
                    // "Separated into even and odd phases of 4 pixels, coded independently by
                    // 32-bit words at successive locations in memory" (little-endian words).
                    let e = tableIndices(UInt32(littleEndian: row.loadUnaligned(fromByteOffset: x, as: UInt32.self)))
                    let o = tableIndices(UInt32(littleEndian: row.loadUnaligned(fromByteOffset: x + 4, as: UInt32.self)))
                    if x + pixelsPerBlock <= width {
                        for k in 0..<4 { line[x + 2 * k] = t[e[k]]; line[x + 2 * k + 1] = t[o[k]] }
                    } else {
                        for k in 0..<(width - x) { line[x + k] = t[k & 1 == 0 ? e[k / 2] : o[k / 2]] }
                    }
                    x += pixelsPerBlock
                }
            }
        }
    }

    /// Every word's four levels as indices into a sample table: mode × 1024 + level (levels of
    /// a valid word stay under 640; masked so no word reads outside the table).
    @inline(__always)
    static func tableIndices(_ word: UInt32) -> SIMD4<Int> {
        // "The two LS bits of each 32-bit word give its quantization mode."
        let mode = Int(word & 3)
        let q = mode == 3 ? escapeLevels(word) : deltaLevels(word, mode: mode)
        return SIMD4(repeating: mode << 10) | (q & 1023)
    }

    /// The decoded sample of every (mode, level): dequantised, plus the offset, saturated.
    static func samples(offset16: Int) -> [UInt16] {
        (0..<4096).map { sample(dequantise($0 & 1023, mode: $0 >> 10), offset16: offset16) }
    }
    private static let defaultSamples = samples(offset16: defaultOffset16)

    /// A dequantised level plus the offset, saturated to 16 bits ("level 175 represents values
    /// very close to FSD and may require saturating arithmetic to decode").
    @inline(__always)
    static func sample(_ level: Int, offset16: Int) -> UInt16 { UInt16(min(max(level + offset16, 0), 0xFFFF)) }

    /// The four values (16-bit scale, before the offset) of one 32-bit word, in pixel order.
    static func decodeWord(_ word: UInt32) -> SIMD4<Int> {
        let mode = Int(word & 3)
        let q = mode == 3 ? escapeLevels(word) : deltaLevels(word, mode: mode)
        return SIMD4(dequantise(q[0], mode: mode), dequantise(q[1], mode: mode),
                     dequantise(q[2], mode: mode), dequantise(q[3], mode: mode))
    }

    /// Quantisation modes 0–2: "fields of 2, 9, 7, 7, 7 bits respectively are packed in
    /// little-endian order": mode, the inner pair's 9-bit and 7-bit fields, then the outer
    /// samples q0 and q3.
    @inline(__always)
    static func deltaLevels(_ word: UInt32, mode: Int) -> SIMD4<Int> {
        let field9 = Int(word >> 2 & 511), field7 = Int(word >> 11 & 127)
        let outer0 = Int(word >> 18 & 127), outer3 = Int(word >> 25 & 127)
        var q1: Int, q2: Int
        if mode == 2 && field9 >= 384 {
            // "In quantization mode 2 where the middle two samples have quantized values (q1,q2)
            // both in the range [384..511], they are coded using 9 bits for q1 followed by 7 bits
            // for (q2 & 127)." A MIN(q1,q2) of 384 or more means both are there (mode 2 has 512 levels).
            q1 = field9
            q2 = 384 | field7
        } else {
            // "A 9-bit field encodes MIN(q1,q2) ... and a 7-bit field encodes (q2-q1+64)."
            let difference = field7 - 64
            q1 = difference >= 0 ? field9 : field9 - difference
            q2 = difference >= 0 ? field9 + difference : field9
        }
        // "Each of the outer samples (q0,q3) is encoded using a 7-bit field based on its inner
        // neighbour": (q0-384) in mode 2 when the neighbour is in [448..511], else (q0-MAX(0,q1-64)).
        func base(_ inner: Int) -> Int { mode == 2 && inner >= 448 ? 384 : max(0, inner - 64) }
        return SIMD4(base(q1) + outer0, q1, q2, base(q2) + outer3)
    }

    /// Quantisation mode 3, the "7.5-bit" escape: "three fields of 2, 15, 15 bits", the first
    /// 15-bit field for (q0,q1), the second for (q2,q3), each "2816*(q0>>4) + 16*q1 + (q0&15)".
    @inline(__always)
    static func escapeLevels(_ word: UInt32) -> SIMD4<Int> {
        func pair(_ field: Int) -> (Int, Int) {
            let high = field / 2816, rest = field % 2816
            return (high << 4 | rest & 15, rest >> 4)
        }
        let (q0, q1) = pair(Int(word >> 2 & 0x7FFF)), (q2, q3) = pair(Int(word >> 17 & 0x7FFF))
        return SIMD4(q0, q1, q2, q3)
    }

    /// A level's value on the 16-bit scale (FSD = 65536):
    /// - mode 0: "the lowest 321 quantization levels are multiples of FSD/4096 and the remaining
    ///   levels are successive multiples of FSD/2048";
    /// - modes 1 and 2: "step sizes of FSD/1024 and FSD/512";
    /// - mode 3: "the lowest 95 levels are multiples of FSD/256 and the remaining levels are
    ///   multiples of FSD/128".
    @inline(__always)
    static func dequantise(_ q: Int, mode: Int) -> Int {
        switch mode {
        case 0: return q <= 320 ? q * 16 : 320 * 16 + (q - 320) * 32
        case 1: return q * 64
        case 2: return q * 128
        default: return q <= 94 ? q * 256 : 94 * 256 + (q - 94) * 512
        }
    }

    /// Half the step of each quantisation mode's coarsest levels, 16-bit scale: the most a sample
    /// coded in that mode can be off by ("rounding to the nearest level"), for tests and docs.
    public static func largestError16(mode: Int) -> Int {
        switch mode {
        case 0: return 16
        case 1: return 32
        case 2: return 64
        default: return 256
        }
    }
}
