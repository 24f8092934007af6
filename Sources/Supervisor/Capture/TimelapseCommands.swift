import Camera
import Hardware
import Capture
import Console
import Settings

/// `timelapse start|stop|status`: the intervalometer (Capture's `Timelapse`), and its state kept
/// in the state directory (timelapse.json) so that a restart resumes it.
extension Supervisor {
    func registerTimelapseCommands() {
        commands.add(Command("timelapse", synopsis: "start every <interval> [count <n> | for <span> | until <HH:MM>] [ramp auto|off] [capture | bracket ...] | stop | status",
                             summary: "an intervalometer: a shot every interval, on the wall clock, with an optional day-to-night exposure ramp",
                             detail: ["timelapse start every 10s count 360: shot k at start + (k-1) x 10 s; late shots are missed, never bunched",
                                      "for 2h, until 06:30 (the next one): when it ends; none: until timelapse stop",
                                      "ramp auto: each shot metered from its raw frame (median, 99.5th percentile); exposure then ISO follow at most \(SettingsTable.timelapseRampRate.key) EV per hour; each frame gets <name>.xmp (crs:Exposure2012)",
                                      "the action: capture (the default) or any bracket, e.g. bracket ev 3 1 or bracket preset hdr5",
                                      "kept in timelapse.json: a restart resumes it, with its shot numbers",
                                      "Events: timelapse.started, timelapse.shot, timelapse.missed, timelapse.stopped."],
                             arguments: 1...64) { context, args in
            context.supervisor.timelapseCommand(args)
        })
    }

    func timelapseCommand(_ args: [String]) -> Reply {
        switch args[0] {
        case "start":
            do throws(ConsoleError) {
                let plan = try TimelapsePlan.parse(Array(args.dropFirst()), now: services.wallClock())
                let started = try worded { () throws(CaptureError) in try timelapse.start(plan) }
                return .ok([("timelapse", "started"), ("plan", plan.summary)]
                           + (plan.lastShot(startingAt: started.startTime).map { [("shots", String($0))] } ?? []))
            } catch { return .error(error) }
        case "stop":
            guard args.count == 1 else { return .err(.usage, "usage: timelapse stop") }
            let reason = "timelapse stop"
            guard let finished = timelapse.stop(reason: reason) else { return .ok([("timelapse", "off")]) }
            return .ok([("timelapse", "stopped")] + TimelapseEvent.stoppedFields(finished, reason: reason))
        case "status":
            guard args.count == 1 else { return .err(.usage, "usage: timelapse status") }
            return .ok(timelapse.statusFields())
        default:
            return .err(.usage, "usage: timelapse start every <interval> ... | stop | status")
        }
    }

    /// A time-lapse's action as a plan: `capture`, or the bracket command's arguments.
    func timelapseAction(_ words: [String]) throws(ConsoleError) -> BracketPlan {
        if words == ["capture"] { return .single }
        guard words.first == "bracket", words.count > 1 else {
            throw ConsoleError(.usage, "a time-lapse's action is capture or bracket ...")
        }
        return try bracketPlan(Array(words.dropFirst()))
    }

    /// Keeps the time-lapse's state in timelapse.json (nil deletes it), off the loop.
    func persistTimelapse(_ state: TimelapseState?) {
        guard case .stateDirectory(let writer) = stateKeeping else { return }
        beginWork("timelapse.save")
        let bound = LoopBound(self, loop: loop)
        let done: @Sendable ((any Error)?) -> Void = { error in
            let supervisor = bound.value
            if let error { supervisor.log.warning("timelapse.json: \(error)") }
            supervisor.endWork("timelapse.save")
        }
        if let state { writer.save(state, as: StateStore.File.timelapse, then: done) }
        else { writer.reset(StateStore.File.timelapse, then: done) }
    }

    /// At start: a time-lapse kept from before goes on (its missed shots counted).
    func resumeTimelapse() {
        guard let store = services.state else { return }
        do {
            guard let saved = try store.load(TimelapseState.self, from: StateStore.File.timelapse) else { return }
            timelapse.resume(saved)
        } catch {
            log.warning("time-lapse not resumed: \(error)")
        }
    }

    /// Time-lapse fields for `status`.
    func timelapseStatusFields() -> [(String, String)] {
        guard timelapse.isRunning else { return [] }
        return timelapse.statusFields()
    }
}
