import Hardware

/// The auto-range bracket's rule. Thresholds are measured on each frame's processed (RGB) buffer:
/// a pixel is *clipped* when any channel is ≥ `clippedLevel` (of 255) and *crushed* when every
/// channel is ≤ `crushedLevel`. After the first steps, while the darkest frame so far has more than
/// `clippedFraction` clipped pixels, a step `stepEV` darker is added; while the brightest has more
/// than `crushedFraction` crushed pixels, a step `stepEV` brighter. At most `maximumExtraSteps` are
/// added in each direction, and the total never exceeds the bracket maximum.
public struct AutoRangePolicy: Hashable, Sendable {
    /// First steps, EV (default 0, −2, +2).
    public var initialBiases: [Double] = [0, -2, 2]
    /// Distance of each added step from the last one in that direction, EV.
    public var stepEV = 2.0
    /// Channel level (0…255) at or above which a pixel counts as clipped.
    public var clippedLevel: UInt8 = 250
    /// Channel level (0…255) at or below which a pixel counts as crushed (all three channels).
    public var crushedLevel: UInt8 = 5
    /// Fraction of clipped pixels that makes the darkest frame "still clipping" (default 1 %).
    public var clippedFraction = 0.01
    /// Fraction of crushed pixels that makes the brightest frame "still crushed" (default 1 %).
    public var crushedFraction = 0.01
    /// Steps added at most in each direction.
    public var maximumExtraSteps = 3
    /// The default rule.
    public init() {}
}

/// Fractions of clipped and crushed pixels of a processed frame (BGR888, XRGB8888 or YUV420).
public struct TonalExtremes: Hashable, Sendable {
    /// Pixels with any channel ≥ the clipped level, 0…1.
    public var clippedFraction: Double
    /// Pixels with all channels ≤ the crushed level, 0…1.
    public var crushedFraction: Double

    /// Pixels measured at most per frame: the bracket engine measures on the loop, so the cost must
    /// not grow with the frame (a full 12 MP scan took tens of milliseconds per frame). A regular
    /// grid of 65,536 pixels puts a 1 % threshold within ±0.1 % (binomial, 3 σ).
    public static let maximumSamples = 65_536

    /// Pixels the last measurement read (tests).
    public private(set) var samplesMeasured = 0

    /// How a YUV420 buffer's codes map back to R'G'B' (libcamera's Raspberry Pi defaults: the
    /// videoRecording stream is Rec. 709 limited range, other YUV streams sYCC full range).
    public enum YCbCrEncoding: Sendable {
        case rec709Limited, sYCCFull
    }

    /// Measures `buffer` on a regular grid of at most `maximumSamples` pixels (every pixel of a
    /// small frame). BGR888 and XRGB8888 are read as they are; YUV420 (I420: chroma planes at half
    /// the luma stride after it) is turned back into 8-bit R'G'B' at each sampled pixel with
    /// `encoding`, so the thresholds mean the same. nil for other formats.
    public init?(_ buffer: FrameBuffer, clippedLevel: UInt8, crushedLevel: UInt8, encoding: YCbCrEncoding = .sYCCFull) {
        let area = buffer.size.width * buffer.size.height
        var step = 1
        while area / (step * step) > Self.maximumSamples { step += 1 }
        let rgbAt: (UnsafeRawBufferPointer, Int, Int) -> (Int, Int, Int)?
        switch buffer.pixelFormat {
        case .bgr888, .xrgb8888:
            let layout = buffer.pixelFormat == .bgr888 ? (bpp: 3, r: 0, g: 1, b: 2) : (bpp: 4, r: 2, g: 1, b: 0)
            let stride = buffer.stride
            rgbAt = { bytes, column, row in
                let p = row * stride + column * layout.bpp
                guard p + layout.bpp <= bytes.count else { return nil }
                return (Int(bytes[p + layout.r]), Int(bytes[p + layout.g]), Int(bytes[p + layout.b]))
            }
        case .yuv420:
            let stride = buffer.stride, chromaStride = stride / 2
            let luma = stride * buffer.size.height, chroma = chromaStride * ((buffer.size.height + 1) / 2)
            // R' = Y' + kr·Cr, G' = Y' − kgb·Cb − kgr·Cr, B' = Y' + kb·Cb (Cb, Cr centred on 128).
            let (yScale, yOffset, cScale, kr, kb): (Double, Double, Double, Double, Double) = encoding == .rec709Limited
                ? (255.0 / 219, 16, 255.0 / 224, 1.5748, 1.8556) : (1, 0, 1, 1.402, 1.772)
            let (wr, wb) = encoding == .rec709Limited ? (0.2126, 0.0722) : (0.299, 0.114)
            let kgb = wb * kb / (1 - wr - wb), kgr = wr * kr / (1 - wr - wb)
            rgbAt = { bytes, column, row in
                let c = luma + (row / 2) * chromaStride + column / 2
                guard c + chroma < bytes.count else { return nil }
                let y = (Double(bytes[row * stride + column]) - yOffset) * yScale
                let cb = (Double(bytes[c]) - 128) * cScale, cr = (Double(bytes[c + chroma]) - 128) * cScale
                func code(_ v: Double) -> Int { Int(max(0, min(255, v.rounded()))) }
                return (code(y + kr * cr), code(y - kgb * cb - kgr * cr), code(y + kb * cb))
            }
        default: return nil
        }
        let counts = buffer.withUnsafeBytes { bytes -> (Int, Int, Int) in
            var clipped = 0, crushed = 0, total = 0
            let clip = Int(clippedLevel), crush = Int(crushedLevel)
            for row in stride(from: step / 2, to: buffer.size.height, by: step) {
                for column in stride(from: step / 2, to: buffer.size.width, by: step) {
                    guard let (r, g, b) = rgbAt(bytes, column, row) else { continue }
                    total += 1
                    if r >= clip || g >= clip || b >= clip { clipped += 1 }
                    if r <= crush && g <= crush && b <= crush { crushed += 1 }
                }
            }
            return (clipped, crushed, total)
        }
        guard counts.2 > 0 else { return nil }
        clippedFraction = Double(counts.0) / Double(counts.2)
        crushedFraction = Double(counts.1) / Double(counts.2)
        samplesMeasured = counts.2
    }

    /// Extremes from fractions (tests, other analysers).
    public init(clippedFraction: Double, crushedFraction: Double) {
        self.clippedFraction = clippedFraction; self.crushedFraction = crushedFraction
    }
}

extension AutoRangePolicy {
    /// The steps to add after frames with these biases and extremes were kept: one darker while
    /// the darkest still clips, one brighter while the brightest is still crushed. `added` counts
    /// the steps already added (darker, brighter); `room` bounds the total added now.
    public func additionalBiases(measured: [(bias: Double, extremes: TonalExtremes)],
                                 added: (darker: Int, brighter: Int), room: Int) -> [Double] {
        guard room > 0, let darkest = measured.min(by: { $0.bias < $1.bias }),
              let brightest = measured.max(by: { $0.bias < $1.bias }) else { return [] }
        var out: [Double] = []
        if darkest.extremes.clippedFraction > clippedFraction, added.darker < maximumExtraSteps {
            out.append(darkest.bias - stepEV)
        }
        if brightest.extremes.crushedFraction > crushedFraction, added.brighter < maximumExtraSteps, out.count < room {
            out.append(brightest.bias + stepEV)
        }
        return out
    }
}

/// The largest bracket this camera can hold: every frame's buffers stay in memory until the store
/// has written them (writes are slower than the sensor), so the count is the memory budget over
/// one frame's bytes (raw at 2 bytes/pixel + RGB still at 3 bytes/pixel), capped at `hardCap`.
public struct BracketCapacity: Hashable, Sendable {
    /// Bytes one frame holds in memory until written.
    public var bytesPerFrame: Int64
    /// Memory the capture path may use for frames awaiting write, bytes.
    public var memoryBudgetBytes: Int64
    /// Upper bound whatever the memory (sidecar and UI sizes), frames.
    public var hardCap: Int

    /// A capacity from frame sizes and a memory budget.
    public init(rawSize: PixelSize?, rgbSize: PixelSize?, memoryBudgetBytes: Int64, hardCap: Int = 32) {
        bytesPerFrame = Int64(rawSize?.area ?? 0) * 2 + Int64(rgbSize?.area ?? 0) * 3
        self.memoryBudgetBytes = memoryBudgetBytes
        self.hardCap = hardCap
    }

    /// The maximum frames per bracket (at least 1).
    public var maximumFrames: Int {
        guard bytesPerFrame > 0 else { return hardCap }
        return max(1, min(hardCap, Int(memoryBudgetBytes / bytesPerFrame)))
    }
}
