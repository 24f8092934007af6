/// Video HDR's state, with AVFoundation's semantics: `video.hdr auto` (the default, like
/// `automaticallyAdjustsVideoHDREnabled`) lets the scene decide; `on` and `off` force it (like
/// `videoHDREnabled` with automatic adjustment off). A format without HDR keeps it off whatever is
/// asked, and says why. Pure logic, loop-confined by its owner; fed one scene measure per frame.
public struct VideoHDRPolicy: Sendable, Equatable {
    public enum Preference: String, Sendable, CaseIterable { case auto, on, off }

    /// What the scene needs, from a frame's luma histogram: the fraction of pixels clipped at the
    /// top and the fraction crushed at the bottom.
    public struct SceneMeasure: Sendable, Equatable {
        public var clippedFraction: Double
        public var crushedFraction: Double
        public init(clippedFraction: Double, crushedFraction: Double) {
            self.clippedFraction = clippedFraction; self.crushedFraction = crushedFraction
        }
    }

    /// Thresholds for `auto`, on the fractions smoothed over about `smoothingFrames` frames: both ends
    /// at or over `enterFraction` switch HDR on; either end under `leaveFraction` switches it off.
    /// The gap between the two, and the smoothing, keep it from flapping on a scene near the line
    /// or a flickering one.
    public struct Thresholds: Sendable, Equatable {
        public var enterFraction = 0.02
        public var leaveFraction = 0.005
        public var smoothingFrames = 15.0
        public init() {}
    }

    public private(set) var preference: Preference = .auto
    /// Whether the active format has HDR at all (set on every format change).
    public private(set) var formatHasHDR = false
    /// What `auto` has chosen (kept while forced, so going back to auto resumes it).
    public private(set) var autoChoice = false
    public let thresholds: Thresholds
    /// The smoothed clipped and crushed fractions.
    private var clipped = 0.0, crushed = 0.0

    public init(thresholds: Thresholds = Thresholds()) { self.thresholds = thresholds }

    /// HDR in force now.
    public var isActive: Bool {
        guard formatHasHDR else { return false }
        switch preference {
        case .on: return true
        case .off: return false
        case .auto: return autoChoice
        }
    }

    /// Sets the preference. `on` for a format without HDR is refused with the reason (the caller
    /// names the setting in front).
    public mutating func setPreference(_ preference: Preference) throws(CameraError) {
        if preference == .on && !formatHasHDR {
            throw CameraError(.unsupported, "on: the active format has no HDR mode (see the hdr column of formats)")
        }
        self.preference = preference
    }

    /// The active format changed: a format without HDR turns a forced `on` back to `auto`
    /// (returned true then, so the caller can say so) and the scene's history starts again.
    @discardableResult
    public mutating func formatChanged(hasHDR: Bool) -> Bool {
        formatHasHDR = hasHDR
        clipped = 0; crushed = 0; autoChoice = false
        guard !hasHDR, preference == .on else { return false }
        preference = .auto
        return true
    }

    /// One frame's measure; returns true when `isActive` changed.
    @discardableResult
    public mutating func sceneMeasured(_ scene: SceneMeasure) -> Bool {
        let before = isActive
        let alpha = 1 / max(thresholds.smoothingFrames, 1)
        clipped += (scene.clippedFraction - clipped) * alpha
        crushed += (scene.crushedFraction - crushed) * alpha
        if !autoChoice && clipped >= thresholds.enterFraction && crushed >= thresholds.enterFraction { autoChoice = true }
        if autoChoice && (clipped < thresholds.leaveFraction || crushed < thresholds.leaveFraction) { autoChoice = false }
        return isActive != before
    }
}
