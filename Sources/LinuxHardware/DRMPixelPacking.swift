import Hardware

/// Writes an XRGB8888 image into a mapped scan-out buffer of another layout and pitch.
public enum DRMPixelPacking {
    /// Packs `pixels` (`size.width × size.height`, 0x00RRGGBB) into `destination`, whose rows are
    /// `pitch` bytes apart, as `format` (little-endian, as DRM formats are defined).
    /// The destination must hold `pitch * size.height` bytes.
    public static func pack(_ pixels: UnsafeBufferPointer<UInt32>, size: PixelSize, format: DRMScanoutFormat,
                            into destination: UnsafeMutableRawPointer, pitch: Int) {
        let w = size.width
        guard w > 0, size.height > 0, pixels.count >= w * size.height, let source = pixels.baseAddress else { return }
        for y in 0..<size.height {
            let row = destination + y * pitch
            let src = source + y * w
            switch format {
            case .xrgb8888:
                row.copyMemory(from: src, byteCount: w * 4)
            case .rgb565:
                for x in 0..<w {
                    let p = src[x]
                    let v = UInt16(truncatingIfNeeded: (p >> 8) & 0xF800 | (p >> 5) & 0x07E0 | (p >> 3) & 0x001F)
                    row.storeBytes(of: v.littleEndian, toByteOffset: 2 * x, as: UInt16.self)
                }
            case .xrgb16161616:
                for x in 0..<w {
                    let p = UInt64(src[x])
                    let b = (p & 0xFF) * 257, g = ((p >> 8) & 0xFF) * 257, r = ((p >> 16) & 0xFF) * 257
                    row.storeBytes(of: (0xFFFF << 48 | r << 32 | g << 16 | b).littleEndian, toByteOffset: 8 * x, as: UInt64.self)
                }
            }
        }
    }
}
