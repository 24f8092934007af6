import Hardware

/// A unit quaternion (w, x, y, z) for orientations: body (camera) frame to the world frame.
public struct Quaternion: Hashable, Sendable {
    public var w, x, y, z: Double
    public init(w: Double, x: Double, y: Double, z: Double) { self.w = w; self.x = x; self.y = y; self.z = z }
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// The rotation by `angle` radians about the unit vector `axis`.
    public init(axis: Vector3, angle: Double) {
        let h = angle / 2, s = sin(h)
        self.init(w: cos(h), x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                   x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }
    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }
    public var normalized: Quaternion {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        return n > 0 ? Quaternion(w: w / n, x: x / n, y: y / n, z: z / n) : .identity
    }
    /// Rotates `v` from the body frame to the world frame.
    public func rotate(_ v: Vector3) -> Vector3 {
        let r = self * Quaternion(w: 0, x: v.x, y: v.y, z: v.z) * conjugate
        return Vector3(r.x, r.y, r.z)
    }
    /// The angle of the rotation from `self` to `other`, radians (0…π).
    public func angle(to other: Quaternion) -> Double {
        let d = abs(w * other.w + x * other.x + y * other.y + z * other.z)
        return 2 * acos(min(1, d))
    }
}

/// Mahony's explicit complementary filter (Mahony, Hamel, Pflimlin 2008), gyro + accelerometer.
///
/// The world frame has +z up. The accelerometer's direction corrects tilt with a proportional gain
/// `proportionalGain` (1/s) and an integral gain `integralGain` (1/s², learns residual gyro bias);
/// yaw is unobservable without a magnetometer and follows the gyro. With `integralGain` = 0 this
/// is the same update as x-io's Fusion AHRS core (its `gain` = `proportionalGain`, rejection off),
/// which the `imu` benchmark checks. Integration: first order, q += ½·q⊗(0, ω′)·dt, normalised.
public struct MahonyFilter: Sendable {
    public var proportionalGain: Double
    public var integralGain: Double
    public private(set) var orientation = Quaternion.identity
    /// The learnt gyro bias correction, rad/s.
    public private(set) var integralCorrection = Vector3.zero

    public init(proportionalGain: Double = 0.5, integralGain: Double = 0) {
        self.proportionalGain = proportionalGain
        self.integralGain = integralGain
    }

    /// Starts from a tilt matching the accelerometer (yaw 0), to skip the convergence transient.
    public mutating func align(accel: Vector3) {
        let a = accel / max((accel * accel).sum().squareRoot(), 1e-9)
        let up = Vector3(0, 0, 1)
        // The rotation taking body vector `a` onto world up.
        let axis = Vector3(a.y * up.z - a.z * up.y, a.z * up.x - a.x * up.z, a.x * up.y - a.y * up.x)
        let s = (axis * axis).sum().squareRoot(), c = (a * up).sum()
        orientation = s < 1e-9 ? (c > 0 ? .identity : Quaternion(w: 0, x: 1, y: 0, z: 0))
            : Quaternion(axis: axis / s, angle: atan2(s, c))
    }

    /// One step: `gyro` rad/s and `accel` in any unit (only its direction is used), over `dt` s.
    @inline(__always)
    public mutating func update(gyro: Vector3, accel: Vector3, dt: Double) {
        var q = orientation
        var g = gyro
        let norm = (accel * accel).sum().squareRoot()
        if norm > 0 {
            let a = accel / norm
            // World up seen from the body: third row of R(q).
            let v = Vector3(2 * (q.x * q.z - q.w * q.y), 2 * (q.w * q.x + q.y * q.z),
                            q.w * q.w - q.x * q.x - q.y * q.y + q.z * q.z)
            let e = Vector3(a.y * v.z - a.z * v.y, a.z * v.x - a.x * v.z, a.x * v.y - a.y * v.x)
            if integralGain > 0 { integralCorrection += e * (integralGain * dt) }
            g += e * proportionalGain + integralCorrection
        }
        let h = 0.5 * dt
        q = Quaternion(w: q.w - h * (q.x * g.x + q.y * g.y + q.z * g.z),
                       x: q.x + h * (q.w * g.x + q.y * g.z - q.z * g.y),
                       y: q.y + h * (q.w * g.y - q.x * g.z + q.z * g.x),
                       z: q.z + h * (q.w * g.z + q.x * g.y - q.y * g.x))
        orientation = q.normalized
    }

    /// World up expressed in the body (camera) frame: the estimated tilt.
    public var upInBody: Vector3 { orientation.conjugate.rotate(Vector3(0, 0, 1)) }
}

import Foundation  // sin, cos, acos, atan2
