import Hardware

/// Which button line an edge came from.
public enum ButtonLine: String, Hashable, Sendable {
    case shutter, halfPress = "half-press"
}

/// A bounded hand-over of edges from the GPIO reader thread to the event loop.
///
/// `push` never blocks on the loop: it appends under a lock and asks for one loop hop only when the
/// inbox was empty, so a burst of chatter costs one `execute`, not one per edge. Beyond `capacity`
/// the oldest edges are dropped (the newest decides the level) and counted.
public final class EdgeInbox: Sendable {
    private struct State: Sendable {
        var edges: [(ButtonLine, GPIOEdge)] = []
        var hopPending = false
        var dropped = 0
        var received = 0
    }
    public let capacity: Int
    private let state = LockedValue(State())

    public init(capacity: Int) { self.capacity = max(2, capacity) }

    /// Adds an edge; true when the caller must schedule a drain on the loop.
    public func push(_ line: ButtonLine, _ edge: GPIOEdge) -> Bool {
        state.withLock { s in
            s.received += 1
            s.edges.append((line, edge))
            if s.edges.count > capacity {
                s.edges.removeFirst(s.edges.count - capacity)
                s.dropped += 1
            }
            defer { s.hopPending = true }
            return !s.hopPending
        }
    }

    /// Takes every queued edge, in arrival order.
    public func drain() -> [(ButtonLine, GPIOEdge)] {
        state.withLock { s in
            defer { s.edges.removeAll(keepingCapacity: true); s.hopPending = false }
            return s.edges
        }
    }

    public var counts: (received: Int, dropped: Int) { state.withLock { ($0.received, $0.dropped) } }
}
