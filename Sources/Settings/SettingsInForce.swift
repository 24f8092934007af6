import Synchronization

/// The settings in force, readable from any thread: the store publishes each committed change here
/// (and nothing else does), so a service off the loop reads the value where it uses it instead of
/// keeping a copy that someone must push. The viewfinder's display thread and the remote's
/// connection threads read it; on the loop, read `SettingsStore.current`.
public final class SettingsInForce: Sendable {
    private let slot: Mutex<TypedSettings>

    init(_ settings: TypedSettings) { slot = Mutex(settings) }

    /// The settings as last committed.
    public var current: TypedSettings { slot.withLock { $0 } }

    /// One part of the settings in force, without copying the rest (`Mutex.withLock`).
    public func read<Part: Sendable>(_ part: (TypedSettings) -> Part) -> Part { slot.withLock { part($0) } }

    /// Called by the store only, after each commit.
    func publish(_ settings: TypedSettings) { slot.withLock { $0 = settings } }
}
