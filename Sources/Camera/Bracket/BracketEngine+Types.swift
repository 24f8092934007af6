import Hardware

// The values a `BracketEngine` reports: kept frames, counters, how it ended, and its limits.
extension BracketEngine {
    /// One matched, kept frame.
    public struct MatchedFrame {
        /// Plan step index.
        public var index: Int
        /// Attempts it took (1 unless the gate asked for retakes).
        public var attempts: Int
        /// The step as requested.
        public var requested: ResolvedStep
        /// ExposureTime the frame used, µs (metadata); nil when the camera reports none.
        public var actualExposureMicroseconds: Int?
        /// AnalogueGain the frame used (metadata); nil when the camera reports none.
        public var actualGain: Double?
        /// LensPosition the frame reports, dioptres (confirms a focus step); nil when it reports none.
        public var actualLensDioptres: Double?
        /// True when the sensor clamped the step (actual = step clamped to its limits ≠ requested).
        public var isClamped: Bool
        /// The gate's verdict for the kept attempt.
        public var verdict: FrameVerdict
        /// The completed request, with its buffers.
        public var request: CompletedRequest
    }

    /// Counters, for events, the sidecar and the benchmark.
    public struct Statistics: Hashable, Sendable {
        /// Bracket requests handed to the camera (steps, retakes and padding).
        public var requestsQueued = 0
        /// Frames that arrived before their settings took effect (skipped, not saved).
        public var framesSkipped = 0
        /// Of those, frames whose metadata had no ExposureTime or AnalogueGain to match.
        public var framesWithoutSettings = 0
        /// Of those, frames whose exposure started before a shot's instant (`notBefore`).
        public var framesBeforeInstant = 0
        /// Frames the gate asked to retake.
        public var retakes = 0
        /// Times a request found no free buffer and waited for one.
        public var bufferWaits = 0
        /// Most bracket requests outstanding at once.
        public var maximumOutstanding = 0
        /// When the first request was queued (shutter lag ends here).
        public var firstRequestQueuedAt: MonotonicTime?
        /// Requests planned only to give the lens time to travel (focus brackets), counted in frames.
        public var lensTravelRequests = 0
        /// Sensor sequence of the first bracket frame.
        public var firstSequence: UInt64?
        /// Sensor sequence of the last kept frame.
        public var lastSequence: UInt64?
        /// Sensor frames from the first bracket frame to the last kept one, inclusive.
        public var sensorFramesUsed: Int {
            guard let a = firstSequence, let b = lastSequence else { return 0 }
            return Int(b - a) + 1
        }
        /// Empty counters.
        public init() {}
    }

    /// How it ended.
    public enum Outcome {
        /// Every step kept.
        case complete(Statistics)
        /// Ended early (disconnect, timeout, cancel); frames already reported stay reported.
        case failed(reason: String, Statistics)
    }

    /// Limits that end a bracket that cannot complete.
    public struct Limits: Hashable, Sendable {
        /// Bracket requests at most, as a multiple of (steps + pipeline delay), plus 8.
        public var requestBudgetFactor = 3
        /// Retakes per step at most (the gate's verdict is kept after that).
        public var maximumAttempts = 3
        /// Extra time allowed beyond the frames' own time.
        public var timeSlack: Duration = .seconds(2)
        /// Defaults.
        public init() {}
    }
}
