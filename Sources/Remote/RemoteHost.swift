import Settings
import Transports

/// What the browser remote serves: the supervisor. Commands, `status` and `formats` go through its
/// console sessions (`ConsoleHost`, in JSON mode), so the web runs the console's one set of
/// operations; the settings table's current values are read here. Loop-confined: call on `loop`.
public protocol RemoteHost: ConsoleHost {
    /// The settings in force (`SettingsStore.current`).
    var settingsInForce: TypedSettings { get }
}
