import Hardware

/// A frame the recording did not get, with why.
public struct DroppedFrame: Sendable, Equatable, Codable {
    public enum Cause: String, Sendable, Codable {
        /// The encoder was behind and the queue full.
        case queueFull = "queue-full"
        /// A gap in the camera's sequence numbers: the camera or libcamera dropped it.
        case sequenceGap = "sequence-gap"
        /// Refused by the encoder (size changed, timestamp not advancing).
        case refused
    }
    public var sequence: UInt64
    /// Its SensorTimestamp; for a sequence gap, the timestamp of the frame after the gap.
    public var sensorTimestampNanoseconds: Int64
    public var cause: Cause
}

/// The bounded hand-over of frames from the camera side to the encoder queue (the `EdgeInbox`
/// pattern): `push` never blocks; it appends under a lock and asks for one encoder hop only when
/// none is pending. When `capacity` frames wait already, the new frame is dropped and recorded.
final class FrameInbox: Sendable {
    enum PushResult: Equatable {
        /// Queued; `needsHop` when the caller must schedule a drain on the encoder queue.
        case queued(needsHop: Bool)
        case dropped
        /// Not recording and no pre-record: nothing wanted.
        case idle
    }
    private struct State: Sendable {
        var frames: [VideoFrame] = []
        var hopPending = false
        var accepting = false
        var dropped: [DroppedFrame] = []
    }
    let capacity: Int
    private let state = LockedValue(State())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Whether a frame pushed now would be queued: checked before copying a camera buffer.
    var hasRoom: Bool { state.withLock { $0.accepting && $0.frames.count < capacity } }

    /// Frames waiting for the encoder.
    var count: Int { state.withLock { $0.frames.count } }

    /// Whether frames are wanted at all.
    var accepting: Bool {
        get { state.withLock { $0.accepting } }
        set { state.withLock { $0.accepting = newValue } }
    }

    func push(_ frame: VideoFrame) -> PushResult {
        state.withLock { s in
            guard s.accepting else { return .idle }
            guard s.frames.count < capacity else {
                s.dropped.append(DroppedFrame(sequence: frame.sequence, sensorTimestampNanoseconds: frame.sensorTimestamp.nanoseconds, cause: .queueFull))
                return .dropped
            }
            s.frames.append(frame)
            defer { s.hopPending = true }
            return .queued(needsHop: !s.hopPending)
        }
    }

    /// Records a frame dropped before it got here (the caller saw no room).
    func recordDropped(sequence: UInt64, at time: MonotonicTime) {
        state.withLock { $0.dropped.append(DroppedFrame(sequence: sequence, sensorTimestampNanoseconds: time.nanoseconds, cause: .queueFull)) }
    }

    /// Every queued frame in arrival order, and the drops recorded since the last call.
    func drain() -> (frames: [VideoFrame], dropped: [DroppedFrame]) {
        state.withLock { s in
            defer { s.frames.removeAll(keepingCapacity: true); s.dropped.removeAll(); s.hopPending = false }
            return (s.frames, s.dropped)
        }
    }
}
