import Hardware
import Motion

/// The simulated camera's orientation, integrated from the rig's true motion: the attitude of a
/// frame's rows under the rolling shutter and the rotation over an exposure, for motion blur.
struct SimulatedCameraAttitude {
    /// Knots of a frame's rolling-shutter attitude: rows 0, 1/16, … 1 of the frame.
    static let knots = 17
    /// The rig's true motion.
    let motion: any MotionTruth
    /// The camera's orientation relative to where it pointed when streaming started (body now to
    /// body then), integrated up to `integratedTo` (nil: not yet, since streaming started).
    private var rotation = Quaternion.identity
    private var integratedTo: MonotonicTime?

    init(motion: any MotionTruth) { self.motion = motion }

    /// Streaming (re)starts: the orientation then is the reference.
    mutating func restart() {
        rotation = .identity
        integratedTo = nil
    }

    /// The camera's attitude at the middle of each knot row's exposure (the row at fraction r of
    /// the readout starts its exposure r × readout after `start`), advancing the orientation kept:
    /// the rotation from the camera then to the camera at streaming start, integrated from the truth
    /// in steps of ≤ 0.25 ms. Empty while the camera has never turned.
    mutating func rowAttitudes(start: MonotonicTime, readoutMicroseconds: Double, exposureMicroseconds: Double) -> [Quaternion] {
        let knots = Self.knots
        var times: [MonotonicTime] = []
        for k in 0..<knots {
            let micros = readoutMicroseconds * Double(k) / Double(knots - 1) + exposureMicroseconds / 2
            times.append(start + .nanoseconds(Int64((micros * 1000).rounded())))
        }
        guard let from = integratedTo else {
            (rotation, integratedTo) = (.identity, start)
            return advance(.identity, from: start, through: times)
        }
        // The orientation kept is the frame start's: the next frame's rows start from it.
        let atStart = advance(rotation, from: from, through: [start])[0]
        (rotation, integratedTo) = (atStart, start)
        let rows = advance(atStart, from: start, through: times)
        return rows.allSatisfy({ $0 == .identity }) ? [] : rows
    }

    /// `rotation` carried from `from` through each of `times` (ascending) by the truth's rates.
    private func advance(_ rotation: Quaternion, from: MonotonicTime, through times: [MonotonicTime]) -> [Quaternion] {
        var q = rotation, now = from
        var out: [Quaternion] = []
        for time in times {
            let span = max(0, (time - now).secondsValue)
            let steps = max(1, Int((span / 250e-6).rounded(.up)))
            let dt = span / Double(steps)
            for k in 0..<steps where dt > 0 {
                let t = now + .nanoseconds(Int64(((Double(k) + 0.5) * dt * 1e9).rounded()))
                let w = motion.angularVelocity(at: t)
                let rate = (w * w).sum().squareRoot()
                if rate > 0 { q = (q * Quaternion(axis: w / rate, angle: rate * dt)).normalized }
            }
            now = max(now, time)
            out.append(q)
        }
        return out
    }

    /// Rotation of the camera over `microseconds` from `start` (rad about x and y), from the motion truth.
    func angularMotion(from start: MonotonicTime, microseconds: Double) -> (x: Double, y: Double) {
        let steps = 8
        let dt = microseconds / 1e6 / Double(steps)
        var angle = Vector3.zero
        for k in 0..<steps {
            let t = start + .nanoseconds(Int64((Double(k) + 0.5) * dt * 1e9))
            angle += motion.angularVelocity(at: t) * dt
        }
        return (angle.x, angle.y)
    }
}
