import Hardware

/// Debounces one line on its edges' kernel timestamps. Pure: no clock, no I/O.
///
/// Edges closer together than `window` form a burst. In `.leadingEdge` mode the first edge of a
/// burst that starts after a quiet `window` and changes the level is accepted at once; in either
/// mode, when a burst ends (no edge for `window`) with the raw level different from the debounced
/// one, that level is accepted by `settle(at:)`. The owner calls `settle(at:)` at `nextDeadline`.
public struct Debouncer: Sendable {
    /// A debounced level change.
    public struct Change: Hashable, Sendable {
        /// The new debounced level (true = active, pressed).
        public var isActive: Bool
        /// Kernel time the line went to this level: the burst's first edge, or, when that edge was
        /// already accepted the other way (a tap shorter than the window), the burst's last edge.
        public var timestamp: MonotonicTime
        /// When the change was decided (the edge itself, or the settle deadline).
        public var decidedAt: MonotonicTime
    }

    public let window: Duration
    public let mode: DebounceMode
    /// The debounced level.
    public private(set) var level: Bool
    private var rawLevel: Bool
    private var lastEdge: MonotonicTime?
    private var burstStart: MonotonicTime?
    private var burstAccepted = false

    public init(window: Duration, mode: DebounceMode = .leadingEdge, initiallyActive: Bool = false) {
        self.window = window; self.mode = mode
        level = initiallyActive; rawLevel = initiallyActive
    }

    /// When `settle(at:)` must run next, or nil when the raw and debounced levels agree.
    public var nextDeadline: MonotonicTime? {
        guard rawLevel != level, let lastEdge else { return nil }
        return lastEdge + window
    }

    /// Feeds one edge (in kernel order); returns the change it causes at once, if any.
    public mutating func edge(_ edge: GPIOEdge) -> Change? {
        // Timestamps never go backwards on one line; clamp if a caller mixes sources.
        let t = max(edge.timestamp, lastEdge ?? edge.timestamp)
        let quiet = lastEdge.map { t - $0 >= window } ?? true
        if quiet {
            burstStart = t
            burstAccepted = false
        }
        lastEdge = t
        rawLevel = edge.kind == .rising
        guard mode == .leadingEdge, quiet, rawLevel != level else { return nil }
        level = rawLevel
        burstAccepted = true
        return Change(isActive: level, timestamp: t, decidedAt: t)
    }

    /// Accepts the raw level if the line has been quiet for `window` at `now` and it differs.
    public mutating func settle(at now: MonotonicTime) -> Change? {
        guard let deadline = nextDeadline, now >= deadline, let lastEdge else { return nil }
        level = rawLevel
        let timestamp = burstAccepted ? lastEdge : (burstStart ?? lastEdge)
        burstAccepted = true
        return Change(isActive: level, timestamp: timestamp, decidedAt: now)
    }
}
