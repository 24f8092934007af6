import Camera
import Console
import Hardware

extension Supervisor: CaptureHost {
    var acceptsCaptures: Bool { state == .ready }
}

extension Supervisor {
    /// Creates the capture service and adds `capture`, `bracket`, `prepare` and (on the simulated
    /// board) `button`. Called once from `init`.
    func registerCaptureCommands() {
        let service = CaptureService(loop: loop, storage: devices.storage)
        service.host = self
        captureService = service
        commands.add(Command("capture", summary: "take one frame with the current settings (a one-frame bracket)",
                             detail: ["Writes what capture.format says (dng, jpeg or both) and a sidecar.",
                                      "Events: bracket.started, bracket.frame, bracket.done or bracket.failed."]) { context, _ in
            context.supervisor.startCapture(.single)
        })
        commands.add(Command("bracket", synopsis: "ev <count> <step> | ev <ev> ... | manual <duration>@<iso> ... | auto",
                             summary: "take a bracket, frame-accurately",
                             detail: ["ev 5 1: biases 0, -1, +1, -2, +2 (0 first, then darker/brighter alternating outward)",
                                      "ev 0 -1 +1.5: these biases, in this order (two unsigned numbers read as <count> <step>)",
                                      "manual 1/60@400 1/15@800: duration@ISO pairs",
                                      "auto: 0, -2, +2 EV, then 2 EV further while highlights clip or shadows are crushed",
                                      "refused (busy) while another bracket runs"],
                             arguments: 1...64) { context, args in
            do throws(ConsoleError) {
                return context.supervisor.startCapture(try BracketCommandParser.parse(args))
            } catch { return .error(error) }
        })
        commands.add(Command("prepare", summary: "configure the still stream and open the store ahead of the first press",
                             detail: ["Reports the still and raw sizes and bracket.max (frames that fit the memory budget)."]) { context, _ in
            guard let service = context.supervisor.captureService else { return .err(.unsupported, "no capture service") }
            do throws(ConsoleError) { return .ok(try service.prepare()) } catch { return .error(error) }
        })
        commands.add(Command("button", synopsis: "press | hold <ms> | half",
                             summary: "simulated board only: press the shutter button, hold it, or toggle half press",
                             arguments: 1...2) { context, args in
            guard let hook = context.supervisor.devices.simulation?.button else {
                return .err(.unsupported, "button: only the simulated board has a scripted button")
            }
            let duration: Duration?
            do throws(ConsoleError) {
                duration = try args.count > 1 ? ValueParser.duration(args[1].hasSuffix("ms") ? args[1] : args[1] + "ms") : nil
            } catch { return .error(error) }
            do {
                try hook(args[0], duration)
                return .ok([("button", args[0])])
            } catch { return .err(.badValue, "\(error)") }
        })
    }

    /// The console's entry point into the capture service.
    func startCapture(_ plan: BracketPlan) -> Reply {
        guard let service = captureService else { return .err(.unsupported, "no capture service") }
        do throws(ConsoleError) {
            return .ok(try service.start(plan, trigger: .console))
        } catch { return .error(error) }
    }

    /// Capture fields for `status`.
    func captureStatusFields() -> [(String, String)] {
        captureService?.statusFields() ?? []
    }
}
