import Hardware

/// Auto-range while a bracket runs (`BracketPlan.autoRange`): the policy, the tonal extremes of the
/// frames kept so far, the steps added each way, and what a new step is resolved from (the metered
/// exposure and the format's duration range). `BracketEngine` owns one when the plan auto-ranges.
struct AutoRangeRun {
    let policy: AutoRangePolicy
    /// Steps a bracket may have at most, added ones included.
    let maximumSteps: Int
    /// The exposure the plan's biases are relative to (µs, analogue gain).
    let metered: (microseconds: Int, gain: Double)
    let durationRange: ClosedRange<Int>
    let isoPerGain: Double
    private var measured: [(bias: Double, extremes: TonalExtremes)] = []
    private var added = (darker: 0, brighter: 0)

    init(policy: AutoRangePolicy, maximumSteps: Int, metered: (microseconds: Int, gain: Double),
         durationRange: ClosedRange<Int>, isoPerGain: Double) {
        self.policy = policy; self.maximumSteps = maximumSteps; self.metered = metered
        self.durationRange = durationRange; self.isoPerGain = isoPerGain
    }

    /// Measures the processed `buffer` of a kept frame of a step at `bias`.
    mutating func measure(bias: Double, buffer: FrameBuffer) {
        guard let extremes = TonalExtremes(buffer, clippedLevel: policy.clippedLevel, crushedLevel: policy.crushedLevel) else { return }
        measured.append((bias, extremes))
    }

    /// The steps to add now that every one of `stepCount` steps is kept, resolved (empty when the
    /// range is covered, or no room is left); counted as added.
    mutating func moreSteps(stepCount: Int) -> [ResolvedStep] {
        let more = policy.additionalBiases(measured: measured, added: added, room: maximumSteps - stepCount)
        return more.map { bias in
            if bias < 0 { added.darker += 1 } else { added.brighter += 1 }
            return ResolvedStep.resolve(.evBias(bias), meteredMicroseconds: metered.microseconds, meteredGain: metered.gain,
                                        durationRange: durationRange, isoPerGain: isoPerGain)
        }
    }
}
