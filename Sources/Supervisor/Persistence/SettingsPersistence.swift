import Console
import Hardware
import Settings

/// `save` and `reset`: the last manual settings, kept in the state directory (settings.json).
///
/// At start the settings are the defaults, then the config file, then what `save` stored last.
/// `reset` goes back to defaults + config file and forgets what was saved.
extension Supervisor {
    func registerPersistenceCommands() {
        commands.add(Command("save", summary: "keep the current settings across restarts",
                             detail: ["Writes settings.json in the state directory atomically."]) { context, _ in
            context.supervisor.saveSettings(&context)
        })
        commands.add(Command("reset", summary: "back to the defaults and the config file; forget saved settings") { context, _ in
            context.supervisor.resetSettings(&context)
        })
    }

    /// Writes the settings that differ from defaults + config file, off the loop; answers once written.
    func saveSettings(_ context: inout CommandContext) -> Reply {
        guard case .stateDirectory(let writer) = stateKeeping else { return .err(.unsupported, "no state directory; start with --state DIR") }
        let changed = settings.changedFromBase
        let reply = context.answerLater()
        beginWork("save")
        writer.save(changed, as: StateStore.File.settings) { error in
            reply.send(error.map { .err(.device, "save: \($0)") } ?? .ok([("saved", String(changed.count))]))
            reply.target.value.0.endWork("save")
        }
        return .ok([])
    }

    func resetSettings(_ context: inout CommandContext) -> Reply {
        // One commit: every service that follows a setting (camera, recorder, viewfinder, button) hears of it.
        let change: SettingsChange
        do throws(ConsoleError) { change = try settings.reset(requestedBy: context.origin) } catch { return .error(error) }
        let done: Reply = .ok([("reset", String(change.keys.count))])
        guard case .stateDirectory(let writer) = stateKeeping else { return done }
        let reply = context.answerLater()
        beginWork("save")
        writer.reset(StateStore.File.settings) { error in
            reply.send(error.map { .err(.device, "reset: \($0)") } ?? done)
            reply.target.value.0.endWork("save")
        }
        return done
    }

    /// Loads what `save` stored (at start, before the camera opens), and the bracket presets.
    /// Bad entries are logged and skipped.
    func restoreSavedSettings() {
        restorePresets()
        guard let store = services.state else { return }
        let saved: [String: String]?
        do { saved = try store.load([String: String].self, from: StateStore.File.settings) }
        catch { log.warning("saved settings ignored: \(error)"); return }
        for skipped in settings.restore(saved: saved ?? [:]) {
            log.warning("saved setting \(skipped.key) ignored: \(skipped.reason)")
        }
    }
}
