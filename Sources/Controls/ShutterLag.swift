import Hardware

/// One shutter lag: from the press edge's kernel timestamp to the first capture request queued.
public struct ShutterLag: Hashable, Sendable, Codable {
    /// Kernel time of the press edge (`ButtonCommand.edgeTimestamp`), nanoseconds, CLOCK_MONOTONIC.
    public var edgeNanoseconds: Int64
    /// When the bracket engine queued its first request, nanoseconds on the same clock.
    public var firstRequestQueuedNanoseconds: Int64

    public init(edge: MonotonicTime, firstRequestQueued: MonotonicTime) {
        edgeNanoseconds = edge.nanoseconds
        firstRequestQueuedNanoseconds = firstRequestQueued.nanoseconds
    }

    public var duration: Duration { .nanoseconds(firstRequestQueuedNanoseconds - edgeNanoseconds) }
    /// The lag in milliseconds, for the sidecar and `status`.
    public var milliseconds: Double { Double(firstRequestQueuedNanoseconds - edgeNanoseconds) / 1e6 }
}

/// The recent shutter lags, for `status`: last, count, and percentiles over the last `capacity`.
public struct ShutterLagStatistics: Hashable, Sendable {
    public let capacity: Int
    public private(set) var count = 0
    public private(set) var last: ShutterLag?
    private var recentMilliseconds: [Double] = []
    private var nextSlot = 0

    public init(capacity: Int = 256) { self.capacity = max(1, capacity) }

    public mutating func record(_ lag: ShutterLag) {
        count += 1
        last = lag
        if recentMilliseconds.count < capacity {
            recentMilliseconds.append(lag.milliseconds)
        } else {
            recentMilliseconds[nextSlot] = lag.milliseconds
        }
        nextSlot = (nextSlot + 1) % capacity
    }

    /// The p-th percentile (0...100, nearest rank) of the recent lags in ms; nil before any.
    public func percentileMilliseconds(_ p: Double) -> Double? {
        guard !recentMilliseconds.isEmpty else { return nil }
        let sorted = recentMilliseconds.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
