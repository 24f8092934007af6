import Hardware

/// An XRGB8888 image in memory: one `UInt32` per pixel, `0x00RRGGBB` (DRM "XR24"; little-endian
/// memory order B, G, R, X), rows packed with no padding. The viewfinder draws everything into one.
public struct Canvas: Sendable, Equatable {
    public let size: PixelSize
    /// `size.width * size.height` pixels, row-major, top row first.
    public var pixels: [UInt32]

    /// A canvas filled with `fill` (default black).
    public init(size: PixelSize, fill: UInt32 = 0) {
        self.size = size
        self.pixels = Array(repeating: fill, count: max(0, size.width) * max(0, size.height))
    }

    public var width: Int { size.width }
    public var height: Int { size.height }

    /// The pixel at (x, y); 0 outside the canvas.
    public func pixel(x: Int, y: Int) -> UInt32 {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        return pixels[y * width + x]
    }

    /// Fills `rect` (clipped to the canvas) with `color`.
    public mutating func fill(_ rect: PixelRect, color: UInt32) {
        let r = clip(rect)
        guard r.width > 0, r.height > 0 else { return }
        let w = width
        pixels.withUnsafeMutableBufferPointer { p in
            for y in r.y..<(r.y + r.height) {
                let row = y * w
                for x in r.x..<(r.x + r.width) { p[row + x] = color }
            }
        }
    }

    /// Blends `color` over `rect` with `alpha` in 0...256 (256 = opaque): darkened panels behind text.
    public mutating func blend(_ rect: PixelRect, color: UInt32, alpha: UInt32) {
        let r = clip(rect)
        guard r.width > 0, r.height > 0 else { return }
        let a = min(alpha, 256), w = width
        pixels.withUnsafeMutableBufferPointer { p in
            for y in r.y..<(r.y + r.height) {
                let row = y * w
                for x in r.x..<(r.x + r.width) { p[row + x] = Pixel.lerp(p[row + x], color, a) }
            }
        }
    }

    /// Draws a one-pixel-wide (or `thickness`) rectangle outline.
    public mutating func stroke(_ rect: PixelRect, color: UInt32, thickness: Int = 1) {
        let t = max(1, thickness)
        fill(PixelRect(x: rect.x, y: rect.y, width: rect.width, height: t), color: color)
        fill(PixelRect(x: rect.x, y: rect.y + rect.height - t, width: rect.width, height: t), color: color)
        fill(PixelRect(x: rect.x, y: rect.y, width: t, height: rect.height), color: color)
        fill(PixelRect(x: rect.x + rect.width - t, y: rect.y, width: t, height: rect.height), color: color)
    }

    /// A straight line from (x0, y0) to (x1, y1) (Bresenham), each point a `thickness`-square.
    public mutating func line(x0: Int, y0: Int, x1: Int, y1: Int, color: UInt32, thickness: Int = 1) {
        let dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1
        let t = max(1, thickness)
        var x = x0, y = y0, err = dx + dy
        while true {
            fill(PixelRect(x: x - t / 2, y: y - t / 2, width: t, height: t), color: color)
            if x == x1 && y == y1 { break }
            let e2 = 2 * err
            if e2 >= dy { err += dy; x += sx }
            if e2 <= dx { err += dx; y += sy }
        }
    }

    /// `rect` intersected with the canvas bounds.
    public func clip(_ rect: PixelRect) -> PixelRect {
        let x0 = max(0, rect.x), y0 = max(0, rect.y)
        let x1 = min(width, rect.x + rect.width), y1 = min(height, rect.y + rect.height)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}

/// XRGB8888 pixel helpers.
public enum Pixel {
    /// `0x00RRGGBB` from 8-bit channels.
    @inline(__always)
    public static func rgb(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt32 {
        UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
    }

    /// Channels of an XRGB8888 pixel.
    @inline(__always)
    public static func channels(_ p: UInt32) -> (r: UInt8, g: UInt8, b: UInt8) {
        (UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p))
    }

    /// Rec. 601 luma, 0...255, in integer arithmetic: (77 R + 150 G + 29 B) / 256.
    @inline(__always)
    public static func luma(_ p: UInt32) -> Int {
        let r = Int((p >> 16) & 0xFF), g = Int((p >> 8) & 0xFF), b = Int(p & 0xFF)
        return (77 &* r &+ 150 &* g &+ 29 &* b) >> 8
    }

    /// `a + (b - a) * t / 256` per channel, `t` in 0...256.
    @inline(__always)
    public static func lerp(_ a: UInt32, _ b: UInt32, _ t: UInt32) -> UInt32 {
        let u = 256 &- t
        let rb = ((a & 0xFF00FF) &* u &+ (b & 0xFF00FF) &* t) >> 8
        let g = ((a & 0x00FF00) &* u &+ (b & 0x00FF00) &* t) >> 8
        return (rb & 0xFF00FF) | (g & 0x00FF00)
    }

    public static let black: UInt32 = 0x000000
    public static let white: UInt32 = 0xFFFFFF
    public static let red: UInt32 = 0xFF3030
    public static let green: UInt32 = 0x30E040
    public static let yellow: UInt32 = 0xFFD000
    public static let cyan: UInt32 = 0x30D0FF
    public static let gray: UInt32 = 0x909090
}
