import Capture
import Console
import Foundation

/// Reads the words after `timelapse start` into a `TimelapsePlan` (the edge: the plan itself is
/// Capture's and speaks no console words).
extension TimelapsePlan {
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
