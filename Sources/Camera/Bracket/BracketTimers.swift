import Hardware

/// The work a bracket has scheduled on the loop: its time limit (and the deadline it is armed for),
/// the gate's wait before it resumes, and the retry of a request that found no free buffer.
/// `BracketEngine` schedules each and keeps it here, so that finishing cancels them all.
struct BracketTimers {
    /// When the bracket times out; moved later by the time the gate waits and by retakes.
    private(set) var deadline: MonotonicTime?
    private var timeout: ScheduledWork?
    /// The gate's wait: the bracket resumes when it runs.
    var resume: ScheduledWork?
    /// The retry of a request that found no free buffer.
    var bufferRetry: ScheduledWork?

    /// Cancels the time limit (before it is armed again).
    mutating func cancelTimeout() {
        timeout?.cancel()
    }

    /// The time limit is `work`, at `deadline`.
    mutating func armed(_ work: ScheduledWork, at deadline: MonotonicTime) {
        self.deadline = deadline
        timeout = work
    }

    /// The time limit and the buffer retry cancelled (a start that failed: nothing else is scheduled).
    mutating func cancelTimeoutAndRetry() {
        timeout?.cancel(); timeout = nil
        bufferRetry?.cancel(); bufferRetry = nil
    }

    /// Everything cancelled (the bracket finished).
    mutating func cancelAll() {
        timeout?.cancel(); timeout = nil
        resume?.cancel(); resume = nil
        bufferRetry?.cancel(); bufferRetry = nil
    }
}
