import Hardware

/// Packs developed 8-bit R, G, B rows into a processed stream's pixel format, row by row:
/// BGR888 (memory R, G, B), RGB888 (memory B, G, R), XRGB8888 (memory B, G, R, 255) or YUV420
/// (planar I420: Y, then U and V at half size).
///
/// YUV420 follows libcamera's Raspberry Pi defaults: Rec. 709 limited range for the
/// videoRecording role, sYCC (BT.601 full range, as JPEG) for the others.
///
/// Rows come as three channel rows `channelStride` apart (red, green, blue); whole blocks of 8 or
/// 16 pixels are packed at a time in SIMD registers, the rest of a row pixel by pixel.
struct FramePacker {
    enum Layout {
        case rgb(bytesPerPixel: Int, red: Int, green: Int, blue: Int)
        case yuv420(rec709: Bool)
    }
    let layout: Layout
    let size: PixelSize
    /// Bytes of the whole frame.
    let byteCount: Int
    /// The even row of a YUV420 pair, kept until the odd row comes.
    private var previous: [UInt8] = []
    /// (Y from R, G, B; Cb; Cr) in 1/65536, for 8-bit R'G'B'.
    private let coefficients: (y: SIMD3<Int32>, cb: SIMD3<Int32>, cr: SIMD3<Int32>, yOffset: Int32)

    /// A packer for `format`, or nil when the format is not a processed one it can make.
    init?(format: PixelFormat, size: PixelSize, role: StreamRole) {
        switch format {
        case .bgr888: layout = .rgb(bytesPerPixel: 3, red: 0, green: 1, blue: 2)
        case .rgb888: layout = .rgb(bytesPerPixel: 3, red: 2, green: 1, blue: 0)
        case .xrgb8888: layout = .rgb(bytesPerPixel: 4, red: 2, green: 1, blue: 0)
        case .yuv420: layout = .yuv420(rec709: role == .videoRecording)
        default: return nil
        }
        self.size = size
        func fixed(_ a: Double, _ b: Double, _ c: Double) -> SIMD3<Int32> {
            SIMD3(Int32((a * 65536).rounded()), Int32((b * 65536).rounded()), Int32((c * 65536).rounded()))
        }
        if case .yuv420(rec709: true) = layout {
            // Y = 16 + 219·Y', Cb = 128 + 224·(B' − Y')/1.8556, Cr = 128 + 224·(R' − Y')/1.5748.
            let k = 219.0 / 255, kb = 224.0 / 255 / 1.8556, kr = 224.0 / 255 / 1.5748
            coefficients = (fixed(0.2126 * k, 0.7152 * k, 0.0722 * k),
                            fixed(-0.2126 * kb, -0.7152 * kb, (1 - 0.0722) * kb),
                            fixed((1 - 0.2126) * kr, -0.7152 * kr, -0.0722 * kr), 16)
        } else {
            coefficients = (fixed(0.299, 0.587, 0.114), fixed(-0.168_736, -0.331_264, 0.5),
                            fixed(0.5, -0.418_688, -0.081_312), 0)
        }
        switch layout {
        case .rgb(let bpp, _, _, _): byteCount = size.area * bpp
        case .yuv420: byteCount = size.area + 2 * ((size.width + 1) / 2) * ((size.height + 1) / 2)
        }
    }

    /// Bytes per line of the first plane.
    var stride: Int {
        if case .rgb(let bpp, _, _, _) = layout { return size.width * bpp }
        return size.width
    }

    /// Takes row `row`: `rgb` holds the red values, then green from `rgb + channelStride`, then blue.
    /// Writes into `frame` (`byteCount` bytes); every byte is written once all rows are in.
    mutating func pack(row: Int, rgb: UnsafePointer<UInt8>, channelStride: Int, into frame: UnsafeMutablePointer<UInt8>) {
        let w = size.width
        switch layout {
        case .rgb(let bpp, let r, let g, let b):
            let line = UnsafeMutableRawPointer(frame + row * w * bpp)
            let red = rgb, green = rgb + channelStride, blue = rgb + 2 * channelStride
            // One 32-bit word per pixel: the channels at their bytes (255 in the fourth of XRGB).
            let sr = UInt32(8 * r), sg = UInt32(8 * g), sb = UInt32(8 * b)
            if bpp == 4 {
                let fill = SIMD8<UInt32>(repeating: 0xFF << UInt32(8 * (6 - r - g - b)))
                var i = 0
                while i + 8 <= w {
                    let word = Self.widen(red + i) &<< sr | Self.widen(green + i) &<< sg | Self.widen(blue + i) &<< sb | fill
                    line.storeBytes(of: word, toByteOffset: i * 4, as: SIMD8<UInt32>.self)
                    i += 8
                }
                let alpha = fill[0]
                while i < w {
                    let word = UInt32(red[i]) << sr | UInt32(green[i]) << sg | UInt32(blue[i]) << sb | alpha
                    line.storeBytes(of: word, toByteOffset: i * 4, as: UInt32.self)
                    i += 1
                }
            } else {
                // Three bytes a pixel: each word is stored whole, its fourth byte overwritten by the
                // next pixel; the row's last pixel goes byte by byte (it may end the frame).
                for i in 0..<(w - 1) {
                    let word = UInt32(red[i]) << sr | UInt32(green[i]) << sg | UInt32(blue[i]) << sb
                    line.storeBytes(of: word, toByteOffset: i * 3, as: UInt32.self)
                }
                let last = line + (w - 1) * 3
                last.storeBytes(of: red[w - 1], toByteOffset: r, as: UInt8.self)
                last.storeBytes(of: green[w - 1], toByteOffset: g, as: UInt8.self)
                last.storeBytes(of: blue[w - 1], toByteOffset: b, as: UInt8.self)
            }
        case .yuv420:
            if row & 1 == 0 {
                if previous.count < 3 * channelStride { previous = [UInt8](repeating: 0, count: 3 * channelStride) }
                previous.withUnsafeMutableBufferPointer { keep in
                    keep.baseAddress?.update(from: rgb, count: 3 * channelStride)
                }
                if row + 1 < size.height { return }
                packPair(top: row, above: rgb, rgb: rgb, channelStride: channelStride, into: frame)  // an odd last row pairs with itself
            } else {
                previous.withUnsafeBufferPointer { above in
                    guard let above = above.baseAddress else { return }
                    packPair(top: row - 1, above: above, rgb: rgb, channelStride: channelStride, into: frame)
                }
            }
        }
    }

    /// Y of both rows and the pair's chroma (each chroma sample from the mean of its 2 × 2 pixels).
    /// Integer arithmetic in floats: every product and sum is an integer below 2²⁴ (over 65536),
    /// so it is exact, and rounding down is exact too.
    private func packPair(top: Int, above: UnsafePointer<UInt8>, rgb: UnsafePointer<UInt8>, channelStride cs: Int,
                          into frame: UnsafeMutablePointer<UInt8>) {
        let c = coefficients
        let w = size.width, h = size.height, cw = (w + 1) / 2
        let chromaStart = w * h, planeSize = cw * ((h + 1) / 2)
        func weights(_ k: SIMD3<Int32>) -> SIMD3<Float> { SIMD3(Float(k.x), Float(k.y), Float(k.z)) / 65536 }
        let ky = weights(c.y), kb = weights(c.cb), kr = weights(c.cr)
        // (value × 65536 + 32768) >> 16 + offset = ⌊value + 0.5 + offset⌋.
        let yOffset = Float(c.yOffset) + 0.5, chromaOffset: Float = 128.5
        let y0 = frame + top * w, y1 = top + 1 < h ? frame + (top + 1) * w : nil
        let u = frame + chromaStart + (top / 2) * cw, v = u + planeSize
        var i = 0
        while i + 8 <= w {
            UnsafeMutableRawPointer(y0 + i).storeBytes(of: Self.luma(above + i, cs, ky, yOffset), as: SIMD8<UInt8>.self)
            if let y1 { UnsafeMutableRawPointer(y1 + i).storeBytes(of: Self.luma(rgb + i, cs, ky, yOffset), as: SIMD8<UInt8>.self) }
            i += 8
        }
        while i < w {
            func y(_ p: UnsafePointer<UInt8>) -> UInt8 {
                let value = ky.x * Float(p[i]) + ky.y * Float(p[cs + i]) + ky.z * Float(p[2 * cs + i]) + yOffset
                return UInt8(max(0, min(255, value.rounded(.down))))
            }
            y0[i] = y(above)
            y1?[i] = y(rgb)
            i += 1
        }
        var ci = 0
        while 2 * ci + 16 <= w {
            let r = Self.mean(above + 2 * ci, rgb + 2 * ci), g = Self.mean(above + cs + 2 * ci, rgb + cs + 2 * ci)
            let b = Self.mean(above + 2 * cs + 2 * ci, rgb + 2 * cs + 2 * ci)
            let cb = kb.x * r + kb.y * g + kb.z * b + chromaOffset
            let cr = kr.x * r + kr.y * g + kr.z * b + chromaOffset
            UnsafeMutableRawPointer(u + ci).storeBytes(of: Self.narrow(Self.floorToCode(cb)), as: SIMD8<UInt8>.self)
            UnsafeMutableRawPointer(v + ci).storeBytes(of: Self.narrow(Self.floorToCode(cr)), as: SIMD8<UInt8>.self)
            ci += 8
        }
        while ci < cw {
            var sum = SIMD3<Int32>.zero
            for x in [2 * ci, min(2 * ci + 1, w - 1)] {
                sum &+= SIMD3(Int32(above[x]), Int32(above[cs + x]), Int32(above[2 * cs + x]))
                sum &+= SIMD3(Int32(rgb[x]), Int32(rgb[cs + x]), Int32(rgb[2 * cs + x]))
            }
            let m = (sum &+ 2) / 4
            let p = SIMD3(Float(m.x), Float(m.y), Float(m.z))
            u[ci] = UInt8(max(0, min(255, ((kb * p).sum() + chromaOffset).rounded(.down))))
            v[ci] = UInt8(max(0, min(255, ((kr * p).sum() + chromaOffset).rounded(.down))))
            ci += 1
        }
    }

    /// Luma of 8 pixels (red at `p`, green and blue `cs` and 2·`cs` further).
    @inline(__always)
    private static func luma(_ p: UnsafePointer<UInt8>, _ cs: Int, _ k: SIMD3<Float>, _ offset: Float) -> SIMD8<UInt8> {
        narrow(floorToCode(k.x * float(widen(p)) + k.y * float(widen(p + cs)) + k.z * float(widen(p + 2 * cs)) + offset))
    }

    /// The rounded mean of 2 × 2 pixels of one channel, 8 times over (16 pixels of two rows): the
    /// column sums as 16-bit lanes, read as 32-bit lanes, hold two neighbours each.
    @inline(__always)
    private static func mean(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> SIMD8<Float> {
        let pairs = unsafeBitCast(widen16(a) &+ widen16(b), to: SIMD8<UInt32>.self)
        return float(((pairs & 0xFFFF) &+ (pairs &>> 16) &+ 2) &>> 2)
    }

    /// Integers below 2²³ as floats.
    @inline(__always)
    private static func float(_ x: SIMD8<UInt32>) -> SIMD8<Float> {
        unsafeBitCast(x | 0x4B00_0000, to: SIMD8<Float>.self) - magic
    }

    // Widening and narrowing lane by lane: the compiler turns these into a few unpack or pack
    // instructions (the generic SIMD conversions stay calls).
    @inline(__always)
    private static func widen(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt32> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)
        return SIMD8(UInt32(v[0]), UInt32(v[1]), UInt32(v[2]), UInt32(v[3]), UInt32(v[4]), UInt32(v[5]), UInt32(v[6]), UInt32(v[7]))
    }

    @inline(__always)
    private static func widen16(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt16> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
        var r = SIMD16<UInt16>()
        for k in 0..<16 { r[k] = UInt16(v[k]) }
        return r
    }

    @inline(__always)
    private static func narrow(_ x: SIMD8<UInt32>) -> SIMD8<UInt8> {
        var r = SIMD8<UInt8>()
        for k in 0..<8 { r[k] = UInt8(truncatingIfNeeded: x[k]) }
        return r
    }

    /// 2²³: added to a float in 0…65535, its low mantissa bits are the value rounded to an integer.
    private static let magic: Float = 8_388_608

    /// ⌊x⌋ capped at 255, for 0 ≤ x < 2²²: rounded to nearest by adding 2²³, then one less where
    /// that rounded up (x − rounded is negative: its sign bit), then capped at 255. Integer lanes
    /// only: SSE2 builds float compare masks by shuffling.
    @inline(__always)
    private static func floorToCode(_ x: SIMD8<Float>) -> SIMD8<UInt32> {
        let rounded = x + magic - magic
        let below = unsafeBitCast(x - rounded, to: SIMD8<Int32>.self) &>> 31  // −1 where rounded up
        let code = unsafeBitCast(rounded + magic, to: SIMD8<Int32>.self) & 0x7F_FFFF &+ below
        let over = (255 &- code) &>> 31
        return unsafeBitCast((code & ~over) | (255 & over), to: SIMD8<UInt32>.self)
    }
}
