import Dispatch
import Foundation
import Hardware

/// The DNG's embedded preview: the raw frame reduced to the first 2×2 Bayer cell of each box of
/// cells (a decimation: a quarter of the samples at 12 MP, a ninth at the IMX708's 4608 wide, so
/// that rendering it beside a DNG streamed to the card costs less than the write; `tools/bench
/// media` measured 22 ms of preview, the critical path, when it averaged whole boxes), black level
/// subtracted, white balanced with the as-shot gains, scaled to the white level and sRGB-encoded
/// (no colour matrix: the camera's RGB is taken as sRGB, plausible, not calibrated). Rows are
/// rendered on every core.
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
        let width = frame.size.width, height = frame.size.height, wide = layout.bytesPerSample == 2
        let bytesPerSample = layout.bytesPerSample, stride = frame.stride
        // Preview rows are independent: one per iteration, on every core (DispatchQueue.concurrentPerform).
        frame.withUnsafeBytes { pixels in
            rgb.withUnsafeMutableBufferPointer { output in
                let source = UncheckedSendable(pixels), target = UncheckedSendable(output)
                DispatchQueue.concurrentPerform(iterations: out.height) { py in
                    let pixels = source.value, rgb = target.value
                    @inline(__always) func sample(_ at: Int) -> Int {
                        wide ? Int(UInt16(littleEndian: pixels.loadUnaligned(fromByteOffset: at, as: UInt16.self))) : Int(pixels[at])
                    }
                    // Per preview pixel of this row: sums and counts of the 4 CFA positions (row-major in the 2×2 cell).
                    let sums = UnsafeMutableBufferPointer<Int>.allocate(capacity: out.width * 4)
                    let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: out.width * 4)
                    defer { sums.deallocate(); counts.deallocate() }
                    sums.initialize(repeating: 0); counts.initialize(repeating: 0)
                    // Each preview pixel is its box's first 2×2 cell: a quarter (or a ninth) of the
                    // samples are read, so the preview stays off the critical path of a DNG streamed to the card.
                    for y in (py * box * 2)..<min(py * box * 2 + 2, height) {
                        let base = y * stride, position = (y & 1) * 2
                        for px in 0..<out.width {
                            let x = px * box * 2
                            sums[px * 4 + position] += sample(base + x * bytesPerSample); counts[px * 4 + position] += 1
                            if x + 1 < width {
                                sums[px * 4 + position + 1] += sample(base + (x + 1) * bytesPerSample); counts[px * 4 + position + 1] += 1
                            }
                        }
                    }
                    for px in 0..<out.width {
                        // Per colour, in CFA order (scalars: a SIMD3 indexed by colour went through memory).
                        var sum0 = 0.0, sum1 = 0.0, sum2 = 0.0, count0 = 0.0, count1 = 0.0, count2 = 0.0
                        for p in 0..<4 {
                            let v = Double(sums[px * 4 + p]), n = Double(counts[px * 4 + p])
                            switch colours[p] {
                            case 0: sum0 += v; count0 += n
                            case 1: sum1 += v; count1 += n
                            default: sum2 += v; count2 += n
                            }
                        }
                        @inline(__always) func encoded(_ sum: Double, _ count: Double, _ gain: Double) -> UInt8 {
                            let mean = count > 0 ? sum / count : black
                            return curve[Int(min(max((mean - black) / range * gain, 0), 1) * 4095)]
                        }
                        let at = (py * out.width + px) * 3
                        rgb[at] = encoded(sum0, count0, gains[0])
                        rgb[at + 1] = encoded(sum1, count1, gains[1])
                        rgb[at + 2] = encoded(sum2, count2, gains[2])
                    }
                }
            }
        }
        return FrameBuffer(pixelFormat: .bgr888, size: out, stride: out.width * 3, bytes: rgb)
    }
}
