import Camera
import Console
import Capture
import Hardware
import Settings

extension Supervisor {
    /// Adds `capture`, `bracket` and `prepare` (the capture service is made in Composition.swift).
    /// (The simulated board's `button` command is in SimulationCommands.swift.)
    func registerCaptureCommands() {
        registerPresetCommands()
        commands.add(Command("capture", summary: "take one frame with the current settings (a one-frame bracket)",
                             detail: ["Writes what \(SettingsTable.captureFormat.key) says (dng, jpeg or both) and a sidecar.",
                                      "Events: bracket.started, bracket.frame, bracket.done or bracket.failed."]) { context, _ in
            context.supervisor.startCapture(.single)
        })
        commands.add(Command("bracket", synopsis: "ev <count> <step> | ev <ev> ... | manual <duration>@<iso> ... | auto | focus <near> <far> [<step>|auto] [ev ...] | preset <name>",
                             summary: "take a bracket, frame-accurately",
                             detail: ["ev 5 1: biases 0, -1, +1, -2, +2 (0 first, then darker/brighter alternating outward)",
                                      "ev 0 -1 +1.5: these biases, in this order (two unsigned numbers read as <count> <step>)",
                                      "manual 1/60@400 1/15@800: duration@ISO pairs",
                                      "auto: 0, -2, +2 EV, then 2 EV further while highlights clip or shadows are crushed",
                                      "focus 0.2m 2m: lens positions from 0.2 m to 2 m (as \(SettingsTable.focusLens.key) takes them: 5, 0.2m, inf; either order), each confirmed from its LensPosition",
                                      "focus 5 inf 0.25: steps of 0.25 D; auto (the default) from the depth of field, frames overlapping in sharpness",
                                      "focus 0.2m 2m ev 3 1: an EV bracket (0, -1, +1) at each lens position; exposure and white balance held",
                                      "preset hdr5: the arguments kept by `preset save hdr5 ...`",
                                      "refused (busy) while another bracket runs"],
                             arguments: 1...64) { context, args in
            do throws(ConsoleError) {
                return context.supervisor.startCapture(try context.supervisor.bracketPlan(args))
            } catch { return .error(error) }
        })
        commands.add(Command("prepare", summary: "configure the still stream and open the store ahead of the first press",
                             detail: ["Reports the still and raw sizes and bracket.max (frames that fit the memory budget)."]) { context, _ in
            let service = context.supervisor.captureService
            do throws(ConsoleError) { return .ok(try worded { () throws(CaptureError) in try service.prepare() }.replyFields) } catch { return .error(error) }
        })
    }

    /// The console's entry point into the capture service.
    func startCapture(_ plan: BracketPlan) -> Reply {
        let service = captureService
        do throws(ConsoleError) {
            return .ok(try worded { () throws(CaptureError) in try service.start(plan, trigger: .console) }.replyFields)
        } catch { return .error(error) }
    }

    /// Capture fields for `status`.
    func captureStatusFields() -> [(String, String)] {
        captureService.statusFields()
    }
}
