import Foundation
import Hardware

/// The DNG's embedded preview: the raw frame reduced by averaging whole 2×2 Bayer cells in boxes,
/// black level subtracted, white balanced with the as-shot gains, scaled to the white level and
/// sRGB-encoded (no colour matrix: the camera's RGB is taken as sRGB, plausible, not calibrated).
enum DNGPreview {
    /// Cells (2×2 samples) averaged per preview pixel along each axis, so the longest side is
    /// at most `DNGWriter.previewMaximumSide`.
    static func cellsPerPixel(_ size: PixelSize) -> Int {
        let cells = max(size.width / 2, size.height / 2, 1)
        return max(1, (cells + DNGWriter.previewMaximumSide - 1) / DNGWriter.previewMaximumSide)
    }

    /// The preview's size for a raw frame of `size`: whole boxes of cells only (at least 1×1).
    static func size(for size: PixelSize) -> PixelSize {
        let box = cellsPerPixel(size)
        return PixelSize(width: max(1, size.width / 2 / box), height: max(1, size.height / 2 / box))
    }

    /// A `.bgr888` frame (memory R, G, B) of `size(for:)`.
    static func render(_ frame: FrameBuffer, layout: BayerLayout, description: DNGDescription) throws -> FrameBuffer {
        let out = size(for: frame.size), box = cellsPerPixel(frame.size)
        let neutral = description.asShotNeutral
        let black = description.blackLevel, range = max(Double(layout.whiteLevel) - black, 1)
        // Per colour (0 red, 1 green, 2 blue): linear value = (mean − black) / range × gain.
        let gains = [1 / neutral[0], 1 / neutral[1], 1 / neutral[2]]
        let colours = layout.cfaPattern.map(Int.init)
        // sRGB encoding (IEC 61966-2-1) of 0...1 in 4096 steps.
        let curve: [UInt8] = (0...4095).map { i in
            let v = Double(i) / 4095
            let e = v <= 0.003_130_8 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
            return UInt8((min(max(e, 0), 1) * 255).rounded())
        }
        var rgb = [UInt8](repeating: 0, count: out.area * 3)
        let usable = PixelSize(width: min(frame.size.width, out.width * box * 2), height: min(frame.size.height, out.height * box * 2))
        frame.withUnsafeBytes { pixels in
            func sample(_ x: Int, _ y: Int) -> Double {
                let at = y * frame.stride + x * layout.bytesPerSample
                return layout.bytesPerSample == 2
                    ? Double(UInt16(littleEndian: pixels.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
                    : Double(pixels[at])
            }
            for py in 0..<out.height {
                for px in 0..<out.width {
                    var sums = SIMD3<Double>(), counts = SIMD3<Double>()
                    let x0 = px * box * 2, y0 = py * box * 2
                    for y in y0..<min(y0 + box * 2, usable.height) {
                        for x in x0..<min(x0 + box * 2, usable.width) {
                            let c = colours[(y & 1) * 2 + (x & 1)]
                            sums[c] += sample(x, y); counts[c] += 1
                        }
                    }
                    for c in 0..<3 {
                        let mean = counts[c] > 0 ? sums[c] / counts[c] : black
                        let linear = min(max((mean - black) / range * gains[c], 0), 1)
                        rgb[(py * out.width + px) * 3 + c] = curve[Int(linear * 4095)]
                    }
                }
            }
        }
        return FrameBuffer(pixelFormat: .bgr888, size: out, stride: out.width * 3, bytes: rgb)
    }
}
