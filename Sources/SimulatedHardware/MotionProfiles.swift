import Hardware
import Motion


/// A x(t) = amplitude · sin(2π·f·t + phase) term.
public struct Sinusoid: Hashable, Sendable {
    public var amplitude: Double
    public var frequencyHertz: Double
    public var phase: Double
    public init(amplitude: Double, frequencyHertz: Double, phase: Double) {
        self.amplitude = amplitude; self.frequencyHertz = frequencyHertz; self.phase = phase
    }
    func value(_ t: Double) -> Double { amplitude * sin(2 * .pi * frequencyHertz * t + phase) }
    func rate(_ t: Double) -> Double { amplitude * 2 * .pi * frequencyHertz * cos(2 * .pi * frequencyHertz * t + phase) }
}

/// A motion profile in closed form: yaw (about world vertical), pitch (about camera x) and roll
/// (about the optical axis) as sums of sinusoids plus a constant pan rate, and a world linear
/// acceleration. Body-to-world rotation R = Ry(yaw)·Rx(pitch)·Rz(roll); world frame: x right,
/// y down, z forward at t = origin. Angular velocity and specific force follow exactly from the
/// angles, so the gyro and accelerometer truths are consistent (fusion can be checked).
public final class ProfileMotion: MotionTruth {
    public let name: String
    public let yaw: [Sinusoid], pitch: [Sinusoid], roll: [Sinusoid]
    /// Constant yaw rate, rad/s, from `origin`.
    public let panRadiansPerSecond: Double
    /// Linear acceleration along world y (vertical, down), m/s².
    public let vertical: [Sinusoid]
    public let origin: MonotonicTime

    public init(name: String, yaw: [Sinusoid] = [], pitch: [Sinusoid] = [], roll: [Sinusoid] = [],
                panRadiansPerSecond: Double = 0, vertical: [Sinusoid] = [], origin: MonotonicTime = .zero) {
        self.name = name; self.yaw = yaw; self.pitch = pitch; self.roll = roll
        self.panRadiansPerSecond = panRadiansPerSecond; self.vertical = vertical; self.origin = origin
    }

    /// (yaw, pitch, roll) in radians at `time`.
    public func angles(at time: MonotonicTime) -> (yaw: Double, pitch: Double, roll: Double) {
        let t = (time - origin).secondsValue
        return (yaw.reduce(panRadiansPerSecond * t) { $0 + $1.value(t) },
                pitch.reduce(0) { $0 + $1.value(t) }, roll.reduce(0) { $0 + $1.value(t) })
    }

    /// The body-to-world orientation at `time`: R = Ry(yaw)·Rx(pitch)·Rz(roll) (world y down).
    public func orientation(at time: MonotonicTime) -> Quaternion {
        let a = angles(at: time)
        return Quaternion(axis: Vector3(0, 1, 0), angle: a.yaw) * Quaternion(axis: Vector3(1, 0, 0), angle: a.pitch)
            * Quaternion(axis: Vector3(0, 0, 1), angle: a.roll)
    }

    /// Rotates a world vector into the body (camera) frame at `time`: Rz(−r)·Rx(−p)·Ry(−y)·v.
    public func worldToBody(_ v: Vector3, at time: MonotonicTime) -> Vector3 {
        let a = angles(at: time)
        return rotateZ(-a.roll, rotateX(-a.pitch, rotateY(-a.yaw, v)))
    }

    public func angularVelocity(at time: MonotonicTime) -> Vector3 {
        let t = (time - origin).secondsValue
        let a = angles(at: time)
        let yawRate = yaw.reduce(panRadiansPerSecond) { $0 + $1.rate(t) }
        let pitchRate = pitch.reduce(0) { $0 + $1.rate(t) }
        let rollRate = roll.reduce(0) { $0 + $1.rate(t) }
        let fromYaw = rotateZ(-a.roll, rotateX(-a.pitch, Vector3(0, yawRate, 0)))
        let fromPitch = rotateZ(-a.roll, Vector3(pitchRate, 0, 0))
        return fromYaw + fromPitch + Vector3(0, 0, rollRate)
    }

    public func acceleration(at time: MonotonicTime) -> Vector3 {
        let t = (time - origin).secondsValue
        let linear = Vector3(0, vertical.reduce(0) { $0 + $1.value(t) }, 0)
        let gravity = Vector3(0, 9.80665, 0)
        return worldToBody(linear - gravity, at: time)
    }
}

func rotateX(_ a: Double, _ v: Vector3) -> Vector3 {
    let c = cos(a), s = sin(a)
    return Vector3(v.x, c * v.y - s * v.z, s * v.y + c * v.z)
}
func rotateY(_ a: Double, _ v: Vector3) -> Vector3 {
    let c = cos(a), s = sin(a)
    return Vector3(c * v.x + s * v.z, v.y, -s * v.x + c * v.z)
}
func rotateZ(_ a: Double, _ v: Vector3) -> Vector3 {
    let c = cos(a), s = sin(a)
    return Vector3(c * v.x - s * v.y, s * v.x + c * v.y, v.z)
}

/// The named profiles the board file (`imu.motion`) and `sim motion NAME [AMPLITUDE]` choose.
public enum MotionProfile: String, Sendable, CaseIterable {
    /// On a tripod: no rotation; amplitude (default 0) adds a 25 Hz tripod-head vibration.
    case still
    /// Handheld: physiological tremor, 8–12 Hz, plus slow sway (default 3 °/s RMS).
    case handheld
    /// Walking: ~1.9 Hz step bob and half-rate sway, vertical acceleration (default 15 °/s RMS).
    case walking
    /// A slow pan: constant yaw rate (default 10 °/s) with a faint tremor.
    case pan

    public var defaultAmplitudeDegreesPerSecond: Double {
        switch self { case .still: 0; case .handheld: 3; case .walking: 15; case .pan: 10 }
    }

    /// Builds the profile. `amplitudeDegreesPerSecond` is the RMS angular speed (the constant
    /// rate for `pan`); the same seed gives the same motion. `origin` is t = 0 of the profile.
    public func make(amplitudeDegreesPerSecond: Double? = nil, seed: UInt64 = 1,
                     origin: MonotonicTime = .zero) -> ProfileMotion {
        let amplitude = max(0, amplitudeDegreesPerSecond ?? defaultAmplitudeDegreesPerSecond) * .pi / 180
        var rng = SeededGenerator(seed: seed)
        // Terms with relative rate amplitudes, scaled so the total RMS rate is `amplitude`.
        func terms(_ count: Int, _ band: ClosedRange<Double>, weight: Double) -> [Sinusoid] {
            (0..<count).map { _ in
                let f = Double.random(in: band, using: &rng)
                let rate = weight * Double.random(in: 0.5...1, using: &rng)
                return Sinusoid(amplitude: rate / (2 * .pi * f), frequencyHertz: f,
                                phase: Double.random(in: 0..<(2 * .pi), using: &rng))
            }
        }
        func scaled(_ groups: [[Sinusoid]], to rms: Double) -> [[Sinusoid]] {
            let meanSquare = groups.joined().reduce(0) { s, x in
                let r = x.amplitude * 2 * .pi * x.frequencyHertz
                return s + r * r / 2
            }
            let k = meanSquare > 0 ? rms / meanSquare.squareRoot() : 0
            return groups.map { $0.map { Sinusoid(amplitude: $0.amplitude * k, frequencyHertz: $0.frequencyHertz, phase: $0.phase) } }
        }
        switch self {
        case .still:
            let g = scaled([terms(1, 24...26, weight: 1), terms(1, 24...26, weight: 1)], to: amplitude)
            return ProfileMotion(name: rawValue, yaw: g[0], pitch: g[1], origin: origin)
        case .handheld:
            let g = scaled([terms(3, 8...12, weight: 1) + terms(1, 0.3...1.5, weight: 0.6),
                            terms(3, 8...12, weight: 1) + terms(1, 0.3...1.5, weight: 0.6),
                            terms(2, 8...12, weight: 0.4)], to: amplitude)
            return ProfileMotion(name: rawValue, yaw: g[0], pitch: g[1], roll: g[2], origin: origin)
        case .walking:
            let step = Double.random(in: 1.7...2.0, using: &rng)
            let g = scaled([terms(1, (step / 2)...(step / 2), weight: 0.5),
                            terms(1, step...step, weight: 1) + terms(1, 8...12, weight: 0.1),
                            terms(1, (step / 2)...(step / 2), weight: 0.6)], to: amplitude)
            let bob = Sinusoid(amplitude: 2.0, frequencyHertz: step, phase: Double.random(in: 0..<(2 * .pi), using: &rng))
            return ProfileMotion(name: rawValue, yaw: g[0], pitch: g[1], roll: g[2], vertical: [bob], origin: origin)
        case .pan:
            let tremor = scaled([terms(2, 8...12, weight: 1)], to: amplitude * 0.02)
            return ProfileMotion(name: rawValue, pitch: tremor[0], panRadiansPerSecond: amplitude, origin: origin)
        }
    }

    /// Parses a name as typed on the console or in the board file.
    public static func named(_ name: String) throws -> MotionProfile {
        guard let p = MotionProfile(rawValue: name.lowercased()) else {
            throw HardwareError(.invalidArgument, "motion profile \"\(name)\": expected still, handheld, walking or pan")
        }
        return p
    }
}

/// A truth whose profile can be swapped while the simulation runs (`sim motion ...`).
public final class SwitchableMotion: MotionTruth {
    private let current: LockedValue<ProfileMotion>
    public init(_ initial: ProfileMotion) { current = LockedValue(initial) }
    /// The profile now in force.
    public var profile: ProfileMotion { current.current }
    /// Switches to `profile` from now on.
    public func switchTo(_ profile: ProfileMotion) { current.withLock { $0 = profile } }
    public func angularVelocity(at time: MonotonicTime) -> Vector3 { profile.angularVelocity(at: time) }
    public func acceleration(at time: MonotonicTime) -> Vector3 { profile.acceleration(at: time) }
}

/// The blur the simulated sensor renders for an exposure over `window`: the length of the path
/// the image centre travels, f × ∫|(ωx, ωy)| dt, integrated from the ground truth with fine
/// midpoint steps (≤ 20 µs). The simulated sensor uses this; the IMU's prediction is checked
/// against it.
public func renderedBlurPixels(truth: any MotionTruth, window: ClosedRange<MonotonicTime>,
                               focalLengthPixels: Double) -> Double {
    let duration = (window.upperBound - window.lowerBound).secondsValue
    guard duration > 0 else { return 0 }
    let steps = min(200_000, max(200, Int((duration / 20e-6).rounded(.up))))
    let dt = duration / Double(steps)
    var angle = 0.0
    for i in 0..<steps {
        let t = window.lowerBound + .nanoseconds(Int64(((Double(i) + 0.5) * dt * 1e9).rounded()))
        let w = truth.angularVelocity(at: t)
        angle += (w.x * w.x + w.y * w.y).squareRoot() * dt
    }
    return angle * focalLengthPixels
}

import Foundation  // sin, cos, log
