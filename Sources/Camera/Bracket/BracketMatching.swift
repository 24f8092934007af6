import Hardware

/// How frames are matched to steps: by the values in their metadata.
public enum BracketMatching {
    /// Relative tolerance for ExposureTime and AnalogueGain (2 %, as the sidecar's mismatch check):
    /// sensors quantise exposure to whole lines and gain to register steps.
    public static let relativeTolerance = 0.02

    static func close(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) <= relativeTolerance * max(abs(a), abs(b), 1e-9)
    }

    /// The first of `pending` (step indices, in order) whose exposure and gain equal the frame's
    /// (`clamped` false), else the first whose values clamped to the camera's ExposureTime and
    /// AnalogueGain limits equal the frame's while differing from the request (`clamped` true).
    public static func match(actualExposureMicroseconds: Int, actualGain: Double, steps: [ResolvedStep],
                             pending: [Int], controlInfo: [String: ControlInfo]) -> (index: Int, clamped: Bool)? {
        let e = Double(actualExposureMicroseconds)
        for i in pending where close(Double(steps[i].exposureMicroseconds), e) && close(steps[i].analogueGain, actualGain) {
            return (i, false)
        }
        for i in pending {
            let c = clamp(steps[i], controlInfo: controlInfo)
            guard c != steps[i] else { continue }
            if close(Double(c.exposureMicroseconds), e) && close(c.analogueGain, actualGain) { return (i, true) }
        }
        return nil
    }

    /// The step clamped to the camera's ExposureTime and AnalogueGain ranges (from its ControlInfo).
    public static func clamp(_ step: ResolvedStep, controlInfo: [String: ControlInfo]) -> ResolvedStep {
        var out = step
        if let info = controlInfo[ControlName.exposureTime] {
            if let lo = info.minimum?.int64Value { out.exposureMicroseconds = max(out.exposureMicroseconds, Int(lo)) }
            if let hi = info.maximum?.int64Value, hi > 0 { out.exposureMicroseconds = min(out.exposureMicroseconds, Int(hi)) }
        }
        if let info = controlInfo[ControlName.analogueGain] {
            if let lo = info.minimum?.doubleValue { out.analogueGain = max(out.analogueGain, lo) }
            if let hi = info.maximum?.doubleValue, hi > 0 { out.analogueGain = min(out.analogueGain, hi) }
        }
        return out
    }
}
