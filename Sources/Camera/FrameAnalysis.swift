import Foundation
import Hardware

/// Statistics of processed frames, for metering and gray-world white balance.
public enum FrameAnalysis {
    /// Mean red, green and blue (0…1) of a BGR888 (memory R,G,B) or XRGB8888 (memory B,G,R,X)
    /// buffer; with `excludingClipped`, pixels with any channel ≥ 250 are skipped (for gray-world).
    /// nil for other formats or when no pixel counts.
    public static func channelMeans(_ buffer: FrameBuffer, excludingClipped: Bool = false)
        -> (red: Double, green: Double, blue: Double)? {
        let layout: (bpp: Int, r: Int, g: Int, b: Int)
        switch buffer.pixelFormat {
        case .bgr888: layout = (3, 0, 1, 2)
        case .xrgb8888: layout = (4, 2, 1, 0)
        default: return nil
        }
        return buffer.withUnsafeBytes { bytes -> (Double, Double, Double)? in
            var sum = (0.0, 0.0, 0.0), count = 0
            for row in 0..<buffer.size.height {
                let base = row * buffer.stride
                for column in 0..<buffer.size.width {
                    let p = base + column * layout.bpp
                    guard p + layout.bpp <= bytes.count else { continue }
                    let r = Int(bytes[p + layout.r]), g = Int(bytes[p + layout.g]), b = Int(bytes[p + layout.b])
                    if excludingClipped && (r >= 250 || g >= 250 || b >= 250) { continue }
                    sum.0 += Self.linear[r]; sum.1 += Self.linear[g]; sum.2 += Self.linear[b]; count += 1
                }
            }
            guard count > 0 else { return nil }
            let n = Double(count)
            return (sum.0 / n, sum.1 / n, sum.2 / n)
        }
    }

    /// How much of a processed frame sits at the ends of the 8-bit range, for video HDR's `auto`:
    /// auto-range's measure (`TonalExtremes`: a channel at or over `clippedCode`, every channel at
    /// or under `crushedCode`, on a bounded grid of pixels; a YUV420 buffer is read back through
    /// `encoding`). nil for formats it does not read.
    public static func toneFractions(_ buffer: FrameBuffer, clippedCode: UInt8 = 250, crushedCode: UInt8 = 10,
                                     encoding: TonalExtremes.YCbCrEncoding = .sYCCFull) -> VideoHDRPolicy.SceneMeasure? {
        TonalExtremes(buffer, clippedLevel: clippedCode, crushedLevel: crushedCode, encoding: encoding).map {
            VideoHDRPolicy.SceneMeasure(clippedFraction: $0.clippedFraction, crushedFraction: $0.crushedFraction)
        }
    }

    /// x with m·x = y for a row-major 3 × 3 m (Cramer's rule); nil when m is not 3 × 3 or is singular.
    static func solve3x3(_ m: [Double], _ y: [Double]) -> [Double]? {
        guard m.count == 9, y.count == 3 else { return nil }
        func det(_ a: [Double]) -> Double {
            a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6])
        }
        let d = det(m)
        guard abs(d) > 1e-12 else { return nil }
        return (0..<3).map { column in
            var replaced = m
            for row in 0..<3 { replaced[row * 3 + column] = y[row] }
            return det(replaced) / d
        }
    }

    /// The sRGB decoding curve (IEC 61966-2-1) for 8-bit codes.
    private static let linear: [Double] = (0..<256).map { code in
        let v = Double(code) / 255
        return v <= 0.040_45 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
}
