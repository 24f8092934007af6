import Camera
import Console
import Hardware
import Capture
import Controls
import Settings

/// Bracket presets: named bracket arguments (`preset save hdr5 ev 5 1`), run by `bracket preset
/// <name>` and by a button action `bracket:<name>`. Kept in `presets.json` in the state directory,
/// written atomically on every change and loaded at start.
extension Supervisor {
    public func registerPresetCommands() {
        commands.add(Command("preset", synopsis: "save <name> <bracket arguments> | list | delete <name>",
                             summary: "named brackets for `bracket preset <name>` and the button",
                             detail: ["save hdr5 ev 5 1: checks the arguments as `bracket` does and keeps them (replacing a preset of that name)",
                                      "names: \(BracketPresetName.rule)",
                                      "list: one line per preset; delete hdr5: forgets it",
                                      "kept in presets.json in the state directory, written on every change"],
                             arguments: 1...66) { context, args in
            context.supervisor.presetCommand(args, context: &context)
        })
    }

    private func presetCommand(_ args: [String], context: inout CommandContext) -> Reply {
        let service = captureService
        let usage = "usage: preset save <name> <bracket arguments> | preset list | preset delete <name>"
        switch args[0].lowercased() {
        case "list":
            guard args.count == 1 else { return .err(.usage, usage) }
            let body = service.presets.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: " "))" }
            return .ok([("presets", String(service.presets.count))], body: body)
        case "save":
            guard args.count >= 3 else { return .err(.usage, usage) }
            let name = args[1], bracket = Array(args.dropFirst(2))
            do throws(ConsoleError) {
                if let problem = BracketPresetName.problem(name) { throw ConsoleError(.badValue, problem) }
                if bracket[0].lowercased() == "preset" { throw ConsoleError(.badValue, "a preset holds bracket arguments, not another preset") }
                let plan = try BracketCommandParser.parse(bracket)
                var updated = service.presets
                updated[name] = bracket
                return storePresets(updated, context: &context, reply: .ok([
                    ("preset", name), ("bracket", bracket.joined(separator: " ")), ("plan", plan.summary),
                    ("stored", services.state == nil ? "memory" : "state")]))
            } catch { return .error(error) }
        case "delete":
            guard args.count == 2 else { return .err(.usage, usage) }
            guard service.presets[args[1]] != nil else { return .error(ConsoleError(CaptureError.missingPreset(args[1]))) }
            var updated = service.presets
            updated[args[1]] = nil
            return storePresets(updated, context: &context, reply: .ok([("deleted", args[1])]))
        default:
            return .err(.usage, usage)
        }
    }

    /// `bracket` arguments: `preset <name>` or a form `BracketCommandParser` reads.
    public func bracketPlan(_ arguments: [String]) throws(ConsoleError) -> BracketPlan {
        guard arguments.first?.lowercased() == "preset" else { return try BracketCommandParser.parse(arguments) }
        guard arguments.count == 2 else { throw ConsoleError(.usage, "usage: bracket preset <name>") }
        let service = captureService
        return try worded { () throws(CaptureError) in try service.presetPlan(named: arguments[1]) }
    }

    /// Writes `presets` to the state directory (when there is one) off the loop, then keeps them
    /// and answers `reply`; nothing changes when the write fails.
    private func storePresets(_ presets: [String: [String]], context: inout CommandContext, reply: Reply) -> Reply {
        guard case .stateDirectory(let writer) = stateKeeping else {
            captureService.presets = presets
            return reply
        }
        let later = context.answerLater()
        beginWork("save")
        writer.save(presets, as: StateStore.File.presets) { error in
            let supervisor = later.target.value.0
            if let error {
                later.send(.err(.device, "presets not saved: \(error)"))
            } else {
                supervisor.captureService.presets = presets
                later.send(reply)
            }
            supervisor.endWork("save")
        }
        return reply
    }

    /// Loads the presets kept in the state directory (at start). Bad entries are logged and skipped.
    public func restorePresets() {
        guard let store = services.state else { return }
        let service = captureService
        let saved: [String: [String]]?
        do { saved = try store.load([String: [String]].self, from: StateStore.File.presets) }
        catch { log.warning("bracket presets ignored: \(error)"); return }
        for (name, arguments) in (saved ?? [:]).sorted(by: { $0.key < $1.key }) {
            do throws(ConsoleError) {
                if let problem = BracketPresetName.problem(name) { throw ConsoleError(.badValue, problem) }
                guard arguments.first?.lowercased() != "preset" else { throw ConsoleError(.badValue, "a preset cannot name a preset") }
                _ = try BracketCommandParser.parse(arguments)
                service.presets[name] = arguments
            } catch { log.warning("bracket preset \(name) ignored: \(error.message)") }
        }
    }
}
