import Foundation
import Hardware

/// One step of a bracket as the user asked for it.
public enum BracketStep: Hashable, Sendable {
    /// A manual exposure: duration in microseconds and ISO (ISO = isoPerGain × analogue gain).
    case manual(durationMicroseconds: Int, iso: Double)
    /// An exposure bias, EV, relative to the metered exposure when the bracket starts.
    case evBias(Double)
}

/// What a bracket runs: its steps, in capture order, and how it was asked for.
public struct BracketPlan: Hashable, Sendable {
    /// "single", "manual", "ev" or "auto-range" (recorded in the sidecar).
    public var kind: String
    /// The command that made it, e.g. "bracket ev 5 1".
    public var summary: String
    /// The steps, in the order they are captured.
    public var steps: [BracketStep]
    /// For "auto-range": how it extends itself after the first steps.
    public var autoRange: AutoRangePolicy?

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
        return BracketPlan(kind: "manual", summary: "bracket manual " + pairs.map { "\($0.durationMicroseconds)us@\(format($0.iso))" }.joined(separator: " "),
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

    /// A resolved step from its parts.
    public init(exposureMicroseconds: Int, analogueGain: Double, evBias: Double? = nil) {
        self.exposureMicroseconds = exposureMicroseconds; self.analogueGain = analogueGain; self.evBias = evBias
    }

    /// Resolves `step`. Manual: gain = ISO / isoPerGain. EV bias: the metered product (µs × gain)
    /// × 2^bias, keeping the metered gain and scaling the duration within `durationRange`; what
    /// does not fit moves into the gain. A gain beyond the sensor's range is still requested as
    /// computed: the sensor clamps it and the frame is flagged (never silently relabelled).
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
        }
    }
}

/// The auto-range bracket's rule. Thresholds are measured on each frame's processed (RGB) buffer:
/// a pixel is *clipped* when any channel is ≥ `clippedLevel` (of 255) and *crushed* when every
/// channel is ≤ `crushedLevel`. After the first steps, while the darkest frame so far has more than
/// `clippedFraction` clipped pixels, a step `stepEV` darker is added; while the brightest has more
/// than `crushedFraction` crushed pixels, a step `stepEV` brighter. At most `maximumExtraSteps` are
/// added in each direction, and the total never exceeds the bracket maximum.
public struct AutoRangePolicy: Hashable, Sendable {
    /// First steps, EV (default 0, −2, +2).
    public var initialBiases: [Double] = [0, -2, 2]
    /// Distance of each added step from the last one in that direction, EV.
    public var stepEV = 2.0
    /// Channel level (0…255) at or above which a pixel counts as clipped.
    public var clippedLevel: UInt8 = 250
    /// Channel level (0…255) at or below which a pixel counts as crushed (all three channels).
    public var crushedLevel: UInt8 = 5
    /// Fraction of clipped pixels that makes the darkest frame "still clipping" (default 1 %).
    public var clippedFraction = 0.01
    /// Fraction of crushed pixels that makes the brightest frame "still crushed" (default 1 %).
    public var crushedFraction = 0.01
    /// Steps added at most in each direction.
    public var maximumExtraSteps = 3
    /// The default rule.
    public init() {}
}

/// Fractions of clipped and crushed pixels of a processed frame (BGR888 or XRGB8888).
public struct TonalExtremes: Hashable, Sendable {
    /// Pixels with any channel ≥ the clipped level, 0…1.
    public var clippedFraction: Double
    /// Pixels with all channels ≤ the crushed level, 0…1.
    public var crushedFraction: Double

    /// Measures `buffer`; nil for formats other than BGR888/XRGB8888.
    public init?(_ buffer: FrameBuffer, clippedLevel: UInt8, crushedLevel: UInt8) {
        let layout: (bpp: Int, r: Int, g: Int, b: Int)
        switch buffer.pixelFormat {
        case .bgr888: layout = (3, 0, 1, 2)
        case .xrgb8888: layout = (4, 2, 1, 0)
        default: return nil
        }
        let counts = buffer.withUnsafeBytes { bytes -> (Int, Int, Int) in
            var clipped = 0, crushed = 0, total = 0
            for row in 0..<buffer.size.height {
                let base = row * buffer.stride
                for column in 0..<buffer.size.width {
                    let p = base + column * layout.bpp
                    guard p + layout.bpp <= bytes.count else { continue }
                    let r = bytes[p + layout.r], g = bytes[p + layout.g], b = bytes[p + layout.b]
                    total += 1
                    if r >= clippedLevel || g >= clippedLevel || b >= clippedLevel { clipped += 1 }
                    if r <= crushedLevel && g <= crushedLevel && b <= crushedLevel { crushed += 1 }
                }
            }
            return (clipped, crushed, total)
        }
        guard counts.2 > 0 else { return nil }
        clippedFraction = Double(counts.0) / Double(counts.2)
        crushedFraction = Double(counts.1) / Double(counts.2)
    }

    /// Extremes from fractions (tests, other analysers).
    public init(clippedFraction: Double, crushedFraction: Double) {
        self.clippedFraction = clippedFraction; self.crushedFraction = crushedFraction
    }
}

extension AutoRangePolicy {
    /// The steps to add after frames with these biases and extremes were kept: one darker while
    /// the darkest still clips, one brighter while the brightest is still crushed. `added` counts
    /// the steps already added (darker, brighter); `room` bounds the total added now.
    public func additionalBiases(measured: [(bias: Double, extremes: TonalExtremes)],
                                 added: (darker: Int, brighter: Int), room: Int) -> [Double] {
        guard room > 0, let darkest = measured.min(by: { $0.bias < $1.bias }),
              let brightest = measured.max(by: { $0.bias < $1.bias }) else { return [] }
        var out: [Double] = []
        if darkest.extremes.clippedFraction > clippedFraction, added.darker < maximumExtraSteps {
            out.append(darkest.bias - stepEV)
        }
        if brightest.extremes.crushedFraction > crushedFraction, added.brighter < maximumExtraSteps, out.count < room {
            out.append(brightest.bias + stepEV)
        }
        return out
    }
}

/// The largest bracket this camera can hold: every frame's buffers stay in memory until the store
/// has written them (writes are slower than the sensor), so the count is the memory budget over
/// one frame's bytes (raw at 2 bytes/pixel + RGB still at 3 bytes/pixel), capped at `hardCap`.
public struct BracketCapacity: Hashable, Sendable {
    /// Bytes one frame holds in memory until written.
    public var bytesPerFrame: Int64
    /// Memory the capture path may use for frames awaiting write, bytes.
    public var memoryBudgetBytes: Int64
    /// Upper bound whatever the memory (sidecar and UI sizes), frames.
    public var hardCap: Int

    /// A capacity from frame sizes and a memory budget.
    public init(rawSize: PixelSize?, rgbSize: PixelSize?, memoryBudgetBytes: Int64, hardCap: Int = 32) {
        bytesPerFrame = Int64(rawSize?.area ?? 0) * 2 + Int64(rgbSize?.area ?? 0) * 3
        self.memoryBudgetBytes = memoryBudgetBytes
        self.hardCap = hardCap
    }

    /// The maximum frames per bracket (at least 1).
    public var maximumFrames: Int {
        guard bytesPerFrame > 0 else { return hardCap }
        return max(1, min(hardCap, Int(memoryBudgetBytes / bytesPerFrame)))
    }
}
