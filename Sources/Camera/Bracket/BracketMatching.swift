import Hardware

/// How frames are matched to steps: by the values in their metadata.
public enum BracketMatching {
    /// Relative tolerance for ExposureTime and AnalogueGain (2 %, as the sidecar's mismatch check):
    /// sensors quantise exposure to whole lines and gain to register steps.
    public static let relativeTolerance = 0.02

    static func close(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) <= relativeTolerance * max(abs(a), abs(b), 1e-9)
    }

    /// The lens positions two frames may differ by and still be one (the driver's resolution at
    /// most rounds half a unit either way), dioptres.
    public static func lensTolerance(resolutionDioptres: Double?) -> Double {
        max(0.5 * (resolutionDioptres ?? 0) + 0.001, 0.005)
    }

    /// The first of `pending` (step indices, in order) whose exposure and gain equal the frame's
    /// (`clamped` false), else the first whose values clamped to the camera's ExposureTime and
    /// AnalogueGain limits equal the frame's while differing from the request (`clamped` true).
    /// A step with a lens position matches only a frame whose LensPosition (`actualLensDioptres`)
    /// is within `lensTolerance` of it: a frame taken while the lens still travelled is no step's.
    public static func match(actualExposureMicroseconds: Int, actualGain: Double, actualLensDioptres: Double? = nil,
                             lensTolerance: Double = 0.005, steps: [ResolvedStep],
                             pending: [Int], controlInfo: [String: ControlInfo]) -> (index: Int, clamped: Bool)? {
        let e = Double(actualExposureMicroseconds)
        func lensArrived(_ step: ResolvedStep) -> Bool {
            guard let wanted = step.lensDioptres else { return true }
            guard let actual = actualLensDioptres else { return false }
            return abs(actual - wanted) <= lensTolerance
        }
        let pending = pending.filter { lensArrived(steps[$0]) }
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
