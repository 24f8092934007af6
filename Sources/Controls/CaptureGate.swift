/// Decides what happens to a capture request while a capture (bracket) runs. Pure.
///
/// At most one request waits (`.queueOne`), so chatter or impatient presses never pile up work.
public struct CaptureGate<Request: Sendable>: Sendable {
    public enum Decision: Sendable {
        /// Start it now; the gate is busy until `finish()`.
        case start(Request)
        /// Kept; it starts when the running capture finishes.
        case queued
        /// Refused; `reason` says why, for the console.
        case rejected(reason: String)
    }

    public let policy: BusyPolicy
    public private(set) var isBusy = false
    public private(set) var queued: Request?
    /// How many requests were refused so far.
    public private(set) var rejectedCount = 0

    public init(policy: BusyPolicy) { self.policy = policy }

    public mutating func offer(_ request: Request) -> Decision {
        if !isBusy {
            isBusy = true
            return .start(request)
        }
        if policy == .queueOne, queued == nil {
            queued = request
            return .queued
        }
        rejectedCount += 1
        return .rejected(reason: policy == .reject
            ? "a capture is running (button policy: reject while busy)"
            : "a capture is running and one press is already queued")
    }

    /// A capture started from elsewhere (the console): later presses wait or are refused.
    public mutating func markBusy() { isBusy = true }

    /// The running capture ended; returns the queued request to start now (the gate stays busy),
    /// or nil (the gate is idle).
    public mutating func finish() -> Request? {
        guard let next = queued else {
            isBusy = false
            return nil
        }
        queued = nil
        return next
    }
}
