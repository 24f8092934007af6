import Foundation  // atan2
import Hardware
import Motion

/// A frame's alignment as image offsets, the form the sidecar's `StabilizationRecord.Alignment`
/// takes: where the first frame's centre point lies in this frame, and how far the content turned.
/// A merger registers the frame onto the first by shifting it by −offset and rotating by −rotation.
public struct AlignmentOffsets: Equatable, Sendable {
    /// Horizontal offset of the first frame's centre point in this frame, pixels (right positive).
    public var offsetXPixels: Double
    /// Vertical offset, pixels (down positive).
    public var offsetYPixels: Double
    /// Rotation of this frame's content relative to the first, degrees (clockwise positive).
    public var rotationDegrees: Double

    /// From a verdict's alignment quaternion (w, x, y, z; body at this frame seen from the body at the
    /// first) and the focal length in the pixels wanted (e.g. the gate's `focalLengthPixels`, mode
    /// pixels). Nil when `quaternion` is not four numbers or the rotation turns the axis sideways.
    public init?(quaternion: [Double], focalLengthPixels: Double) {
        guard quaternion.count == 4 else { return nil }
        let q = Quaternion(w: quaternion[0], x: quaternion[1], y: quaternion[2], z: quaternion[3]).normalized
        let v = q.conjugate.rotate(Vector3(0, 0, 1))
        guard v.z > 1e-6 else { return nil }
        offsetXPixels = focalLengthPixels * v.x / v.z
        offsetYPixels = focalLengthPixels * v.y / v.z
        // Twist about the optical axis; the camera turning clockwise (x toward y) turns the content back.
        rotationDegrees = -2 * atan2(q.z, q.w) * 180 / .pi
    }
}
