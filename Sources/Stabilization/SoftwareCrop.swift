import Hardware

/// A software crop of a processed frame, for when ScalerCrop is not available (or the output must be
/// cut after processing): cut `rect` and scale it (nearest neighbour) to `outputSize`.
public enum SoftwareCrop {
    /// Bytes per pixel of the packed formats this handles (BGR888, RGB888: 3; XRGB8888: 4).
    static func bytesPerPixel(_ format: PixelFormat) -> Int? {
        switch format {
        case .bgr888, .rgb888: 3
        case .xrgb8888: 4
        default: nil
        }
    }

    /// `rect` given in `field` coordinates, scaled to `buffer`'s own size.
    public static func rect(_ rect: PixelRect, field: PixelSize, in buffer: PixelSize) -> PixelRect {
        let sx = Double(buffer.width) / Double(max(field.width, 1)), sy = Double(buffer.height) / Double(max(field.height, 1))
        return PixelRect(x: Int((Double(rect.x) * sx).rounded()), y: Int((Double(rect.y) * sy).rounded()),
                         width: max(1, Int((Double(rect.width) * sx).rounded())), height: max(1, Int((Double(rect.height) * sy).rounded())))
    }

    /// Cuts `rect` (buffer pixels) out of `buffer` and scales it to `outputSize` (default: the
    /// rect's size). Throws `.invalidArgument` for a Bayer/planar format or a rect outside the frame.
    public static func crop(_ buffer: FrameBuffer, rect: PixelRect, outputSize: PixelSize? = nil) throws(StabilizationError) -> FrameBuffer {
        guard let bpp = bytesPerPixel(buffer.pixelFormat) else {
            throw StabilizationError(.invalidArgument, "software crop: pixel format \(buffer.pixelFormat) is not packed RGB (BGR888, RGB888, XRGB8888)")
        }
        guard rect.x >= 0, rect.y >= 0, rect.width > 0, rect.height > 0,
              rect.x + rect.width <= buffer.size.width, rect.y + rect.height <= buffer.size.height else {
            throw StabilizationError(.invalidArgument, "software crop: rect \(rect) is outside the \(buffer.size) frame")
        }
        let out = outputSize ?? rect.size
        guard out.width > 0, out.height > 0 else {
            throw StabilizationError(.invalidArgument, "software crop: output size \(out) is empty")
        }
        let stride = buffer.stride
        var bytes = [UInt8](repeating: 0, count: out.area * bpp)
        buffer.withUnsafeBytes { src in
            bytes.withUnsafeMutableBufferPointer { dst in
                for j in 0..<out.height {
                    let sy = rect.y + min(rect.height - 1, j * rect.height / out.height)
                    for i in 0..<out.width {
                        let sx = rect.x + min(rect.width - 1, i * rect.width / out.width)
                        let s = sy * stride + sx * bpp, d = (j * out.width + i) * bpp
                        guard s + bpp <= src.count else { continue }
                        for c in 0..<bpp { dst[d + c] = src[s + c] }
                    }
                }
            }
        }
        return FrameBuffer(pixelFormat: buffer.pixelFormat, size: out, stride: out.width * bpp, bytes: bytes)
    }
}
