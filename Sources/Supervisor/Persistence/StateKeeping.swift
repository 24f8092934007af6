import Settings

/// Where the state that outlives a restart (saved settings, bracket presets, the time-lapse, the
/// gyro bias) is written. Made once with the services (Composition.swift), from the state store
/// the supervisor was given.
enum StateKeeping {
    /// Nowhere: no state directory is usable. `save` says to start with --state DIR, presets are
    /// kept in memory only, and the time-lapse and the gyro bias are not kept.
    case noStateDirectory
    /// Into the state directory, off the loop (each write is two fsyncs).
    case stateDirectory(StateWriter)
}
