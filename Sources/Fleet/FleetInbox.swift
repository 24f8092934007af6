import Hardware

/// The hand-over of libmosquitto's events from its network thread to the supervisor's event loop.
///
/// `push` never blocks on the loop: it appends under a lock and asks for one loop hop only when the
/// inbox was empty (as `EdgeInbox` does for button edges). Beyond `capacity` the newest messages are
/// dropped and counted (a flood of commands must not grow memory); connection events are always kept.
public final class FleetInbox: Sendable {
    /// An event, tagged with the connection it came from (a reconfigured client's stale events are ignored).
    public struct Item: Sendable, Equatable {
        public var connection: Int
        public var event: MosquittoEvent
    }

    private struct State: Sendable {
        var items: [Item] = []
        var hopPending = false
        var dropped = 0
    }
    public let capacity: Int
    private let state = LockedValue(State())

    public init(capacity: Int) { self.capacity = max(2, capacity) }

    /// Adds an event; true when the caller must schedule a drain on the loop.
    public func push(_ item: Item) -> Bool {
        state.withLock { s in
            if case .message = item.event, s.items.count >= capacity {
                s.dropped += 1
                return false
            }
            s.items.append(item)
            defer { s.hopPending = true }
            return !s.hopPending
        }
    }

    /// Takes every queued event, in arrival order, and how many messages were dropped since the last drain.
    public func drain() -> (items: [Item], dropped: Int) {
        state.withLock { s in
            defer { s.items.removeAll(keepingCapacity: true); s.hopPending = false; s.dropped = 0 }
            return (s.items, s.dropped)
        }
    }
}
