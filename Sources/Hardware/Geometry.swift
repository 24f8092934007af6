/// A size in pixels.
public struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var area: Int { width * height }
    public var description: String { "\(width)x\(height)" }
}

/// A rectangle in pixels (libcamera's `Rectangle`: x, y, width, height).
public struct PixelRect: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var description: String { "\(x),\(y)/\(width)x\(height)" }
}

/// A 3-vector of doubles, for angular rates, accelerations and rotation vectors.
public typealias Vector3 = SIMD3<Double>
