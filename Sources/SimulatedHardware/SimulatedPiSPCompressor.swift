/// The simulator's stand-in for the Pi 5 front end's raw compression, `*_PISP_COMP1`, written
/// from the coding the Linux kernel documents (Documentation/userspace-api/media/v4l/
/// pixfmt-srggb8-pisp-comp.rst): Mode 1, 8 pixels in two little-endian 32-bit words (even
/// pixels, then odd), each word in quantisation mode 0, 1 or 2 (the finest whose fields hold
/// the four values) or else the mode-3 escape. An offset of 2048 (16-bit scale) is taken off
/// first, the offset libcamera's PiSP pipeline uses for compressed buffers. Not the hardware's
/// own choices: the kernel describes the format, not how the encoder picks a mode; Tripod's
/// decoder (Media's `PiSPCompression`) reads any valid choice.
enum SimulatedPiSPCompressor {
    static let offset16 = 2048

    /// Bytes of one row: 8 bytes per 8 pixels, the row padded to a multiple of 8 pixels.
    static func rowBytes(width: Int) -> Int { (width + 7) / 8 * 8 }

    /// Compresses `samples` (`width × height`, shifted up by `shift` to the 16-bit scale) into
    /// rows `stride` bytes apart; a row's pixels past `width` repeat its last pixel.
    static func compress(_ samples: UnsafeBufferPointer<UInt16>, width: Int, height: Int, shift: Int, stride: Int,
                         into bytes: UnsafeMutablePointer<UInt8>) {
        for y in 0..<height {
            var x = 0
            while x < width {
                var values = SIMD8<Int>()
                for k in 0..<8 {
                    let v16 = Int(samples[y * width + min(x + k, width - 1)]) << shift
                    values[k] = max(v16 - offset16, 0)
                }
                let even = word(SIMD4(values[0], values[2], values[4], values[6]))
                let odd = word(SIMD4(values[1], values[3], values[5], values[7]))
                let at = UnsafeMutableRawPointer(bytes + y * stride + x)
                at.storeBytes(of: even.littleEndian, as: UInt32.self)
                at.storeBytes(of: odd.littleEndian, toByteOffset: 4, as: UInt32.self)
                x += 8
            }
        }
    }

    /// One word for four values (16-bit scale, offset already off).
    static func word(_ v: SIMD4<Int>) -> UInt32 {
        for mode in 0...2 {
            if let coded = deltaWord(v, mode: mode) { return coded }
        }
        return escapeWord(v)
    }

    /// The nearest level of `value` in quantisation mode `mode` (0…2).
    static func level(_ value: Int, mode: Int) -> Int {
        switch mode {
        case 0: return value < 5120 + 16 ? min((value + 8) / 16, 320) : (value + 16) / 32 + 160
        case 1: return (value + 32) / 64
        default: return (value + 64) / 128
        }
    }

    /// Modes 0–2: the inner pair as MIN and difference (or mode 2's high pair as q1 and q2 & 127),
    /// the outer samples relative to their inner neighbours; nil when a field cannot hold its value.
    static func deltaWord(_ v: SIMD4<Int>, mode: Int) -> UInt32? {
        let q0 = level(v[0], mode: mode), q1 = level(v[1], mode: mode)
        let q2 = level(v[2], mode: mode), q3 = level(v[3], mode: mode)
        if mode == 2, max(max(q0, q1), max(q2, q3)) > 511 { return nil }
        let field9: Int, field7: Int
        if mode == 2, q1 >= 384, q2 >= 384 {
            field9 = q1; field7 = q2 & 127
        } else {
            field9 = min(q1, q2); field7 = q2 - q1 + 64
        }
        func base(_ inner: Int) -> Int { mode == 2 && inner >= 448 ? 384 : max(0, inner - 64) }
        let outer0 = q0 - base(q1), outer3 = q3 - base(q2)
        guard (0...511).contains(field9), (0...127).contains(field7), (0...127).contains(outer0), (0...127).contains(outer3) else {
            return nil
        }
        return UInt32(mode) | UInt32(field9) << 2 | UInt32(field7) << 11 | UInt32(outer0) << 18 | UInt32(outer3) << 25
    }

    /// Mode 3: each value to the nearest of 176 levels, pairs coded as 2816·(q0 >> 4) + 16·q1 + (q0 & 15).
    static func escapeWord(_ v: SIMD4<Int>) -> UInt32 {
        func level(_ value: Int) -> Int {
            value < 24064 + 256 ? min((value + 128) / 256, 94) : min((value + 256) / 512 + 47, 175)
        }
        func pair(_ a: Int, _ b: Int) -> UInt32 {
            let qa = level(a), qb = level(b)
            return UInt32(2816 * (qa >> 4) + 16 * qb + (qa & 15))
        }
        return 3 | pair(v[0], v[1]) << 2 | pair(v[2], v[3]) << 17
    }
}
