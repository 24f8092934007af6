/// A point on the monotonic clock (CLOCK_MONOTONIC on Linux), in nanoseconds.
///
/// This is the clock of libcamera's `SensorTimestamp`, of GPIO edge events requested with the
/// default event clock, and of IMU samples, so all of them can be compared directly.
public struct MonotonicTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary origin (boot, on Linux).
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = MonotonicTime(nanoseconds: 0)

    public static func < (a: MonotonicTime, b: MonotonicTime) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (t: MonotonicTime, d: Duration) -> MonotonicTime {
        MonotonicTime(nanoseconds: t.nanoseconds &+ d.nanoseconds)
    }

    public static func - (t: MonotonicTime, d: Duration) -> MonotonicTime {
        MonotonicTime(nanoseconds: t.nanoseconds &- d.nanoseconds)
    }

    /// The signed interval from `b` to `a`.
    public static func - (a: MonotonicTime, b: MonotonicTime) -> Duration {
        .nanoseconds(a.nanoseconds &- b.nanoseconds)
    }

    /// Seconds since the origin, for logs and sidecars.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String { String(format: "%.6fs", seconds) }
}

extension Duration {
    /// The whole duration in nanoseconds (saturating; sub-nanosecond attoseconds dropped).
    public var nanoseconds: Int64 {
        let (s, atto) = components
        let (product, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return s < 0 ? .min : .max }
        return product &+ atto / 1_000_000_000
    }

    /// The duration in microseconds, rounded to nearest (libcamera's ExposureTime unit).
    public var microseconds: Int64 { (nanoseconds + (nanoseconds >= 0 ? 500 : -500)) / 1000 }

    /// The duration in (fractional) seconds.
    public var secondsValue: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

import Foundation  // String(format:)
