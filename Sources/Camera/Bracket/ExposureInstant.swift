import Hardware

/// The instant a shot's first exposure may start, on this rig's CLOCK_REALTIME (a shot at a shared
/// instant, docs/fleet.md). The bracket engine skips every frame whose exposure starts before it.
///
/// A frame's exposure start on the wall clock is its `FrameWallClock` metadata where the camera
/// reports it (libcamera 0.5+), otherwise its SensorTimestamp (CLOCK_MONOTONIC) mapped to realtime
/// by the offset between the two clocks measured when the shot was armed.
public struct ExposureInstant: Sendable, Equatable {
    /// The instant, ns since 1970 (CLOCK_REALTIME).
    public var wallClockNanoseconds: Int64
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC when the shot was armed, ns.
    public var realtimeMinusMonotonicNanoseconds: Int64

    public init(wallClockNanoseconds: Int64, realtimeMinusMonotonicNanoseconds: Int64) {
        self.wallClockNanoseconds = wallClockNanoseconds
        self.realtimeMinusMonotonicNanoseconds = realtimeMinusMonotonicNanoseconds
    }

    /// The instant on the monotonic (SensorTimestamp) clock.
    public var monotonic: MonotonicTime { MonotonicTime(nanoseconds: wallClockNanoseconds - realtimeMinusMonotonicNanoseconds) }

    /// When `request`'s exposure started on the wall clock, ns since 1970, and whether that came
    /// from FrameWallClock (true) or the mapped SensorTimestamp (false).
    public func exposureStart(of request: CompletedRequest) -> (wallClockNanoseconds: Int64, fromFrameWallClock: Bool) {
        if let wall = request.metadata[ControlName.frameWallClock]?.int64Value { return (wall, true) }
        return (request.sensorTimestamp.nanoseconds + realtimeMinusMonotonicNanoseconds, false)
    }

    /// True when `request`'s exposure started at or after the instant.
    public func admits(_ request: CompletedRequest) -> Bool {
        exposureStart(of: request).wallClockNanoseconds >= wallClockNanoseconds
    }
}
