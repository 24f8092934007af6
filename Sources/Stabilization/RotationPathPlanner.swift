import Camera
import Foundation  // exp, atan2, tanh
import Hardware
import Motion

/// Plans the stabilized view of each frame in rotation space (quaternions, body to world), from
/// the camera's orientation at each frame's middle:
/// - Standard: causal exponential smoothing towards the camera's orientation (time constant
///   0.25 s), margin 10 %, no latency; its state follows what was finally shown, so a correction
///   the margin cut short is not owed later.
/// - Cinematic: a centred Gaussian over ±N frames (N = 15, σ = N/2) of the rotations relative to
///   the frame's own, margin 20 %, latency N frames, then a causal stage (time constant 1.5 s)
///   that takes out the slow sway the window keeps; then its roll about the optical axis is
///   levelled (the world's +z is up), so the horizon stays still.
/// Then `ease` fits the view into the margin by easing towards the camera's own orientation
/// with a soft knee rather than clamping (no jump when the motion outgrows the margin).
/// Loop-confined.
public final class RotationPathPlanner {
    public let mode: StabilizationMode
    public let margin: Double
    public let lookaheadFrames: Int
    public let timeConstantSeconds = 0.25
    /// Cinematic's causal stage after the centred average, seconds: it takes out the slow sway
    /// (0.3–1.5 Hz) the ±0.5 s window keeps, so a handheld shot looks locked off; pans still come
    /// through (the margin easing lets the view follow them).
    public var cinematicTimeConstantSeconds = 1.5
    /// Margin use above which the correction starts to ease towards the camera's path.
    public static let knee = 0.6

    /// The crop margin of a mode: output field = field ÷ (1 + margin) (0 for off and auto).
    public static func margin(for mode: StabilizationMode) -> Double {
        switch mode {
        case .standard: 0.10
        case .cinematic: 0.20
        case .off, .auto: 0
        }
    }

    /// One frame's smoothed view before the margin is applied.
    public struct Target: Sendable {
        public var time: MonotonicTime
        /// The camera at the frame's middle, and the view the smoothing wants there.
        public var camera: Quaternion
        public var view: Quaternion
    }

    private var times: [MonotonicTime] = []
    private var emitted = 0
    private var standardView: Quaternion?
    private var lastTime: MonotonicTime?
    private var cinematicView: Quaternion?
    private var cinematicTime: MonotonicTime?

    public init(mode: StabilizationMode, lookaheadFrames: Int = 15) throws(StabilizationError) {
        switch mode {
        case .standard: margin = Self.margin(for: mode); self.lookaheadFrames = 0
        case .cinematic: margin = Self.margin(for: mode); self.lookaheadFrames = max(1, lookaheadFrames)
        case .off, .auto:
            throw StabilizationError(.invalidArgument, "rotation path planner: mode \(mode.rawValue) has no path (resolve auto first; off needs none)")
        }
        self.mode = mode
    }

    /// Adds the next frame's middle time; returns the targets now decided (standard: this frame;
    /// cinematic: the frame N back, once N frames after it are known). `orientationAt` gives the
    /// camera's orientation at a time (asked at decision time, so cinematic's come from the IMU's
    /// later samples); nil when unknown (then the frame's target is its own orientation).
    public func push(time: MonotonicTime, orientationAt: (MonotonicTime) -> Quaternion?) -> [Target] {
        times.append(time)
        if lookaheadFrames == 0 {
            times.removeAll()
            return [causal(time: time, camera: orientationAt(time))]
        }
        guard times.count > emitted + lookaheadFrames else { return [] }
        return [centred(orientationAt)]
    }

    /// The targets still held by the lookahead (end of recording), smoothed over what is there.
    public func flush(orientationAt: (MonotonicTime) -> Quaternion?) -> [Target] {
        var out: [Target] = []
        while emitted < times.count { out.append(centred(orientationAt)) }
        return out
    }

    /// Standard: what was finally shown (after the margin), the state the smoothing goes on from.
    public func shown(_ view: Quaternion) {
        if lookaheadFrames == 0 { standardView = view } else { cinematicView = view }
    }

    private func causal(time: MonotonicTime, camera: Quaternion?) -> Target {
        let dt = lastTime.map { max(0, (time - $0).secondsValue) } ?? 0
        lastTime = time
        guard let camera else { return Target(time: time, camera: standardView ?? .identity, view: standardView ?? .identity) }
        let previous = standardView ?? camera
        let view = previous.slerp(to: camera, 1 - exp(-dt / timeConstantSeconds))
        standardView = view
        return Target(time: time, camera: camera, view: view)
    }

    private func centred(_ orientationAt: (MonotonicTime) -> Quaternion?) -> Target {
        let index = emitted, n = lookaheadFrames, sigma = Double(lookaheadFrames) / 2
        emitted += 1
        defer {
            // Keep N frames behind the next centre (bounded memory).
            if emitted > n { times.removeFirst(); emitted -= 1 }
        }
        let time = times[index]
        guard let centre = orientationAt(time) else { return Target(time: time, camera: .identity, view: .identity) }
        var sum = Vector3.zero, weights = 0.0
        for k in max(0, index - n)...min(times.count - 1, index + n) {
            guard let q = k == index ? centre : orientationAt(times[k]) else { continue }
            let w = exp(-Double((k - index) * (k - index)) / (2 * sigma * sigma))
            sum += (centre.conjugate * q).normalized.rotationVector * w
            weights += w
        }
        let mean = (centre * Quaternion(rotationVector: sum / max(weights, 1e-12))).normalized
        let dt = cinematicTime.map { max(0, (time - $0).secondsValue) } ?? 0
        cinematicTime = time
        let previous = cinematicView ?? mean
        let view = cinematicTimeConstantSeconds > 0 ? previous.slerp(to: mean, 1 - exp(-dt / cinematicTimeConstantSeconds)) : mean
        cinematicView = view
        return Target(time: time, camera: centre, view: (view * Quaternion(axis: Vector3(0, 0, 1), angle: Self.levelRoll(view))).normalized)
    }

    /// The turn about `view`'s optical axis that makes its x axis horizontal (world +z up),
    /// radians; 0 when it points near straight up or down (no horizon).
    static func levelRoll(_ view: Quaternion) -> Double {
        let right = view.rotate(Vector3(1, 0, 0)), down = view.rotate(Vector3(0, 1, 0))
        guard down.z < -0.2 else { return 0 }
        return atan2(right.z, -down.z)
    }

    /// The view actually shown: `target.view` when its warp keeps within the knee of the margin,
    /// else eased towards the camera (soft knee: the share of the margin used grows ever slower
    /// towards 1), and cut back until it fits if it still would not. `bands(view)` gives the
    /// frame's band homographies for a view. Returns the view, the margin use the full correction
    /// would have had, and whether the margin limited it.
    public static func ease(_ target: Target, geometry: WarpGeometry,
                            bands: (Quaternion) -> [Homography]) -> (view: Quaternion, use: Double, hit: Bool) {
        let full = geometry.marginUse(bands(target.view))
        guard full > knee else { return (target.view, full, false) }
        let soft = knee + (1 - knee) * tanh((full - knee) / (1 - knee))
        var fraction = full.isFinite ? soft / full : 0
        var view = target.camera.slerp(to: target.view, fraction)
        // The use is nearly proportional to the rotation; where it is not, halve until it fits.
        var tries = 0
        while geometry.marginUse(bands(view)) > 1, tries < 12 {
            fraction /= 2; tries += 1
            view = target.camera.slerp(to: target.view, fraction)
        }
        if tries == 12 { view = target.camera }
        return (view, full, true)
    }
}
