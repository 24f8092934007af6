import Hardware

/// Rebuilds per-sample CLOCK_MONOTONIC timestamps for FIFO batches.
///
/// The chip stamps nothing; the host only knows, at each drain, how many samples the chip has
/// produced so far (`newestIndex`) and when it looked (`observedAt`). The chip's own clock runs
/// off by up to a few hundred ppm, so the period is not the nominal one. The model is a line
/// t(n) = t₀ + p·n fitted by weighted least squares over the observations, with exponential
/// forgetting (time constant `memory`), so both the phase and the period (the drift) are
/// estimated. When the observation is a polled FIFO count, the newest sample is on average half a
/// period older than the look (`observationLagPeriods` = 0.5); a data-ready edge stamped by the
/// kernel has no such lag (0). Remaining error: see docs/imu.md.
public struct FIFOTimestamper: Sendable {
    /// Nominal period from the configured rate, seconds.
    public let nominalPeriodSeconds: Double
    /// The estimated period, seconds (nominal until two observations span 50 ms).
    public private(set) var periodSeconds: Double
    /// Forgetting time constant of the fit.
    public var memorySeconds: Double = 20
    // Weighted sums of (n − nRef, t − tRef) over observations.
    private var nRef: Int64 = 0
    private var tRef: Double = 0
    private var sw = 0.0, sn = 0.0, st = 0.0, snn = 0.0, snt = 0.0
    private var observations = 0
    private var lastStampSeconds: Double? = nil

    public init(nominalRateHertz: Double) {
        nominalPeriodSeconds = 1 / nominalRateHertz
        periodSeconds = nominalPeriodSeconds
    }

    /// The estimated drift of the chip's clock, parts per million (positive: chip slow).
    public var driftPartsPerMillion: Double { (periodSeconds / nominalPeriodSeconds - 1) * 1e6 }

    /// Forgets everything (after a FIFO reset, when sample indices restart).
    public mutating func restart() {
        sw = 0; sn = 0; st = 0; snn = 0; snt = 0; observations = 0; lastStampSeconds = nil
    }

    /// Adds an observation: sample `newestIndex` (counted from the last restart) was the newest on
    /// the chip at `observedAt`, `lagPeriods` periods earlier on average.
    public mutating func observe(newestIndex: Int64, observedAt: MonotonicTime, lagPeriods: Double) {
        let t = observedAt.seconds - lagPeriods * periodSeconds
        if observations == 0 { nRef = newestIndex; tRef = t }
        // Rebase sums to the new reference, then decay them.
        let dn = Double(newestIndex - nRef), dt = t - tRef
        snt = snt - dn * st - dt * sn + dn * dt * sw
        snn = snn - 2 * dn * sn + dn * dn * sw
        sn -= dn * sw
        st -= dt * sw
        nRef = newestIndex; tRef = t
        let decay = observations == 0 ? 1 : exp(-max(0, dt) / memorySeconds)
        sw *= decay; sn *= decay; st *= decay; snn *= decay; snt *= decay
        sw += 1  // the new point sits at (0, 0)
        observations += 1
        let meanN = sn / sw, meanT = st / sw
        let varN = snn / sw - meanN * meanN
        if varN * periodSeconds * periodSeconds > 0.05 * 0.05 / 12 {  // spread ≳ 50 ms
            let slope = (snt / sw - meanN * meanT) / varN
            periodSeconds = min(max(slope, nominalPeriodSeconds * 0.95), nominalPeriodSeconds * 1.05)
        }
        // Intercept at n = nRef: the fitted line through the weighted mean.
        fittedNewestSeconds = tRef + meanT - meanN * periodSeconds
        fittedNewestIndex = newestIndex
    }

    private var fittedNewestSeconds = 0.0
    private var fittedNewestIndex: Int64 = 0

    /// The timestamp of sample `index` on the current fit, kept strictly increasing.
    public mutating func timestamp(ofIndex index: Int64) -> MonotonicTime {
        var seconds = fittedNewestSeconds + Double(index - fittedNewestIndex) * periodSeconds
        if let last = lastStampSeconds, seconds <= last { seconds = last + periodSeconds * 0.5 }
        lastStampSeconds = seconds
        return MonotonicTime(nanoseconds: Int64((seconds * 1e9).rounded()))
    }
}

import Foundation  // exp
