import Hardware

/// The rotation warp of a packed RGB frame (BGR888, RGB888, XRGB8888: every byte of a pixel
/// sampled alike), for the previews: each output row through its band's homography, bilinear,
/// as `YUVRotationWarp` does for the recording's I420 frames.
public struct PackedRotationWarp: Sendable {
    public let geometry: WarpGeometry
    public let bands: [Homography]

    public init(geometry: WarpGeometry, bands: [Homography]) {
        self.geometry = geometry; self.bands = bands
    }

    /// Bytes per pixel of the packed formats it warps; nil for others.
    public static func bytesPerPixel(_ format: PixelFormat) -> Int? {
        switch format {
        case .bgr888, .rgb888: 3
        case .xrgb8888: 4
        default: nil
        }
    }

    /// Writes the warped image (`size` pixels, `bytesPerPixel` each, rows `stride` apart in both).
    public func warp(source: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, size: PixelSize, stride: Int,
                     bytesPerPixel: Int) {
        let w = size.width, h = size.height
        guard w >= 2, h >= 2, !bands.isEmpty else { return }
        let (maps, bandRows) = YUVRotationWarp.maps(bands, geometry: geometry, size: size)
        let halfW = Float(w) / 2, halfH = Float(h) / 2
        for y in 0..<h {
            let map = maps[min(y / bandRows, maps.count - 1)]
            for channel in 0..<bytesPerPixel {
                YUVRotationWarp.sampleRow(into: target + y * stride + channel, count: w, from: source + channel, stride: stride,
                                          step: bytesPerPixel, sourceWidth: w, sourceHeight: h, map: map, y: Float(y) + 0.5 - halfH,
                                          xStep: 1, xStart: 0.5 - halfW, toSource: 1, sourceOffset: (halfW - 0.5, halfH - 0.5))
            }
        }
    }
}
