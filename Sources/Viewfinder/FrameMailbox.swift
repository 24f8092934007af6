import Synchronization

/// A one-slot mailbox where the latest value wins: the capture side posts without ever waiting, the
/// display side takes when it is ready, and anything it was too slow for is replaced, not queued.
///
/// The slot is behind a `Synchronization.Mutex` held only to swap a reference, so `post` never
/// blocks on drawing or scan-out. Replaced values are released at once (for a libcamera
/// `FrameBuffer` that returns the buffer to the camera).
public final class LatestValueMailbox<Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var value: Value?
        var posted: UInt64 = 0
        var taken: UInt64 = 0
        var replaced: UInt64 = 0
    }

    private let slot = Mutex(Slot())

    public init() {}

    /// Puts `value` in the slot, replacing (and counting as dropped) one the display has not taken.
    public func post(_ value: Value) {
        let old: Value? = slot.withLock { s in
            let previous = s.value
            if previous != nil { s.replaced += 1 }
            s.value = value
            s.posted += 1
            return previous
        }
        _ = old  // released here, outside the lock
    }

    /// Takes the newest value, leaving the slot empty; nil when nothing new was posted.
    public func take() -> Value? {
        slot.withLock { s in
            guard let v = s.value else { return nil }
            s.value = nil
            s.taken += 1
            return v
        }
    }

    /// Empties the slot (display stopped or disconnected).
    public func clear() { _ = take() }

    /// How many values were posted, taken, and replaced before being taken.
    public var counts: (posted: UInt64, taken: UInt64, replaced: UInt64) {
        slot.withLock { ($0.posted, $0.taken, $0.replaced) }
    }
}
