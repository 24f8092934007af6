import Hardware

/// The layout of an unpacked Bayer raw format (libcamera "SRGGB12", "SBGGR10", …): 16-bit
/// little-endian samples with the value in the low `bitsPerSample` bits.
public struct BayerLayout: Hashable, Sendable {
    /// The 2×2 colour order, reading row by row: "RGGB", "GRBG", "GBRG" or "BGGR".
    public var order: String
    /// Significant bits per sample (8, 10, 12, 14 or 16).
    public var bitsPerSample: Int

    /// Parses a libcamera Bayer format name. Packed CSI-2 formats ("SRGGB10_CSI2P") and PiSP
    /// compressed ones are refused: `RawUnpacking` unpacks them first (as `BracketRecorder` does).
    public init(_ format: PixelFormat) throws {
        let name = format.rawValue
        guard format.isBayer, name.count > 5 else {
            throw MediaError(.invalidFrame, "pixel format \(name) is not a Bayer raw format")
        }
        guard let bits = Int(name.dropFirst(5)), [8, 10, 12, 14, 16].contains(bits) else {
            throw MediaError(.notYet, "not yet: raw format \(name) (only unpacked 16-bit Bayer samples are written)")
        }
        order = String(name.dropFirst().prefix(4))
        bitsPerSample = bits
    }

    /// The DNG/EXIF CFAPattern bytes (0 = red, 1 = green, 2 = blue) for the 2×2 repeat.
    public var cfaPattern: [UInt8] {
        order.map { $0 == "R" ? 0 : $0 == "G" ? 1 : 2 }
    }

    /// The largest sample value: 2^bits − 1.
    public var whiteLevel: Int { (1 << bitsPerSample) - 1 }

    /// Bytes per sample as stored in memory (always 2 here, 1 for 8-bit).
    public var bytesPerSample: Int { bitsPerSample > 8 ? 2 : 1 }
}
