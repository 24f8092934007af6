import Foundation
import Hardware

/// A shot at a shared instant whose action was `record start` (docs/fleet.md), as the video's
/// sidecar records it: the instant, the wall-clock start of the first frame's exposure and its
/// offset, and the clock's sync state when the shot armed. Times are ns since 1970 (CLOCK_REALTIME).
public struct VideoShot: Sendable, Equatable, Codable {
    public var id: String
    public var targetWallClockNanoseconds: Int64
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC at arming: maps a SensorTimestamp without FrameWallClock.
    public var realtimeMinusMonotonicNanoseconds: Int64
    public var clock: String
    public var clockErrorMicroseconds: Int?
    /// Filled from the first frame written: its exposure start and the offset from the target, µs.
    public var firstExposureWallClockNanoseconds: Int64?
    public var firstExposureSource: String?
    public var offsetMicroseconds: Double?

    public init(id: String, targetWallClockNanoseconds: Int64, realtimeMinusMonotonicNanoseconds: Int64, clock: String,
                clockErrorMicroseconds: Int?) {
        self.id = id; self.targetWallClockNanoseconds = targetWallClockNanoseconds
        self.realtimeMinusMonotonicNanoseconds = realtimeMinusMonotonicNanoseconds
        self.clock = clock; self.clockErrorMicroseconds = clockErrorMicroseconds
    }

    /// This record with the first frame's exposure start (FrameWallClock, else its SensorTimestamp mapped).
    func noting(firstFrame: FrameInfo?) -> VideoShot {
        guard let firstFrame else { return self }
        var noted = self
        let start = firstFrame.wallClockNanoseconds ?? firstFrame.sensorTimestamp.nanoseconds + realtimeMinusMonotonicNanoseconds
        noted.firstExposureWallClockNanoseconds = start
        noted.firstExposureSource = firstFrame.wallClockNanoseconds != nil ? "FrameWallClock" : "SensorTimestamp"
        noted.offsetMicroseconds = Double(start - targetWallClockNanoseconds) / 1000
        return noted
    }
}
