import Console
import Foundation

/// What `timelapse start` asks for, as typed and kept across restarts (timelapse.json):
/// `every INTERVAL [count N | for SPAN | until HH:MM] [ramp auto|off] [capture | bracket ...]`.
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

    /// How it reads back: `every 10s count 100 ramp auto capture`.
    public var summary: String {
        var words = ["every", ValueParser.formatSpan(interval)]
        switch limit {
        case .open: break
        case .count(let n): words += ["count", String(n)]
        case .span(let seconds): words += ["for", ValueParser.formatSpan(.nanoseconds(Int64(seconds * 1e9)))]
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

    /// Parses the words after `timelapse start`; `now` places `until HH:MM` (the next one).
    public static func parse(_ words: [String], now: Date, calendar: Calendar = .current) throws(ConsoleError) -> TimelapsePlan {
        let usage = "usage: timelapse start every <interval> [count <n> | for <span> | until <HH:MM>] [ramp auto|off] [capture | bracket ...]"
        guard words.count >= 2, words[0] == "every" else { throw ConsoleError(.usage, usage) }
        let interval = try ValueParser.span(words[1])
        guard interval >= minimumInterval else {
            throw ConsoleError(.outOfRange, "interval \(words[1]) is shorter than \(ValueParser.formatSpan(minimumInterval)); record video instead")
        }
        var plan = TimelapsePlan(intervalNanoseconds: interval.nanoseconds, limit: .open, ramp: false, action: ["capture"])
        var i = 2, limited = false
        while i < words.count {
            let word = words[i]
            if word == "capture" || word == "bracket" {
                plan.action = Array(words[i...])
                guard word == "bracket" || plan.action.count == 1 else { throw ConsoleError(.usage, "capture takes no arguments here; \(usage)") }
                guard word == "capture" || plan.action.count > 1 else { throw ConsoleError(.usage, "bracket needs its arguments, e.g. bracket ev 3 1") }
                break
            }
            guard i + 1 < words.count else { throw ConsoleError(.usage, "\(word) needs a value; \(usage)") }
            let value = words[i + 1]
            switch word {
            case "count", "for", "until":
                guard !limited else { throw ConsoleError(.usage, "one of count, for and until at most") }
                limited = true
                plan.limit = try parseLimit(word, value, now: now, calendar: calendar)
            case "ramp":
                guard value == "auto" || value == "off" else { throw ConsoleError(.badValue, "ramp \(value): use ramp auto or ramp off") }
                plan.ramp = value == "auto"
            default:
                throw ConsoleError(.usage, "\(word)? \(usage)")
            }
            i += 2
        }
        return plan
    }

    private static func parseLimit(_ word: String, _ value: String, now: Date, calendar: Calendar) throws(ConsoleError) -> Limit {
        switch word {
        case "count":
            guard let n = Int(value), n >= 1, n <= maximumCount else {
                throw ConsoleError(.badValue, "count \(value): a whole number of shots from 1 to \(maximumCount)")
            }
            return .count(n)
        case "for":
            let span = try ValueParser.span(value)
            guard span > .zero else { throw ConsoleError(.badValue, "for \(value): the span must be longer than 0") }
            return .span(seconds: Double(span.nanoseconds) / 1e9)
        default:
            let parts = value.split(separator: ":")
            guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute) else {
                throw ConsoleError(.badValue, "until \(value): a time of day as HH:MM, e.g. until 06:30")
            }
            var when = DateComponents()
            when.hour = hour; when.minute = minute; when.second = 0
            guard let end = calendar.nextDate(after: now, matching: when, matchingPolicy: .nextTime) else {
                throw ConsoleError(.badValue, "until \(value): no such time after now")
            }
            return .until(end)
        }
    }
}

private extension Int {
    func clamped(_ lower: Int) -> Int { Swift.max(self, lower) }
}
