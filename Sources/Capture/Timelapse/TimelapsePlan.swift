import Foundation
import Units

/// What `timelapse start` asks for, as typed and kept across restarts (timelapse.json):
/// `every INTERVAL [count N | for SPAN | until HH:MM] [ramp auto|off] [capture | bracket ...]`
/// (the console's words are read at the edge: `TimelapsePlan.parse`, Supervisor/Capture/TimelapsePlanParser.swift).
public struct TimelapsePlan: Hashable, Sendable, Codable {
    /// When the sequence ends: after a number of shots, a span, at a time of day, or at `timelapse stop`.
    public enum Limit: Hashable, Sendable, Codable {
        case open
        case count(Int)
        case span(seconds: Double)
        /// The first HH:MM (local time) after the start, as a wall-clock instant.
        case until(Date)
    }

    /// Shot k is due at start + (k − 1) × interval, nanoseconds.
    public var intervalNanoseconds: Int64
    public var limit: Limit
    /// `ramp auto`: exposure metered from each shot's raw frame and ramped (`ExposureRamp`).
    public var ramp: Bool
    /// The action's words: `["capture"]`, or `["bracket", ...]` as the bracket command takes them.
    public var action: [String]

    /// The shortest interval taken; anything faster is video.
    public static let minimumInterval = Duration.milliseconds(500)
    /// The most shots a count asks for (a year at one a minute is fewer).
    public static let maximumCount = 1_000_000

    public var interval: Duration { .nanoseconds(intervalNanoseconds) }

    public init(intervalNanoseconds: Int64, limit: Limit, ramp: Bool, action: [String]) {
        self.intervalNanoseconds = intervalNanoseconds; self.limit = limit; self.ramp = ramp; self.action = action
    }

    /// How it reads back: `every 10s count 100 ramp auto capture`.
    public var summary: String {
        var words = ["every", ValueText.span(interval)]
        switch limit {
        case .open: break
        case .count(let n): words += ["count", String(n)]
        case .span(let seconds): words += ["for", ValueText.span(.nanoseconds(Int64(seconds * 1e9)))]
        case .until(let date):
            let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
            words += ["until", String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)]
        }
        words += ["ramp", ramp ? "auto" : "off"] + action
        return words.joined(separator: " ")
    }

    /// The shot number whose slot is the last one, or nil for an open sequence; `start` is the
    /// first shot's due time.
    public func lastShot(startingAt start: Date) -> Int? {
        let seconds = Double(intervalNanoseconds) / 1e9
        switch limit {
        case .open: return nil
        case .count(let n): return n
        case .span(let span): return Int((span / seconds).rounded(.up)).clamped(1)
        case .until(let end): return Int((end.timeIntervalSince(start) / seconds).rounded(.up)).clamped(1)
        }
    }
}

private extension Int {
    func clamped(_ lower: Int) -> Int { Swift.max(self, lower) }
}
