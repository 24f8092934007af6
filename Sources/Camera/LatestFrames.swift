import Hardware

/// What a controller knows of the frames it has delivered: the latest (regular or a bracket's),
/// the latest regular one and its request, and the frame interval measured between them.
struct LatestFrames {
    /// The latest completed frame's state.
    private(set) var latest: FrameState?
    /// The time between the last two frames delivered, per sensor frame, µs (nil before two).
    private(set) var observedFrameIntervalMicroseconds: Int64?
    /// The latest regular frame's state (never a bracket step's own exposure).
    private(set) var latestRegular: FrameState?
    /// The latest completed regular request, with its buffers.
    private(set) var latestRequest: CompletedRequest?

    /// A bracket's (explicit request's) frame.
    mutating func explicitFrame(_ state: FrameState) {
        record(state)
    }

    /// A regular frame, from `request`.
    mutating func regularFrame(_ state: FrameState, request: CompletedRequest) {
        record(state)
        latestRegular = state
        latestRequest = request
    }

    /// Streaming stopped: the last request's buffers are let go (libcamera refuses to reconfigure
    /// while they are held).
    mutating func streamingStopped() {
        latestRequest = nil
    }

    /// `new` is the latest; the interval is measured when it follows the previous latest.
    private mutating func record(_ new: FrameState) {
        let old = latest
        latest = new
        guard let old, new.sequence > old.sequence else { return }
        let elapsed = new.sensorTimestamp.nanoseconds - old.sensorTimestamp.nanoseconds
        if elapsed > 0 { observedFrameIntervalMicroseconds = elapsed / 1_000 / Int64(new.sequence - old.sequence) }
    }
}
