import Hardware
import Lifecycle
import Settings
import SimulatedHardware
import Supervisor

/// The config file's lines for the simulated board, so each rig process of a simulated fleet
/// starts where it stands (docs/photogrammetry.md):
///
///     sim.pose = 1.6,0,0.9 lookat 0,0,0.35      # as the console's sim pose
///     sim.scene = object spin 60                # as the console's sim scene
///
/// They are not settings (`get` does not list them, `save` does not keep them): they set up the
/// simulation once, before the camera opens. On a board without a simulated camera they are an error.
enum SimulationConfig {
    static let poseKey = "sim.pose"
    static let sceneKey = "sim.scene"

    static func owns(_ key: String) -> Bool { key == poseKey || key == sceneKey }

    /// The value's canonical text, or an error saying what is wrong with it.
    static func validate(key: String, value: String) throws -> String {
        do throws(HardwareError) {
            if key == poseKey { return try SimulatedPose(parsing: value).text }
            return try SimulatedScene().parsed(value.split(separator: " ").map(String.init)).name
        } catch {
            throw ConfigSchemaError.invalidValue(key: key, reason: error.message)
        }
    }

    /// Applies the file's `sim.*` lines through the simulated board's hooks, the scene first (as
    /// one would type them; the focus distance is the scene's to derive, so either order works).
    static func apply(_ config: ConfigFile?, to hooks: SimulationHooks?) throws(StartupError) {
        let entries = (config?.entries ?? []).filter { owns($0.key) }.sorted { $0.key == sceneKey && $1.key != sceneKey }
        for entry in entries {
            let hook = entry.key == poseKey ? hooks?.setPose : hooks?.setScene
            guard let hook else {
                throw StartupError("\(config?.file ?? "config"):\(entry.line): \(entry.key) needs a simulated camera (board camera backend sim)")
            }
            do { _ = try hook(entry.value) } catch {
                throw StartupError("\(config?.file ?? "config"):\(entry.line): \(entry.key): \(error)")
            }
        }
    }
}
