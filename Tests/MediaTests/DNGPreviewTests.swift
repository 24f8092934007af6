import Foundation
import Hardware
import Testing
@testable import Media

/// The DNG preview, rendered row by row on every core, is the plain definition exactly: per
/// preview pixel, each colour's samples in the first 2×2 cell of its box of cells (what of that
/// cell the frame has), black off, as-shot gains, sRGB-encoded.
@Suite struct DNGPreviewTests {
    /// The definition, one preview pixel at a time (sums per CFA position, then per colour in CFA order).
    func reference(_ frame: FrameBuffer, _ layout: BayerLayout, _ description: DNGDescription) -> [UInt8] {
        let out = DNGPreview.size(for: frame.size), box = DNGPreview.cellsPerPixel(frame.size)
        let black = description.blackLevel, range = max(Double(layout.whiteLevel) - black, 1)
        let gains = description.asShotNeutral.map { 1 / $0 }
        let colours = layout.cfaPattern.map(Int.init)
        var rgb: [UInt8] = []
        for py in 0..<out.height {
            for px in 0..<out.width {
                var sums = [Int](repeating: 0, count: 4), counts = [Int](repeating: 0, count: 4)
                for y in (py * box * 2)..<min(py * box * 2 + 2, frame.size.height) {
                    for x in (px * box * 2)..<min(px * box * 2 + 2, frame.size.width) {
                        let at = y * frame.stride + x * 2
                        let v = frame.withUnsafeBytes { Int($0[at]) | Int($0[at + 1]) << 8 }
                        sums[(y & 1) * 2 + (x & 1)] += v; counts[(y & 1) * 2 + (x & 1)] += 1
                    }
                }
                var colourSums = [0.0, 0.0, 0.0], colourCounts = [0.0, 0.0, 0.0]
                for p in 0..<4 { colourSums[colours[p]] += Double(sums[p]); colourCounts[colours[p]] += Double(counts[p]) }
                for c in 0..<3 {
                    let mean = colourCounts[c] > 0 ? colourSums[c] / colourCounts[c] : black
                    let v = min(max((mean - black) / range * gains[c], 0), 1)
                    let step = Double(Int(v * 4095)) / 4095
                    let e = step <= 0.003_130_8 ? 12.92 * step : 1.055 * pow(step, 1 / 2.4) - 0.055
                    rgb.append(UInt8((min(max(e, 0), 1) * 255).rounded()))
                }
            }
        }
        return rgb
    }

    /// Boxes of 1 and 2 cells, edge samples past the last whole box, a frame narrower than one box
    /// (its partial box), and another CFA order.
    @Test(arguments: [(130, 70, "SRGGB12"), (2102, 18, "SBGGR12"), (1, 3, "SRGGB12"), (3, 5, "SGRBG12")])
    func isTheDefinitionExactly(width: Int, height: Int, format: String) throws {
        var bytes = [UInt8](repeating: 0, count: width * 2 * height)
        var state: UInt32 = 0x0BAD_F00D
        for i in stride(from: 0, to: bytes.count, by: 2) {
            state = state &* 1_664_525 &+ 1_013_904_223
            let v = Int(state >> 20)  // 0...4095
            bytes[i] = UInt8(v & 0xFF); bytes[i + 1] = UInt8(v >> 8)
        }
        let frame = FrameBuffer(pixelFormat: PixelFormat(format), size: PixelSize(width: width, height: height), stride: width * 2, bytes: bytes)
        let layout = try BayerLayout(frame.pixelFormat)
        let description = DNGDescription(exif: testExif(size: frame.size), blackLevel: 256)
        let preview = try DNGPreview.render(frame, layout: layout, description: description)
        #expect(preview.size == DNGPreview.size(for: frame.size))
        let rendered = preview.withUnsafeBytes { Array($0) }
        #expect(rendered == reference(frame, layout, description))
    }
}
