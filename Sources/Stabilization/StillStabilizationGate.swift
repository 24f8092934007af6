import Camera
import Hardware
import Motion

/// What a capture is, for the still-stabilization policy.
public enum StillCaptureKind: String, Sendable {
    /// A bracket: gated when lens stabilization is enabled.
    case bracket
    /// A single capture: gated when automatic still stabilization is on and the exposure is long.
    case single
}

/// The `BracketFrameGate` over IMU samples: motion-gated timing, retakes, alignment and per-frame
/// status. Make one per capture (`Stabilization.makeGate`); it remembers the bracket's first frame.
///
/// Loop-confined: the bracket engine calls it on the camera's loop, which also feeds the tracker.
public final class StillStabilizationGate: BracketFrameGate {
    /// The tracker whose samples it reads (fed by the supervisor from the IMU).
    public let tracker: MotionTracker
    public let kind: StillCaptureKind
    /// Whether stabilization was requested for this capture (lens enabled / automatic still on).
    public let requested: Bool
    /// Focal length in pixels of the active sensor mode; nil when the optics are unknown.
    public let focalLengthPixels: Double?
    public let thresholds: StillStabilizationThresholds
    /// Frames that waited for a calm moment, and the total waited.
    public private(set) var framesThatWaited = 0
    public private(set) var totalWait: Duration = .zero
    /// Retakes asked for.
    public private(set) var retakesRequested = 0
    /// The latest verdict for each step index (the kept one once the step is done), for the sidecar.
    public private(set) var verdicts: [Int: FrameVerdict] = [:]

    private let loop: any EventLoop
    private let imuHealthy: () -> Bool
    private var waitStarted: [Int: MonotonicTime] = [:]
    private var reference: (time: MonotonicTime, orientation: Quaternion)?

    /// - Parameters:
    ///   - imuHealthy: the IMU's current health (asked at every call: it can fail mid-bracket).
    public init(kind: StillCaptureKind, requested: Bool, tracker: MotionTracker, focalLengthPixels: Double?,
                thresholds: StillStabilizationThresholds, loop: any EventLoop, imuHealthy: @escaping () -> Bool) {
        self.kind = kind; self.requested = requested; self.tracker = tracker
        self.focalLengthPixels = focalLengthPixels; self.thresholds = thresholds
        self.loop = loop; self.imuHealthy = imuHealthy
    }

    /// Whether this frame is stabilized at all (the policy).
    /// Unknown optics (no focal length) mean no threshold can be set: not requested.
    public func isRequested(exposure: Duration) -> Bool {
        guard focalLengthPixels != nil else { return false }
        switch kind {
        case .bracket: return requested
        case .single: return requested && exposure >= thresholds.automaticStillMinimumExposure
        }
    }

    /// True when the IMU is healthy and its newest sample is recent.
    public func imuDelivering(now: MonotonicTime) -> Bool {
        guard imuHealthy(), let newest = tracker.history.newest?.timestamp else { return false }
        return now - newest <= thresholds.maximumSampleAge
    }

    public func readiness(index: Int, exposure: Duration, now: MonotonicTime) -> GateReadiness {
        guard isRequested(exposure: exposure), exposure <= thresholds.maximumExposure, imuDelivering(now: now),
              let f = focalLengthPixels, let newest = tracker.history.newest?.timestamp else {
            return .go
        }
        let started = waitStarted[index] ?? now
        waitStarted[index] = started
        let waited = now - started
        guard waited < thresholds.maximumWaitPerFrame,
              let predicted = predictedBlurPixels(newest: newest, exposure: exposure, focalLengthPixels: f),
              predicted > thresholds.blurThresholdPixels else {
            finishWait(index, waited: waited)
            return .go
        }
        return .wait(min(thresholds.pollInterval, thresholds.maximumWaitPerFrame - waited))
    }

    /// The blur the coming frame is predicted to get: the blur of the last `exposure` of motion,
    /// back from the newest sample (recent motion persists). Nil when the history is too short.
    public func predictedBlurPixels(newest: MonotonicTime, exposure: Duration, focalLengthPixels f: Double) -> Double? {
        tracker.predictedBlurPixels(start: newest - exposure, exposure: exposure, focalLengthPixels: f)
    }

    private func finishWait(_ index: Int, waited: Duration) {
        if waited > .zero { framesThatWaited += 1; totalWait += waited }
        waitStarted[index] = nil
    }

    public func judge(index: Int, attempt: Int, exposureStart: MonotonicTime, exposure: Duration) -> FrameVerdict {
        waitStarted[index] = nil
        let now = loop.now()
        let blur = measuredBlurPixels(start: exposureStart, exposure: exposure)
        let middle = exposureStart + exposure / 2
        var verdict: FrameVerdict
        if !isRequested(exposure: exposure) {
            verdict = FrameVerdict(retake: false, status: .off, measuredBlurPixels: blur)
        } else if !imuDelivering(now: now) {
            verdict = FrameVerdict(retake: false, status: .unavailable)
        } else if exposure > thresholds.maximumExposure {
            verdict = FrameVerdict(retake: false, status: .outOfRange, measuredBlurPixels: blur)
        } else if blur == nil {  // the samples have a hole over this frame
            verdict = FrameVerdict(retake: false, status: .unavailable)
        } else if let blur, blur <= thresholds.blurThresholdPixels {
            verdict = FrameVerdict(retake: false, status: .active, measuredBlurPixels: blur)
        } else {
            let retake = attempt <= thresholds.retakeLimit
            if retake { retakesRequested += 1 }
            verdict = FrameVerdict(retake: retake, status: .outOfRange, measuredBlurPixels: blur)
        }
        if verdict.status != .unavailable { verdict.alignment = alignment(index: index, at: middle, kept: !verdict.retake) }
        verdicts[index] = verdict
        return verdict
    }

    /// Blur over [start, start + exposure] from the kept samples, pixels of the active mode. When
    /// the newest samples stop short of the end (still in the IMU FIFO), the covered part is
    /// extended at the newest sample's rate if they cover at least `minimumCoverage` of the window;
    /// nil otherwise.
    public func measuredBlurPixels(start: MonotonicTime, exposure: Duration) -> Double? {
        guard let f = focalLengthPixels, let newest = tracker.history.newest?.timestamp, exposure > .zero else { return nil }
        let end = start + exposure
        if newest >= end { return tracker.history.blurPixels(from: start, to: end, focalLengthPixels: f) }
        let covered = newest - start
        guard covered.secondsValue >= thresholds.minimumCoverage * exposure.secondsValue,
              let part = tracker.history.blurPixels(from: start, to: newest, focalLengthPixels: f),
              let last = tracker.history.newest?.gyro else { return nil }
        // The tail (≤ one IMU drain, ~10 ms) at the newest rate: tremor changes little in that time.
        let rate = (last.x * last.x + last.y * last.y).squareRoot()
        return part + rate * (end - newest).secondsValue * f
    }

    /// Rotation of the frame at `time` relative to the bracket's first frame, (w, x, y, z), as the
    /// body at the first frame sees the body at this one; identity for the first frame itself. The
    /// gyro is integrated between the two frames while the history reaches back to the first (4 s);
    /// after that the fused orientations are compared (their tilt is corrected by gravity, so they
    /// do not drift, but they carry the filter's small accelerometer error).
    private func alignment(index: Int, at time: MonotonicTime, kept: Bool) -> [Double]? {
        guard let q = BodyRotation.orientation(of: tracker, at: time) else { return nil }
        if index == 0 {
            if kept { reference = (time, q) }
            return [1, 0, 0, 0]
        }
        guard let reference else { return nil }
        let r: Quaternion
        if let oldest = tracker.history.oldest?.timestamp, oldest <= reference.time {
            r = BodyRotation.integrate(tracker.history.samples(from: reference.time, to: time), from: reference.time, to: time)
        } else {
            r = (reference.orientation.conjugate * q).normalized
        }
        let sign = r.w < 0 ? -1.0 : 1.0
        return [r.w * sign, r.x * sign, r.y * sign, r.z * sign]
    }
}
