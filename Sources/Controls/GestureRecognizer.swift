import Hardware

/// A gesture told apart, with the kernel time of the edge that made it.
public struct RecognizedGesture: Hashable, Sendable {
    public var gesture: ButtonGesture
    /// Kernel time of the press edge that the gesture stands for (the first press of a single or
    /// long press, the second press of a double press, the half-press contact's edge).
    public var edgeTimestamp: MonotonicTime
    /// When it was decided: the edge, a release, or a timer deadline.
    public var decidedAt: MonotonicTime

    public init(_ gesture: ButtonGesture, edge: MonotonicTime, decidedAt: MonotonicTime) {
        self.gesture = gesture; edgeTimestamp = edge; self.decidedAt = decidedAt
    }
}

/// Turns debounced shutter and half-press levels into gestures. Pure: no clock, no I/O.
///
/// Classification uses the edges' timestamps, not when a timer happened to run: a release dated
/// before the long-press threshold is a press even if the timer fired late. The owner calls
/// `deadlinePassed(at:)` when `nextDeadline` is reached.
public struct GestureRecognizer: Sendable {
    private enum State: Hashable, Sendable {
        case idle
        /// Down, gesture not yet known (a long or double press may still come).
        case down(since: MonotonicTime)
        /// Released once; a second press within the window makes a double press.
        case awaitingSecond(firstPress: MonotonicTime, releasedAt: MonotonicTime)
        /// Down, gesture already reported; waits for the release.
        case holding
    }

    public let longPressThreshold: Duration
    public let doublePressWindow: Duration
    /// Whether long and double presses are mapped: unmapped ones are never waited for.
    public let recognisesLongPress: Bool
    public let recognisesDoublePress: Bool
    private var state: State = .idle
    private var halfPressed = false

    public init(longPressThreshold: Duration, doublePressWindow: Duration,
                recognisesLongPress: Bool, recognisesDoublePress: Bool) {
        self.longPressThreshold = longPressThreshold
        self.doublePressWindow = doublePressWindow
        self.recognisesLongPress = recognisesLongPress
        self.recognisesDoublePress = recognisesDoublePress
    }

    /// Recognises the gestures that `configuration` maps.
    public init(configuration c: ButtonConfiguration) {
        self.init(longPressThreshold: c.longPressThreshold, doublePressWindow: c.doublePressWindow,
                  recognisesLongPress: c.longPress != nil, recognisesDoublePress: c.doublePress != nil)
    }

    /// True while the shutter is down or a gesture is still being told apart.
    public var isBusy: Bool { state != .idle }

    /// The shutter was already down at start: wait for its release without reporting a gesture.
    public mutating func assumeHeldAtStart() { state = .holding }

    /// When `deadlinePassed(at:)` must run next.
    public var nextDeadline: MonotonicTime? {
        switch state {
        case .down(let since) where recognisesLongPress: return since + longPressThreshold
        case .awaitingSecond(_, let releasedAt): return releasedAt + doublePressWindow
        default: return nil
        }
    }

    /// The debounced shutter line changed at kernel time `time` (decided at `now`).
    public mutating func shutterChanged(isActive: Bool, at time: MonotonicTime, now: MonotonicTime) -> [RecognizedGesture] {
        var out = deadlinePassed(at: time)  // settle what the timestamps already decide
        switch (state, isActive) {
        case (.idle, true):
            if recognisesLongPress || recognisesDoublePress {
                state = .down(since: time)
            } else {
                state = .holding
                out.append(RecognizedGesture(.press, edge: time, decidedAt: now))
            }
        case (.down(let since), false):
            if recognisesDoublePress {
                state = .awaitingSecond(firstPress: since, releasedAt: time)
            } else {
                state = .idle
                out.append(RecognizedGesture(.press, edge: since, decidedAt: now))
            }
        case (.awaitingSecond, true):
            state = .holding
            out.append(RecognizedGesture(.doublePress, edge: time, decidedAt: now))
        case (.holding, false):
            state = .idle
        default:
            break  // a repeated level (debounced input alternates; tolerate anyway)
        }
        return out
    }

    /// The debounced half-press contact changed at `time`.
    public mutating func halfPressChanged(isActive: Bool, at time: MonotonicTime, now: MonotonicTime) -> [RecognizedGesture] {
        guard isActive != halfPressed else { return [] }
        halfPressed = isActive
        return [RecognizedGesture(isActive ? .halfPress : .halfRelease, edge: time, decidedAt: now)]
    }

    /// Reports the gestures whose deadline has passed at `now` (long press held, double window over).
    public mutating func deadlinePassed(at now: MonotonicTime) -> [RecognizedGesture] {
        guard let deadline = nextDeadline, now >= deadline else { return [] }
        switch state {
        case .down(let since):
            state = .holding
            return [RecognizedGesture(.longPress, edge: since, decidedAt: max(now, deadline))]
        case .awaitingSecond(let firstPress, _):
            state = .idle
            return [RecognizedGesture(.press, edge: firstPress, decidedAt: max(now, deadline))]
        default:
            return []
        }
    }
}
