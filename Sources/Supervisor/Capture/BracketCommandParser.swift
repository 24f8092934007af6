import Camera
import Console

/// Parses the console's bracket forms into a `BracketPlan`:
/// - `bracket ev <count> <step>`: the preset (count an unsigned whole number ≥ 1, step an unsigned
///   number of EV), e.g. `bracket ev 5 1`;
/// - `bracket ev <ev> <ev> ...`: biases in capture order, e.g. `bracket ev 0 -1 +1`. Two unsigned
///   numbers read as the preset, so a two-bias list needs a sign or a 0 first (`bracket ev 0 2`);
/// - `bracket manual <duration>@<iso> ...`: durations in `ValueParser.duration` forms, ISO as a
///   number, e.g. `bracket manual 1/60@400 1/15@800`;
/// - `bracket auto`: the auto-range bracket;
/// - `bracket focus <near> <far> [<step>|auto] [ev ...]`: a focus bracket. The ends are lens
///   positions as `focus.lens` takes them (`5`, `0.2m`, `inf`), in either order; the step is in
///   dioptres or `auto` (the default: from the depth of field); `ev` and an EV form (`ev 3 1`,
///   `ev 0 -1 +1`) take those biases at every lens position.
public enum BracketCommandParser {
    public static let usage = "bracket ev <count> <step> | bracket ev <ev> <ev> ... | bracket manual <duration>@<iso> ... | bracket auto | bracket focus <near> <far> [<step>|auto] [ev ...] | bracket preset <name>"

    public static func parse(_ arguments: [String]) throws(ConsoleError) -> BracketPlan {
        guard let form = arguments.first?.lowercased() else { throw ConsoleError(.usage, "usage: \(usage)") }
        let rest = Array(arguments.dropFirst())
        do {
            switch form {
            case "ev":
                return try evPlan(rest)
            case "focus":
                return try focusPlan(rest)
            case "manual":
                guard !rest.isEmpty else { throw ConsoleError(.usage, "bracket manual needs <duration>@<iso> pairs, e.g. 1/60@400 1/15@800") }
                var pairs: [(durationMicroseconds: Int, iso: Double)] = []
                for text in rest {
                    let parts = text.split(separator: "@", omittingEmptySubsequences: false)
                    guard parts.count == 2 else {
                        throw ConsoleError(.badValue, "\"\(text)\" is not <duration>@<iso>; e.g. 1/60@400")
                    }
                    let duration = try ValueParser.duration(String(parts[0]))
                    let iso = try ValueParser.iso(String(parts[1]))
                    pairs.append((Int((duration / .microseconds(1)).rounded()), iso))
                }
                return try BracketPlan.manual(pairs)
            case "auto":
                guard rest.isEmpty else { throw ConsoleError(.usage, "bracket auto takes no arguments") }
                return BracketPlan.autoRange()
            default:
                throw ConsoleError(.usage, "unknown bracket form \"\(form)\"; usage: \(usage)")
            }
        } catch let error as ConsoleError {
            throw error
        } catch let error as CameraError {
            throw ConsoleError(.outOfRange, error.message)
        } catch {
            throw ConsoleError(.badValue, "\(error)")
        }
    }

    private static func evPlan(_ rest: [String]) throws -> BracketPlan {
        guard !rest.isEmpty else { throw ConsoleError(.usage, "bracket ev needs <count> <step> or a list of biases; usage: \(usage)") }
        if rest.count == 2, let count = unsignedWhole(rest[0]), let step = unsignedNumber(rest[1]) {
            return try BracketPlan.evPreset(count: count, stepEV: step)
        }
        var biases: [Double] = []
        for text in rest { biases.append(try ValueParser.ev(text)) }
        return try BracketPlan.evList(biases)
    }

    private static func focusPlan(_ rest: [String]) throws -> BracketPlan {
        let focusUsage = "usage: bracket focus <near> <far> [<step>|auto] [ev ...], e.g. bracket focus 0.2m 2m or bracket focus 5 inf 0.25 ev 3 1"
        guard rest.count >= 2 else { throw ConsoleError(.usage, "bracket focus needs two lens positions; " + focusUsage) }
        let a = try ValueParser.dioptres(rest[0]), b = try ValueParser.dioptres(rest[1])
        var index = 2
        var step: Double?
        if index < rest.count, rest[index].lowercased() != "ev" {
            step = try stepDioptres(rest[index])
            index += 1
        }
        var biases = [0.0]
        var text = rest[0...1].joined(separator: " ") + " " + (step.map { BracketPlan.number($0) } ?? "auto")
        if index < rest.count {
            guard rest[index].lowercased() == "ev" else { throw ConsoleError(.usage, "bracket focus: \"\(rest[index])\" is not `ev ...`; " + focusUsage) }
            let ev = try evPlan(Array(rest[(index + 1)...]))
            biases = ev.steps.map { if case .evBias(let bias) = $0 { bias } else { 0 } }
            text += " " + ev.summary.dropFirst("bracket ".count)
        }
        return BracketPlan.focus(FocusBracketRequest(a, b, stepDioptres: step, evBiases: biases, text: text))
    }

    /// A focus step: dioptres ("0.3", "0.3D") or `auto` (nil).
    private static func stepDioptres(_ text: String) throws(ConsoleError) -> Double? {
        let s = text.lowercased()
        if s == "auto" { return nil }
        let bad = ConsoleError(.badValue, "\"\(text)\" is not a focus step; use dioptres (0.3, 0.3D) or auto")
        guard !s.hasSuffix("m"), !s.hasPrefix("inf") else { throw bad }
        let value = try ValueParser.dioptres(text)
        guard value > 0 else { throw bad }
        return value
    }

    private static func unsignedWhole(_ text: String) -> Int? {
        guard let first = text.first, first.isNumber, first != "0", text.allSatisfy(\.isNumber) else { return nil }
        return Int(text)
    }

    private static func unsignedNumber(_ text: String) -> Double? {
        guard let first = text.first, first.isNumber || first == "." else { return nil }
        return Double(text)
    }
}
