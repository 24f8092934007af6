import Hardware

/// Where a trigger came from.
public enum TriggerSource: String, Sendable, Equatable {
    case motion, pir, button
}

/// One trigger: its source and the frame it belongs to (for motion the frame that showed it; for a
/// line, the newest frame when its edge arrived).
public struct Trigger: Sendable, Equatable {
    public var source: TriggerSource
    public var sequence: UInt64
    public var sensorTimestamp: MonotonicTime
    /// Local minutes after midnight at the trigger, for `trigger.schedule` (nil: no wall clock).
    public var minuteOfDay: Int?

    public init(source: TriggerSource, sequence: UInt64, sensorTimestamp: MonotonicTime, minuteOfDay: Int?) {
        self.source = source; self.sequence = sequence; self.sensorTimestamp = sensorTimestamp; self.minuteOfDay = minuteOfDay
    }
}

/// Decides what each trigger does under the `trigger.*` settings: the action, the cooldown, the
/// schedule, and when a triggered recording ends (a set time after the last trigger). Times are
/// the frames' SensorTimestamps, never a clock read here. Loop-confined (a value the wiring owns).
public struct TriggerPolicy: Sendable {
    public enum Decision: Sendable, Equatable {
        /// Run the action for this trigger.
        case fire(TriggerAction)
        /// A triggered recording runs: it now ends at this time.
        case extended(until: MonotonicTime)
        /// Nothing: why (for the event and the journal).
        case ignored(Reason)
    }

    public enum Reason: String, Sendable, Equatable {
        case actionOff = "action-off"
        case schedule
        case cooldown
    }

    private var lastFired: MonotonicTime?
    /// While a triggered recording runs: when it ends unless another trigger comes.
    public private(set) var recordingEnds: MonotonicTime?

    public init() {}

    /// The decision for `trigger` under `settings`.
    public mutating func decide(_ trigger: Trigger, settings: TriggerSettings) -> Decision {
        if let ends = recordingEnds, case .record(let seconds) = settings.action {
            let next = max(ends, trigger.sensorTimestamp + .nanoseconds(Int64(seconds * 1e9)))
            recordingEnds = next
            return .extended(until: next)
        }
        if case .off = settings.action { return .ignored(.actionOff) }
        guard settings.schedule.admits(minuteOfDay: trigger.minuteOfDay) else { return .ignored(.schedule) }
        if let last = lastFired, trigger.sensorTimestamp - last < .nanoseconds(Int64(settings.cooldownSeconds * 1e9)) {
            return .ignored(.cooldown)
        }
        lastFired = trigger.sensorTimestamp
        if case .record(let seconds) = settings.action {
            recordingEnds = trigger.sensorTimestamp + .nanoseconds(Int64(seconds * 1e9))
        }
        return .fire(settings.action)
    }

    /// True (once) when a triggered recording should stop at a frame of this time.
    public mutating func recordingShouldStop(atFrame time: MonotonicTime) -> Bool {
        guard let ends = recordingEnds, time >= ends else { return false }
        recordingEnds = nil
        return true
    }

    /// The triggered recording ended by other means (record stop, a fault) or never started.
    public mutating func recordingEnded() { recordingEnds = nil }
}
