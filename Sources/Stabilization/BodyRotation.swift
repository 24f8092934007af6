import Foundation  // sqrt, sin, cos
import Hardware
import Motion

/// Rotations from gyro samples, in the camera (body) frame.
enum BodyRotation {
    /// The rotation from the body at `start` to the body at `end` (q(end) = q(start) ⊗ result),
    /// integrating the bias-corrected rates of `samples` (time-ordered) with the midpoint rule;
    /// the stretch before the first sample uses the first sample's rate.
    static func integrate(_ samples: [IMUSample], from start: MonotonicTime, to end: MonotonicTime) -> Quaternion {
        var q = Quaternion.identity
        var time = start
        var previous = samples.first?.gyro ?? .zero
        for s in samples where s.timestamp > start {
            let until = min(s.timestamp, end)
            q = q * step((previous + s.gyro) / 2, seconds: (until - time).secondsValue)
            time = until
            previous = s.gyro
            if until >= end { break }
        }
        if time < end { q = q * step(previous, seconds: (end - time).secondsValue) }
        return q.normalized
    }

    /// The rotation by rate `omega` (rad/s) held for `seconds`.
    static func step(_ omega: Vector3, seconds: Double) -> Quaternion {
        let rate = (omega * omega).sum().squareRoot()
        guard rate > 0, seconds > 0 else { return .identity }
        return Quaternion(axis: omega / rate, angle: rate * seconds)
    }

    /// The tracker's orientation (body to world) at `time`, back-propagated from its newest sample
    /// through the kept history; nil when the history does not reach back to `time`.
    static func orientation(of tracker: MotionTracker, at time: MonotonicTime) -> Quaternion? {
        guard let newest = tracker.history.newest?.timestamp, let oldest = tracker.history.oldest?.timestamp,
              time >= oldest else { return nil }
        guard time < newest else { return tracker.orientation }
        let delta = integrate(tracker.history.samples(from: time, to: newest), from: time, to: newest)
        return (tracker.orientation * delta.conjugate).normalized
    }
}
