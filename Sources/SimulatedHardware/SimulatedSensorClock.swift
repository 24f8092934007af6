import Hardware

/// The simulated sensor's frame timing: whether the driver has started it, when its next frame
/// starts, the cadence its frames keep, a stall, and the frames produced and missed since streaming
/// started. Owned by `SimulatedCamera`, which schedules the frames on its loop.
struct SimulatedSensorClock {
    /// False from `start` until enough requests are queued for the driver to start the sensor.
    var running = false
    /// The next frame's work on the loop.
    var nextFrame: ScheduledWork?
    /// When the next frame starts on the sensor's own clock (its SensorTimestamp), whenever the
    /// loop gets round to it.
    var nextFrameStart: MonotonicTime?
    /// The last frame's duration: the spacing of the frames after it until one sets another.
    var cadence: Duration?
    /// No frame starts before this (`SimulatedCamera.stall`); `.max` nanoseconds: until `resume`.
    var stalledUntil: MonotonicTime?
    /// Frames the sensor produced since start, including dropped ones and ones the loop missed.
    private(set) var framesProduced: UInt64 = 0
    /// Frames since start that started while the loop was too late to take them.
    private(set) var framesMissed: UInt64 = 0

    /// Streaming (re)starts: frame numbers restart at 0 and the sensor waits for its requests.
    mutating func restart() {
        running = false
        framesProduced = 0
        framesMissed = 0
        cadence = nil
    }

    mutating func cancelNextFrame() {
        nextFrame?.cancel()
        nextFrame = nil
    }

    /// `start` moved on past the frames that started while the loop was a whole frame or more late
    /// at `now`: they are counted produced and missed (their sequence numbers are skipped).
    mutating func skippingMissedFrames(from start: MonotonicTime, now: MonotonicTime) -> MonotonicTime {
        guard let cadence, cadence > .zero, now - start >= cadence else { return start }
        let missed = (now - start).nanoseconds / cadence.nanoseconds
        framesProduced += UInt64(missed)
        framesMissed += UInt64(missed)
        return start + .nanoseconds(cadence.nanoseconds * missed)
    }

    /// The sequence number of the frame starting now, counted produced.
    mutating func takeSequence() -> UInt64 {
        defer { framesProduced += 1 }
        return framesProduced
    }
}
