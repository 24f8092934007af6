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
///   turned towards level (the world's +z is up; time constant 1 s), so the horizon stays still.
/// Both carry the view they showed last from the camera of that frame as the orientation source
/// answers now (not as it answered then), so only the camera's measured turn moves the picture.
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
    /// Cinematic's levelling time constant, seconds: the horizon is turned towards level by this
    /// much per second rather than all at once each frame, because the level read from the
    /// tracker's world wobbles from one frame's answer to the next (its accelerometer
    /// corrections), and a level taken whole every frame showed that wobble as roll.
    public var levelTimeConstantSeconds = 1.0
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
    private var lastTime: MonotonicTime?
    /// The smoothing's state: the view last shown (before levelling) and the camera at that
    /// frame, both as the orientation source gave them then. The next frame asks for that
    /// frame's camera again and carries the view over by the camera's turn (`carried`), so a
    /// source whose world shifts a little between answers (the tracker's current orientation,
    /// taken back through the gyro) moves nothing on screen.
    private var state: (time: MonotonicTime, camera: Quaternion, view: Quaternion)?
    /// The level roll applied last (cinematic), radians.
    private var level: Double?
    /// The last target, and the level it carries (to take it off the shown view).
    private var lastTarget: (target: Target, level: Double)?

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
            return [causal(time: time, orientationAt: orientationAt)]
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

    /// What was finally shown (after the margin) for the last target: the state the smoothing
    /// goes on from.
    public func shown(_ view: Quaternion) {
        guard let last = lastTarget else { return }
        state = (last.target.time, last.target.camera, (view * Quaternion(axis: Vector3(0, 0, 1), angle: -last.level)).normalized)
    }

    /// The last shown view, carried into the source's present answers: the same turn from that
    /// frame's camera as asked again now.
    private func carried(_ orientationAt: (MonotonicTime) -> Quaternion?) -> Quaternion? {
        guard let state else { return nil }
        guard let now = orientationAt(state.time) else { return state.view }
        return (now * (state.camera.conjugate * state.view)).normalized
    }

    private func emit(_ target: Target, level: Double = 0) -> Target {
        lastTarget = (target, level)
        state = (target.time, target.camera, (target.view * Quaternion(axis: Vector3(0, 0, 1), angle: -level)).normalized)
        return target
    }

    private func causal(time: MonotonicTime, orientationAt: (MonotonicTime) -> Quaternion?) -> Target {
        let dt = lastTime.map { max(0, (time - $0).secondsValue) } ?? 0
        lastTime = time
        let previous = carried(orientationAt)
        guard let camera = orientationAt(time) else {
            lastTarget = nil  // unknown: shown as it is, the state kept
            return Target(time: time, camera: previous ?? .identity, view: previous ?? .identity)
        }
        let view = (previous ?? camera).slerp(to: camera, 1 - exp(-dt / timeConstantSeconds))
        return emit(Target(time: time, camera: camera, view: view))
    }

    private func centred(_ orientationAt: (MonotonicTime) -> Quaternion?) -> Target {
        let index = emitted, n = lookaheadFrames, sigma = Double(lookaheadFrames) / 2
        emitted += 1
        defer {
            // Keep N frames behind the next centre (bounded memory).
            if emitted > n { times.removeFirst(); emitted -= 1 }
        }
        let time = times[index]
        guard let centre = orientationAt(time) else {
            lastTarget = nil
            return Target(time: time, camera: .identity, view: .identity)
        }
        var sum = Vector3.zero, weights = 0.0
        for k in max(0, index - n)...min(times.count - 1, index + n) {
            guard let q = k == index ? centre : orientationAt(times[k]) else { continue }
            let w = exp(-Double((k - index) * (k - index)) / (2 * sigma * sigma))
            sum += (centre.conjugate * q).normalized.rotationVector * w
            weights += w
        }
        let mean = (centre * Quaternion(rotationVector: sum / max(weights, 1e-12))).normalized
        let dt = lastTime.map { max(0, (time - $0).secondsValue) } ?? 0
        lastTime = time
        let previous = carried(orientationAt) ?? mean
        let view = cinematicTimeConstantSeconds > 0 ? previous.slerp(to: mean, 1 - exp(-dt / cinematicTimeConstantSeconds)) : mean
        // Towards level with its own time constant (whole on the first frame).
        let wanted = Self.levelRoll(view)
        let roll = level.map { $0 + (wanted - $0) * (levelTimeConstantSeconds > 0 ? 1 - exp(-dt / levelTimeConstantSeconds) : 1) } ?? wanted
        level = roll
        return emit(Target(time: time, camera: centre, view: (view * Quaternion(axis: Vector3(0, 0, 1), angle: roll)).normalized), level: roll)
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
