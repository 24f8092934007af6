import Foundation
import Hardware

/// A shot at a shared instant, as a rig's sidecar records it (`BracketSidecar.shot`; docs/fleet.md).
/// Times are ns since 1970 on this rig's CLOCK_REALTIME, with the RFC 3339 text beside them.
public struct ShotRecord: Hashable, Sendable, Codable {
    /// The shot's id, the same on every rig of the group.
    public var id: String
    /// The instant the first exposure may start.
    public var target: String
    public var targetWallClockNanoseconds: Int64
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC when the shot was armed: how a SensorTimestamp maps to
    /// the wall clock when the camera reports no FrameWallClock.
    public var realtimeMinusMonotonicNanoseconds: Int64
    /// The wall-clock start of the exposure of the bracket's first frame (the earliest saved),
    /// nil until a frame is saved.
    public var firstExposure: String?
    public var firstExposureWallClockNanoseconds: Int64?
    /// "FrameWallClock" or "SensorTimestamp" (mapped to realtime): where `firstExposure` came from.
    public var firstExposureSource: String?
    /// `firstExposure` minus `target`, µs (never negative: earlier frames are skipped).
    public var offsetMicroseconds: Double?
    /// The clock's sync state when the shot was armed (adjtimex): `synchronised`, `unsynchronised`
    /// or `unknown`; an unsynchronised rig's offset cannot be trusted against other rigs'.
    public var clock: String
    /// The kernel's estimated error of the clock, µs; nil when unknown.
    public var clockErrorMicroseconds: Int?
    /// Frame sync when the shot was armed (`fleet.sync`): `server`, `client`, or `unavailable` (asked
    /// for, but the camera has none); nil when off.
    public var sync: String?
    /// SyncReady when the shot was armed: the rig's frames were aligned with the server's.
    public var syncReady: Bool?
    /// A client's measured alignment with the server's frames when armed, µs.
    public var syncAlignmentMicroseconds: Int64?

    public init(id: String, targetWallClockNanoseconds: Int64, realtimeMinusMonotonicNanoseconds: Int64,
                clock: String, clockErrorMicroseconds: Int?) {
        self.id = id
        self.targetWallClockNanoseconds = targetWallClockNanoseconds
        self.target = Self.format(nanoseconds: targetWallClockNanoseconds)
        self.realtimeMinusMonotonicNanoseconds = realtimeMinusMonotonicNanoseconds
        self.clock = clock
        self.clockErrorMicroseconds = clockErrorMicroseconds
    }

    /// Takes `frame`'s exposure start when it is the earliest so far.
    mutating func noteExposure(of frame: CompletedRequest) {
        let wall = frame.metadata[ControlName.frameWallClock]?.int64Value
        let start = wall ?? frame.sensorTimestamp.nanoseconds + realtimeMinusMonotonicNanoseconds
        if let earliest = firstExposureWallClockNanoseconds, earliest <= start { return }
        firstExposureWallClockNanoseconds = start
        firstExposure = Self.format(nanoseconds: start)
        firstExposureSource = wall != nil ? "FrameWallClock" : "SensorTimestamp"
        offsetMicroseconds = Double(start - targetWallClockNanoseconds) / 1000
    }

    /// RFC 3339 in UTC with microseconds, e.g. 2026-05-01T12:00:00.000250Z.
    public static func format(nanoseconds: Int64) -> String {
        let seconds = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let whole = seconds.remainder < 0 ? seconds.quotient - 1 : seconds.quotient
        let fraction = (nanoseconds - whole * 1_000_000_000) / 1000
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(whole)))
        return String(text.dropLast()) + "." + String(String(fraction + 1_000_000).dropFirst()) + "Z"
    }
}
