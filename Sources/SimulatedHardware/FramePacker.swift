import Hardware

/// Packs developed 8-bit R, G, B rows into a processed stream's pixel format, row by row:
/// BGR888 (memory R, G, B), RGB888 (memory B, G, R), XRGB8888 (memory B, G, R, 255) or YUV420
/// (planar I420: Y, then U and V at half size).
///
/// YUV420 follows libcamera's Raspberry Pi defaults: Rec. 709 limited range for the
/// videoRecording role, sYCC (BT.601 full range, as JPEG) for the others.
struct FramePacker {
    enum Layout {
        case rgb(bytesPerPixel: Int, red: Int, green: Int, blue: Int)
        case yuv420(rec709: Bool)
    }
    let layout: Layout
    let size: PixelSize
    private(set) var bytes: [UInt8]
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
        case .rgb(let bpp, _, _, _): bytes = [UInt8](repeating: 255, count: size.area * bpp)
        case .yuv420: bytes = [UInt8](repeating: 128, count: size.area * 3 / 2)
        }
    }

    /// Bytes per line of the first plane.
    var stride: Int {
        if case .rgb(let bpp, _, _, _) = layout { return size.width * bpp }
        return size.width
    }

    /// Takes row `row`: `rgb` holds `width` red values, then green, then blue.
    mutating func pack(row: Int, rgb: UnsafePointer<UInt8>, width: Int) {
        switch layout {
        case .rgb(let bpp, let r, let g, let b):
            bytes.withUnsafeMutableBufferPointer { out in
                guard let base = out.baseAddress else { return }
                let line = base + row * width * bpp
                for i in 0..<width {
                    line[i * bpp + r] = rgb[i]
                    line[i * bpp + g] = rgb[width + i]
                    line[i * bpp + b] = rgb[2 * width + i]
                }
            }
        case .yuv420:
            if row & 1 == 0 {
                previous = Array(UnsafeBufferPointer(start: rgb, count: 3 * width))
                if row + 1 < size.height { return }
                packPair(top: row, rgb: rgb, width: width)  // an odd last row pairs with itself
            } else {
                packPair(top: row - 1, rgb: rgb, width: width)
            }
        }
    }

    private mutating func packPair(top: Int, rgb: UnsafePointer<UInt8>, width: Int) {
        let c = coefficients
        let w = size.width, h = size.height, cw = (w + 1) / 2
        let chromaStart = w * h, planeSize = cw * ((h + 1) / 2)
        previous.withUnsafeBufferPointer { above in
            bytes.withUnsafeMutableBufferPointer { out in
                func luma(_ p: SIMD3<Int32>) -> UInt8 {
                    UInt8(clamping: ((c.y &* p).wrappedSum() + 32768) >> 16 + c.yOffset)
                }
                func chroma(_ k: SIMD3<Int32>, _ p: SIMD3<Int32>) -> UInt8 {
                    UInt8(clamping: ((k &* p).wrappedSum() + 32768) >> 16 + 128)
                }
                for i in 0..<width {
                    let a = SIMD3(Int32(above[i]), Int32(above[width + i]), Int32(above[2 * width + i]))
                    let b = SIMD3(Int32(rgb[i]), Int32(rgb[width + i]), Int32(rgb[2 * width + i]))
                    out[top * w + i] = luma(a)
                    if top + 1 < h { out[(top + 1) * w + i] = luma(b) }
                }
                for ci in 0..<cw {
                    var sum = SIMD3<Int32>.zero
                    for i in [2 * ci, min(2 * ci + 1, width - 1)] {
                        sum &+= SIMD3(Int32(above[i]), Int32(above[width + i]), Int32(above[2 * width + i]))
                        sum &+= SIMD3(Int32(rgb[i]), Int32(rgb[width + i]), Int32(rgb[2 * width + i]))
                    }
                    let mean = (sum &+ 2) / 4
                    let at = (top / 2) * cw + ci
                    out[chromaStart + at] = chroma(c.cb, mean)
                    out[chromaStart + planeSize + at] = chroma(c.cr, mean)
                }
            }
        }
    }
}
