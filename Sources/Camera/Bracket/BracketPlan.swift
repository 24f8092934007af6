import Foundation
import Hardware

/// One step of a bracket as the user asked for it.
public enum BracketStep: Hashable, Sendable {
    /// A manual exposure: duration in microseconds and ISO (ISO = isoPerGain × analogue gain).
    case manual(durationMicroseconds: Int, iso: Double)
    /// An exposure bias, EV, relative to the metered exposure when the bracket starts.
    case evBias(Double)
    /// A lens position, dioptres (0 = infinity), with an exposure bias as `evBias` has (a focus
    /// bracket's step: the exposure and white balance are held for the whole stack).
    case focus(lensDioptres: Double, evBias: Double)
}

/// What a bracket runs: its steps, in capture order, and how it was asked for.
public struct BracketPlan: Hashable, Sendable {
    /// "single", "manual", "ev" or "auto-range" (recorded in the sidecar).
    public var kind: String
    /// The command that made it, e.g. "bracket ev 5 1".
    public var summary: String
    /// The steps, in the order they are captured.
    public var steps: [BracketStep]
    /// Steps a plan may have at most (a capture's memory budget usually allows fewer; the engine
    /// checks that). Bounds what a typed count can make before anything else looks at it.
    public static let maximumSteps = 256
    /// For "auto-range": how it extends itself after the first steps.
    public var autoRange: AutoRangePolicy?
    /// For "focus": the request its steps are made from when it starts (`resolvingFocus`).
    public var focus: FocusBracketRequest?

    /// A plan from its parts.
    public init(kind: String, summary: String, steps: [BracketStep], autoRange: AutoRangePolicy? = nil) {
        self.kind = kind; self.summary = summary; self.steps = steps; self.autoRange = autoRange
    }

    /// One frame with the current settings (the `capture` command): bias 0 from the metered exposure.
    public static let single = BracketPlan(kind: "single", summary: "capture", steps: [.evBias(0)])

    /// The preset `ev <count> <step>`: biases 0, −step, +step, −2·step, +2·step, … (0 first, then
    /// alternating darker/brighter outward). An even count ends on the darker side:
    /// `ev 4 1` = 0, −1, +1, −2.
    public static func evPreset(count: Int, stepEV: Double) throws -> BracketPlan {
        guard count >= 1 else { throw CameraError(.outOfRange, "bracket ev: count \(count) must be at least 1") }
        guard count <= maximumSteps else {
            throw CameraError(.outOfRange, "bracket ev: count \(count) is more than \(maximumSteps) frames")
        }
        guard stepEV > 0, stepEV <= 4 else { throw CameraError(.outOfRange, "bracket ev: step \(stepEV) EV must be in (0, 4]") }
        return BracketPlan(kind: "ev", summary: "bracket ev \(count) \(format(stepEV))",
                           steps: evPresetBiases(count: count, stepEV: stepEV).map { .evBias($0) })
    }

    /// The biases of `ev <count> <step>`, in capture order.
    public static func evPresetBiases(count: Int, stepEV: Double) -> [Double] {
        (0..<max(count, 0)).map { i in
            guard i > 0 else { return 0 }
            let distance = Double((i + 1) / 2) * stepEV
            return i % 2 == 1 ? -distance : distance
        }
    }

    /// An explicit list of EV biases, captured in the order given.
    public static func evList(_ biases: [Double]) throws -> BracketPlan {
        guard !biases.isEmpty else { throw CameraError(.outOfRange, "bracket ev: no biases given") }
        for b in biases where abs(b) > 8 { throw CameraError(.outOfRange, "bracket ev: bias \(b) EV is outside -8...+8") }
        return BracketPlan(kind: "ev", summary: "bracket ev " + biases.map(format).joined(separator: " "),
                           steps: biases.map { .evBias($0) })
    }

    /// An explicit list of (duration µs, ISO) pairs, captured in the order given.
    public static func manual(_ pairs: [(durationMicroseconds: Int, iso: Double)]) throws -> BracketPlan {
        guard !pairs.isEmpty else { throw CameraError(.outOfRange, "bracket manual: no duration@iso pairs given") }
        for p in pairs where p.durationMicroseconds <= 0 || !(p.iso > 0) {
            throw CameraError(.outOfRange, "bracket manual: \(p.durationMicroseconds) us @ ISO \(p.iso) needs a positive duration and ISO")
        }
        return BracketPlan(kind: "manual", summary: "bracket manual " + pairs.map { "\($0.durationMicroseconds)us@" + String(format: "%g", $0.iso) }.joined(separator: " "),
                           steps: pairs.map { .manual(durationMicroseconds: $0.durationMicroseconds, iso: $0.iso) })
    }

    /// The auto-range bracket: starts with `policy.initialBiases`, then extends (see `AutoRangePolicy`).
    public static func autoRange(_ policy: AutoRangePolicy = AutoRangePolicy()) -> BracketPlan {
        BracketPlan(kind: "auto-range", summary: "bracket auto", steps: policy.initialBiases.map { .evBias($0) }, autoRange: policy)
    }

    static func format(_ v: Double) -> String {
        let s = v == v.rounded() ? String(Int(v)) : String(format: "%g", v)
        return v > 0 ? "+" + s : s
    }
}

/// A step resolved to sensor values when the bracket starts: what its request carries.
public struct ResolvedStep: Hashable, Sendable {
    /// ExposureTime to request, microseconds.
    public var exposureMicroseconds: Int
    /// AnalogueGain to request (×).
    public var analogueGain: Double
    /// The EV bias this step stands for (nil for manual steps).
    public var evBias: Double?
    /// LensPosition to request, dioptres; nil when the step leaves the lens as the settings have it.
    public var lensDioptres: Double?

    /// A resolved step from its parts.
    public init(exposureMicroseconds: Int, analogueGain: Double, evBias: Double? = nil, lensDioptres: Double? = nil) {
        self.exposureMicroseconds = exposureMicroseconds; self.analogueGain = analogueGain; self.evBias = evBias
        self.lensDioptres = lensDioptres
    }

    /// Resolves `step`. Manual: gain = ISO / isoPerGain. EV bias: the metered product (µs × gain)
    /// × 2^bias, keeping the metered gain and scaling the duration within `durationRange`; what
    /// does not fit moves into the gain. A gain beyond the sensor's range is still requested as
    /// computed: the sensor clamps it and the frame is flagged (never silently relabelled). Focus: as
    /// an EV bias, with the lens position.
    public static func resolve(_ step: BracketStep, meteredMicroseconds: Int, meteredGain: Double,
                               durationRange: ClosedRange<Int>, isoPerGain: Double) -> ResolvedStep {
        switch step {
        case .manual(let duration, let iso):
            return ResolvedStep(exposureMicroseconds: duration, analogueGain: iso / isoPerGain)
        case .evBias(let bias):
            let total = Double(max(meteredMicroseconds, 1)) * max(meteredGain, 0.001) * pow(2, bias)
            var duration = total / max(meteredGain, 0.001)
            duration = min(max(duration, Double(durationRange.lowerBound)), Double(durationRange.upperBound))
            let rounded = max(Int(duration.rounded()), 1)
            return ResolvedStep(exposureMicroseconds: rounded, analogueGain: total / Double(rounded), evBias: bias)
        case .focus(let lens, let bias):
            var step = resolve(.evBias(bias), meteredMicroseconds: meteredMicroseconds, meteredGain: meteredGain,
                               durationRange: durationRange, isoPerGain: isoPerGain)
            step.lensDioptres = lens
            return step
        }
    }
}
