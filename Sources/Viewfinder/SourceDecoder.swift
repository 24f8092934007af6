import Hardware

/// Reads one row of a camera frame as XRGB8888, picking the given columns.
///
/// The decoded image has `imageSize`: the frame size for RGB and YUV formats, half of it in each
/// direction for Bayer raw (each 2×2 cell becomes one pixel: R, mean of the two G, B; the top
/// `bitDepth - 8` bits kept, linear, no white balance).
struct SourceDecoder {
    enum Layout {
        /// 3 bytes per pixel; byte offsets of R, G, B in memory.
        case packed24(r: Int, g: Int, b: Int)
        /// 4 bytes per pixel, XRGB8888 little-endian.
        case xrgb32
        /// Planar YUV 4:2:0 (I420): Y plane, then U and V at half size, chroma stride = stride / 2.
        case yuv420
        /// Unpacked Bayer in 16-bit little-endian words; offsets of R and B in the 2×2 cell
        /// (0 = top-left, 1 = top-right, 2 = bottom-left, 3 = bottom-right); `shift` = bitDepth - 8.
        case bayer16(r: Int, b: Int, shift: Int)
    }

    let layout: Layout
    let frameSize: PixelSize
    let stride: Int
    let imageSize: PixelSize

    init(format: PixelFormat, size: PixelSize, stride: Int, byteCount: Int) throws(ViewfinderError) {
        frameSize = size
        self.stride = stride
        var needed = stride * size.height
        switch format {
        case .bgr888: layout = .packed24(r: 0, g: 1, b: 2)
        case .rgb888: layout = .packed24(r: 2, g: 1, b: 0)
        case .xrgb8888: layout = .xrgb32
        case .yuv420:
            layout = .yuv420
            needed = stride * size.height + 2 * (stride / 2) * ((size.height + 1) / 2)
        default:
            guard let bayer = Self.bayer(format) else { throw .unsupportedPixelFormat(format) }
            layout = bayer
        }
        if case .bayer16 = layout {
            imageSize = PixelSize(width: size.width / 2, height: size.height / 2)
        } else {
            imageSize = size
        }
        guard byteCount >= needed, stride > 0 else {
            throw .bufferTooShort(format: format, size: size, needed: needed, have: byteCount)
        }
    }

    /// "SRGGB12" and friends (unpacked 10/12/14/16-bit); nil for anything else, including "_CSI2P".
    private static func bayer(_ format: PixelFormat) -> Layout? {
        let name = format.rawValue
        guard format.isBayer, name.count >= 7 else { return nil }
        let order = Array(name.dropFirst().prefix(4))
        guard let bits = Int(name.dropFirst(5)), (8...16).contains(bits),
              let r = order.firstIndex(of: "R"), let b = order.firstIndex(of: "B") else { return nil }
        return .bayer16(r: r, b: b, shift: bits - 8)
    }

    /// Writes the pixels at columns `xs` of decoded row `y` into `out`.
    @inline(__always)
    func decodeRow(_ y: Int, xs: UnsafeBufferPointer<Int32>, bytes: UnsafeRawBufferPointer,
                   into out: UnsafeMutablePointer<UInt32>) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        switch layout {
        case let .packed24(r, g, b):
            let row = base + y * stride
            for i in 0..<xs.count {
                let p = row + Int(xs[i]) &* 3
                out[i] = UInt32(p[r]) << 16 | UInt32(p[g]) << 8 | UInt32(p[b])
            }
        case .xrgb32:
            let row = UnsafeRawPointer(base + y * stride)
            for i in 0..<xs.count {
                out[i] = row.loadUnaligned(fromByteOffset: Int(xs[i]) &* 4, as: UInt32.self) & 0xFFFFFF
            }
        case .yuv420:
            let cStride = stride / 2
            let yRow = base + y * stride
            let uRow = base + stride * frameSize.height + (y / 2) * cStride
            let vRow = uRow + cStride * ((frameSize.height + 1) / 2)
            for i in 0..<xs.count {
                let x = Int(xs[i])
                out[i] = Self.yuvToRGB(Int(yRow[x]), Int(uRow[x / 2]), Int(vRow[x / 2]))
            }
        case let .bayer16(r, b, shift):
            let top = UnsafeRawPointer(base + 2 * y * stride)
            let bottom = top + stride
            for i in 0..<xs.count {
                let o = Int(xs[i]) &* 4
                let c0 = Int(top.loadUnaligned(fromByteOffset: o, as: UInt16.self))
                let c1 = Int(top.loadUnaligned(fromByteOffset: o + 2, as: UInt16.self))
                let c2 = Int(bottom.loadUnaligned(fromByteOffset: o, as: UInt16.self))
                let c3 = Int(bottom.loadUnaligned(fromByteOffset: o + 2, as: UInt16.self))
                let rv = Self.pick(r, c0, c1, c2, c3), bv = Self.pick(b, c0, c1, c2, c3)
                let gv = (c0 + c1 + c2 + c3 - rv - bv + 1) / 2
                out[i] = Self.clamp8(rv >> shift) << 16 | Self.clamp8(gv >> shift) << 8 | Self.clamp8(bv >> shift)
            }
        }
    }

    /// Full-range BT.601 (JPEG / sYCC) YCbCr to RGB, 16-bit fixed point, rounded:
    /// R = Y + 1.402 (V−128), G = Y − 0.344136 (U−128) − 0.714136 (V−128), B = Y + 1.772 (U−128).
    @inline(__always)
    static func yuvToRGB(_ y: Int, _ u: Int, _ v: Int) -> UInt32 {
        let c = y << 16 + 32768, d = u - 128, e = v - 128
        let r = (c + 91881 * e) >> 16
        let g = (c - 22554 * d - 46802 * e) >> 16
        let b = (c + 116130 * d) >> 16
        return clamp8(r) << 16 | clamp8(g) << 8 | clamp8(b)
    }

    @inline(__always)
    static func pick(_ i: Int, _ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Int {
        i == 0 ? a : i == 1 ? b : i == 2 ? c : d
    }

    @inline(__always)
    static func clamp8(_ v: Int) -> UInt32 { UInt32(min(max(v, 0), 255)) }
}
