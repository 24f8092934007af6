import Hardware

/// A geometric transform of a frame done on the encoder queue, where a frame's other conversions
/// are (video stabilization's rotation warp): it writes every pixel of an I420 image of the
/// source's size from the source I420 image (luma stride as given, chroma stride half of it).
public protocol VideoFrameWarp: Sendable {
    func warp(source: UnsafeRawPointer, sourceStride: Int, into target: UnsafeMutableRawPointer, targetStride: Int,
              size: PixelSize)
}

/// What video stabilization did to one frame, for the sidecar.
public struct StabilizedFrame: Sendable, Equatable, Codable {
    public var sequence: UInt64
    /// The correction (rotation from the camera to the stabilized view, at the middle row) as a
    /// rotation vector in the camera frame, degrees: x pitch, y yaw, z roll about the optical axis.
    public var correctionDegrees: [Double]
    /// Share of the crop margin the full correction would have used (above 1 it would not fit).
    public var marginUse: Double
    /// True when the margin limited the correction (it eased towards the camera's own path).
    public var marginHit: Bool

    public init(sequence: UInt64, correctionDegrees: [Double], marginUse: Double, marginHit: Bool) {
        self.sequence = sequence; self.correctionDegrees = correctionDegrees; self.marginUse = marginUse; self.marginHit = marginHit
    }
}
