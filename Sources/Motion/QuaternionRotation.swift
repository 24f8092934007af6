import Foundation  // atan2
import Hardware

extension Quaternion {
    /// The rotation as a matrix, its three rows (M·v rotates v as `rotate` does); for a unit
    /// quaternion.
    public var matrixRows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let (w, x, y, z) = (self.w, self.x, self.y, self.z)
        return (SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
                SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
                SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }

    /// The rotation vector (axis × angle, radians), the shorter way round.
    public var rotationVector: Vector3 {
        let q = w < 0 ? Quaternion(w: -w, x: -x, y: -y, z: -z) : self
        let s = (q.x * q.x + q.y * q.y + q.z * q.z).squareRoot()
        guard s > 1e-12 else { return Vector3(2 * q.x, 2 * q.y, 2 * q.z) }
        let angle = 2 * atan2(s, q.w)
        return Vector3(q.x, q.y, q.z) * (angle / s)
    }

    /// The rotation by rotation vector `v` (radians).
    public init(rotationVector v: Vector3) {
        let angle = (v * v).sum().squareRoot()
        self = angle > 1e-15 ? Quaternion(axis: v / angle, angle: angle) : Quaternion(w: 1, x: v.x / 2, y: v.y / 2, z: v.z / 2).normalized
    }

    /// Spherical interpolation from `self` (t = 0) to `other` (t = 1), the shorter way.
    public func slerp(to other: Quaternion, _ t: Double) -> Quaternion {
        (self * Quaternion(rotationVector: (conjugate * other).normalized.rotationVector * t)).normalized
    }
}
