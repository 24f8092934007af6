import Hardware

/// The simulated rig's true motion: one ground truth that feeds both the simulated IMU and the
/// simulated sensor's motion blur, so blur predicted from IMU samples can be checked against
/// blur rendered into frames.
public protocol MotionTruth: AnyObject, Sendable {
    /// True angular velocity of the camera body at `time`, rad/s, in the camera frame
    /// (x right, y down, z forward along the optical axis).
    func angularVelocity(at time: MonotonicTime) -> Vector3
    /// True specific force at `time`, m/s², in the camera frame (gravity included: at rest it
    /// points up, as an accelerometer reads it).
    func acceleration(at time: MonotonicTime) -> Vector3
}

/// A rig that never moves, camera level. An accelerometer at rest reads +1 g along "up"; the
/// camera's y points down, so the specific force is −g along y.
public final class StillMotion: MotionTruth {
    public init() {}
    public func angularVelocity(at time: MonotonicTime) -> Vector3 { .zero }
    public func acceleration(at time: MonotonicTime) -> Vector3 { Vector3(0, -9.80665, 0) }
}
