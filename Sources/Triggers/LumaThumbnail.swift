import Hardware

/// A small luma copy of a frame (for example 160×120), one byte per cell, each cell the mean of a
/// block of the frame's pixels: what motion detection looks at. Box averaging a block of k×k
/// pixels also divides the sensor's noise by about k.
public struct LumaThumbnail: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row-major luma, 0…255.
    public var values: [UInt8]

    public init(width: Int, height: Int, values: [UInt8]) {
        self.width = width; self.height = height; self.values = values
    }

    /// Formats it can read: YUV420 (the Y plane), BGR888/RGB888 and XRGB8888 ((R + 2G + B) / 4).
    public static func canRead(_ format: PixelFormat) -> Bool {
        format == .yuv420 || format == .bgr888 || format == .rgb888 || format == .xrgb8888
    }

    /// Averages `buffer` into `width`×`height` cells (each cell samples a grid of at most 4×4 of
    /// its block's pixels, so the cost does not grow with the frame). Nil for a format it cannot read
    /// or a frame smaller than the thumbnail.
    public init?(_ buffer: FrameBuffer, width: Int, height: Int) {
        let size = buffer.size
        guard Self.canRead(buffer.pixelFormat), width > 0, height > 0, size.width >= width, size.height >= height,
              buffer.stride > 0 else { return nil }
        let bytesPerPixel: Int
        switch buffer.pixelFormat {
        case .yuv420: bytesPerPixel = 1
        case .xrgb8888: bytesPerPixel = 4
        default: bytesPerPixel = 3
        }
        // For RGB888 (R first) and BGR888 (B first) the sum R + 2G + B is the same; XRGB8888 is B, G, R, X in memory.
        let stride = buffer.stride
        guard buffer.byteCount >= stride * (size.height - 1) + size.width * bytesPerPixel else { return nil }
        var out = [UInt8](repeating: 0, count: width * height)
        let stepsX = min(4, size.width / width), stepsY = min(4, size.height / height)
        buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for cy in 0..<height {
                let y0 = cy * size.height / height, y1 = (cy + 1) * size.height / height
                let dy = max(1, (y1 - y0) / stepsY)
                for cx in 0..<width {
                    let x0 = cx * size.width / width, x1 = (cx + 1) * size.width / width
                    let dx = max(1, (x1 - x0) / stepsX)
                    var sum = 0, count = 0
                    var y = y0 + dy / 2
                    while y < y1 {
                        let row = base + y * stride
                        var x = x0 + dx / 2
                        while x < x1 {
                            let p = row + x * bytesPerPixel
                            if bytesPerPixel == 1 { sum += 4 * Int(p[0]) } else { sum += Int(p[0]) + 2 * Int(p[1]) + Int(p[2]) }
                            count += 1
                            x += dx
                        }
                        y += dy
                    }
                    out[cy * width + cx] = UInt8(clamping: count > 0 ? (sum + 2 * count) / (4 * count) : 0)
                }
            }
        }
        self.init(width: width, height: height, values: out)
    }
}
