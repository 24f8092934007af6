import Console
import Hardware

/// `save` and `reset`: the last manual settings, kept in the state directory (settings.json).
///
/// At start the settings are the defaults, then the config file, then what `save` stored last.
/// `reset` goes back to defaults + config file and forgets what was saved.
extension Supervisor {
    func registerPersistenceCommands() {
        commands.add(Command("save", summary: "keep the current settings across restarts",
                             detail: ["Writes settings.json in the state directory atomically."]) { context, _ in
            context.supervisor.saveSettings()
        })
        commands.add(Command("reset", summary: "back to the defaults and the config file; forget saved settings") { context, _ in
            context.supervisor.resetSettings()
        })
    }

    func saveSettings() -> Reply {
        guard let store = services.state else { return .err(.unsupported, "no state directory; start with --state DIR") }
        let changed = settings.filter { baseSettings[$0.key] != $0.value }
        do {
            try store.save(changed, as: StateStore.File.settings)
            return .ok([("saved", String(changed.count))])
        } catch {
            return .err(.device, "save: \(error)")
        }
    }

    func resetSettings() -> Reply {
        let proposed = baseSettings
        let changedKeys = Set(settings.filter { proposed[$0.key] != $0.value }.map(\.key))
        do throws(ConsoleError) {
            try applyToCamera(changedKeys: changedKeys, settings: proposed)
        } catch {
            return .error(error)
        }
        settings = proposed
        applyButtonSettings()
        if let store = services.state {
            do { try store.reset(StateStore.File.settings) } catch { return .err(.device, "reset: \(error)") }
        }
        return .ok([("reset", String(changedKeys.count))])
    }

    /// Loads what `save` stored (at start, before the camera opens), and the bracket presets.
    /// Bad entries are logged and skipped.
    func restoreSavedSettings() {
        restorePresets()
        guard let store = services.state else { return }
        let saved: [String: String]?
        do { saved = try store.load([String: String].self, from: StateStore.File.settings) }
        catch { log.warning("saved settings ignored: \(error)"); return }
        for (key, value) in (saved ?? [:]).sorted(by: { $0.key < $1.key }) {
            do throws(ConsoleError) {
                let valid = try SettingsSchema.validate(key: key, value: value)
                if settingsBeforeRestore[key] == nil { settingsBeforeRestore[key] = settings[key] }
                settings[key] = valid
            } catch { log.warning("saved setting \(key) ignored: \(error.message)") }
        }
    }

    /// Puts back the values the saved settings replaced (the config file's, or the defaults), after
    /// the camera refused them (another camera than the one they were saved with); returns the keys.
    func revertSavedSettings() -> [String] {
        let keys = settingsBeforeRestore.keys.sorted()
        for key in keys { settings[key] = settingsBeforeRestore[key] ?? SettingsSchema.definition(key)?.defaultValue }
        settingsBeforeRestore = [:]
        return keys
    }
}
