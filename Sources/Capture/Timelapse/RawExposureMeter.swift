import Hardware
import Media

/// How bright a raw frame is, as Auto ETTR meters it: the median and a highlight percentile of the
/// sensor's own samples, above black and as a fraction of the range to white (0 = black, 1 = clip).
public struct RawExposureMeasurement: Hashable, Sendable {
    /// The median sample, 0…1 above black.
    public var median: Double
    /// The mean of the middle half of the samples (25th to 75th percentile), 0…1 above black: the
    /// median's neighbourhood, which the ramp meters by. On a scene of flat patches the median itself
    /// jumps from one patch's level to the next as the exposure changes a little; this mean moves in
    /// proportion to the exposure, as the samples do.
    public var midtone: Double
    /// The `RawExposureMeter.highlightPercentile` sample, 0…1 above black.
    public var highlight: Double
    /// Samples measured (a subsample of a large frame).
    public var samples: Int
}

/// Meters a raw frame (unpacked Bayer, `BayerLayout`) from a subsample of its samples, all four
/// CFA positions alike: what the sensor caught before any ISP tone curve, the same way every shot.
public enum RawExposureMeter {
    /// The highlight percentile: the brightest 0.5 % may clip (speculars, lamps).
    public static let highlightPercentile = 99.5
    /// Samples measured at most: about 260 k, spread over the whole frame.
    public static let maximumSamples = 262_144

    /// Measures `buffer`; `blackLevel16` is the sensor's black level on a 16-bit scale.
    public static func measure(_ buffer: FrameBuffer, blackLevel16: Int) throws(MediaError) -> RawExposureMeasurement {
        let layout: BayerLayout
        do { layout = try BayerLayout(buffer.pixelFormat) } catch let error as MediaError { throw error } catch {
            throw MediaError(.invalidFrame, "raw frame: \(error)")
        }
        let width = buffer.size.width, height = buffer.size.height
        guard width >= 2, height >= 2, buffer.stride >= width * layout.bytesPerSample,
              buffer.byteCount >= buffer.stride * (height - 1) + width * layout.bytesPerSample else {
            throw MediaError(.invalidFrame, "raw frame \(width)x\(height) stride \(buffer.stride): fewer bytes (\(buffer.byteCount)) than its size needs")
        }
        let black = Double(blackLevel16 >> (16 - layout.bitsPerSample))
        let range = max(Double(layout.whiteLevel) - black, 1)
        // A step that keeps both CFA parities (odd steps alternate them) and the count in bounds.
        var step = 1
        while (width / step) * (height / step) > maximumSamples { step += 2 }
        // One bin per sample value: exact percentiles, whatever the bit depth.
        var histogram = [Int](repeating: 0, count: layout.whiteLevel + 1)
        var count = 0
        buffer.withUnsafeBytes { bytes in
            for y in Swift.stride(from: 0, to: height, by: step) {
                let row = y * buffer.stride
                for x in Swift.stride(from: 0, to: width, by: step) {
                    let value: Int
                    if layout.bytesPerSample == 2 {
                        value = Int(bytes[row + 2 * x]) | Int(bytes[row + 2 * x + 1]) << 8
                    } else {
                        value = Int(bytes[row + x])
                    }
                    histogram[min(value, layout.whiteLevel)] += 1
                    count += 1
                }
            }
        }
        let level = { (value: Double) in min(max((value - black) / range, 0), 1) }
        return RawExposureMeasurement(median: level(Double(value(at: 50, histogram, count))),
                                      midtone: level(mean(from: 25, to: 75, histogram, count)),
                                      highlight: level(Double(value(at: highlightPercentile, histogram, count))), samples: count)
    }

    /// The mean of the samples ranked between the `lower` and `upper` percentiles.
    private static func mean(from lower: Double, to upper: Double, _ histogram: [Int], _ count: Int) -> Double {
        let first = Double(count) * lower / 100, last = Double(count) * upper / 100
        var seen = 0.0, sum = 0.0, taken = 0.0
        for (value, n) in histogram.enumerated() where n > 0 {
            let begin = max(seen, first), end = min(seen + Double(n), last)
            if end > begin { sum += Double(value) * (end - begin); taken += end - begin }
            seen += Double(n)
            if seen >= last { break }
        }
        return taken > 0 ? sum / taken : 0
    }

    /// The sample value at or below which `percent` of the samples lie.
    private static func value(at percent: Double, _ histogram: [Int], _ count: Int) -> Int {
        let wanted = Double(count) * percent / 100
        var seen = 0
        for (value, n) in histogram.enumerated() {
            seen += n
            if Double(seen) >= wanted { return value }
        }
        return histogram.count - 1
    }
}
