import Console

/// What kind of write proposed a change: participants and observers may read it (a forced off is
/// not applied again). Who asked, for a console line, is `SettingsChange.requestedBy`.
public enum SettingsOrigin: String, Sendable {
    case console, configFile, saved, reset, revert, startup, startupFallback, halfPress, grayWorld, forcedOff
}

/// One committed (or proposed) change: the settings before and after, and the keys it touches.
/// A key can be touched without its value changing (`set focus.mode auto` again restarts a scan; a
/// new camera gets every setting).
public struct SettingsChange: Sendable {
    public let old: TypedSettings
    public let new: TypedSettings
    public let keys: Set<String>
    public let origin: SettingsOrigin
    /// The origin of the console line that asked for the change; nil when the rig itself made it
    /// (the config file, saved settings, start-up, the button, a device's fallback).
    public let requestedBy: CommandOrigin?

    public init(old: TypedSettings, new: TypedSettings, keys: Set<String>, origin: SettingsOrigin, requestedBy: CommandOrigin? = nil) {
        self.old = old; self.new = new; self.keys = keys; self.origin = origin; self.requestedBy = requestedBy
    }

    /// True when the change touches `setting`.
    public func touches<V>(_ setting: Setting<V>) -> Bool { keys.contains(setting.key) }
    /// True when the change touches any of `settings`.
    public func touches(any settings: [AnySetting]) -> Bool { settings.contains { keys.contains($0.key) } }

    /// The same keys going back from `new` to `old`: what puts a participant back.
    public var reversed: SettingsChange { SettingsChange(old: new, new: old, keys: keys, origin: origin, requestedBy: requestedBy) }

    /// The touched keys with their new canonical text, in table order (the `set` reply).
    public var fields: [(String, String)] {
        SettingsTable.all.filter { keys.contains($0.key) }.map { ($0.key, $0.text(in: new)) }
    }
}

/// The one owner of the settings in force, and the one path by which they change:
/// propose → validate → apply as one transaction → store → notify.
///
/// - Text is parsed at the edge (`proposal(key:text:)`); typed edits (`update`) skip the text.
/// - A change a console line asked for is first judged by the origin policy (`OriginPolicy`):
///   a key its origin may not change refuses the whole change before any participant sees it.
/// - Participants apply a change in the order given at init (`Followers`). When one refuses, those before it
///   get the reversed change (in reverse order), nothing is stored, and the refusal is thrown.
///   After a refusal each participant's `inForce` hook may say what the device kept instead
///   (a format the camera could not put back); that is stored and notified.
/// - Observers learn of each committed change once, with the typed old and new values.
///
/// Loop-confined, like the supervisor.
public final class SettingsStore {
    /// A service that takes part in the transaction: it applies the change, or refuses it.
    public struct Participant {
        public let name: String
        public let apply: (SettingsChange) throws(ConsoleError) -> Void
        public let inForce: ((inout TypedSettings) -> Void)?

        public init(name: String, apply: @escaping (SettingsChange) throws(ConsoleError) -> Void,
                    inForce: ((inout TypedSettings) -> Void)? = nil) {
            self.name = name; self.apply = apply; self.inForce = inForce
        }
    }

    /// A service that follows committed changes (it cannot refuse them).
    public typealias Observer = (SettingsChange) -> Void

    /// Who takes part in and follows the settings, given when the store is made.
    public struct Followers {
        /// Apply each change in this order; one refusing puts back those before it.
        public var participants: [Participant]
        /// Learn of each committed change, in this order.
        public var observers: [Observer]

        public init(participants: [Participant] = [], observers: [Observer] = []) {
            self.participants = participants; self.observers = observers
        }

        /// `self`'s participants and observers, then `later`'s.
        public func followed(by later: Followers) -> Followers {
            Followers(participants: participants + later.participants, observers: observers + later.observers)
        }
    }

    /// The settings in force (on the loop); other threads read `inForce`.
    public private(set) var current: TypedSettings {
        didSet { inForce.publish(current) }
    }
    /// The settings in force for other threads: published here after each commit, read-only there.
    public let inForce: SettingsInForce
    /// Defaults, then the config file: where `reset` returns and what `save` compares against.
    public private(set) var base: TypedSettings
    /// The values the saved settings replaced at start (config file or defaults), by key.
    private var beforeRestore: [String: TypedSettings] = [:]
    private let participants: [Participant]
    private let observers: [Observer]

    /// `followers`: every participant and observer, for the store's life (none joins later).
    public init(base: TypedSettings = .defaults, followers: Followers = Followers()) {
        self.base = base
        self.current = base
        self.inForce = SettingsInForce(base)
        self.participants = followers.participants
        self.observers = followers.observers
    }

    // MARK: Propose and validate (the edge)

    /// The settings with `key` set from `text`, plus the mode it selects; validated, not applied.
    public func proposal(key: String, text: String) throws(ConsoleError) -> (settings: TypedSettings, keys: Set<String>) {
        let setting = try SettingsTable.lookUp(key)
        var proposed = current
        try setting.set(text, in: &proposed)
        var keys: Set<String> = [key]
        if let implied = setting.selects, implied.apply(&proposed) { keys.insert(implied.key) }
        return (proposed, keys)
    }

    // MARK: Commit

    /// Console `set` (and the config file's lines): validates, commits, and returns the touched
    /// keys' text. `requestedBy`: the line's origin (nil: the rig's own config file).
    @discardableResult
    public func set(_ key: String, _ text: String, origin: SettingsOrigin = .console, requestedBy: CommandOrigin? = nil) throws(ConsoleError) -> SettingsChange {
        let (proposed, keys) = try proposal(key: key, text: text)
        return try commit(proposed, keys: keys, origin: origin, requestedBy: requestedBy)
    }

    /// A typed edit of the settings in force; touches the keys whose values change.
    @discardableResult
    public func update(origin: SettingsOrigin, requestedBy: CommandOrigin? = nil, _ edit: (inout TypedSettings) -> Void) throws(ConsoleError) -> SettingsChange {
        var proposed = current
        edit(&proposed)
        return try commit(proposed, keys: SettingsTable.keys(differingBetween: current, and: proposed), origin: origin, requestedBy: requestedBy)
    }

    /// Applies the settings in force again for `keys` (a new camera), through the same transaction.
    public func reapply(keys: Set<String>, origin: SettingsOrigin = .startup) throws(ConsoleError) {
        try commit(current, keys: keys, origin: origin)
    }

    /// The one commit: the origin's policy, then apply (all participants or none), store, notify.
    @discardableResult
    public func commit(_ proposed: TypedSettings, keys: Set<String>, origin: SettingsOrigin,
                       requestedBy: CommandOrigin? = nil) throws(ConsoleError) -> SettingsChange {
        let change = SettingsChange(old: current, new: proposed, keys: keys, origin: origin, requestedBy: requestedBy)
        guard !keys.isEmpty else { return change }
        try OriginPolicy.check(change)
        var applied: [Participant] = []
        do throws(ConsoleError) {
            for participant in participants {
                try participant.apply(change)
                applied.append(participant)
            }
        } catch {
            for participant in applied.reversed() { try? participant.apply(change.reversed) }
            settleAfterRefusal()
            throw error
        }
        current = proposed
        for observer in observers { observer(change) }
        return change
    }

    /// After a refusal: what the devices kept instead of the settings in force is stored.
    private func settleAfterRefusal() {
        var settled = current
        for participant in participants { participant.inForce?(&settled) }
        let keys = SettingsTable.keys(differingBetween: current, and: settled)
        guard !keys.isEmpty else { return }
        let change = SettingsChange(old: current, new: settled, keys: keys, origin: .revert)
        current = settled
        for observer in observers { observer(change) }
    }

    // MARK: Base, saved settings, reset

    /// The settings in force (defaults, then the config file, committed through the participants)
    /// become the base: where `reset` returns and what `save` compares with. Once, at start.
    public func adoptCurrentAsBase() {
        base = current
    }

    /// Start-up: the saved settings (`save`), each validated and committed on its own; a bad entry
    /// is returned with its reason and skipped. Remembers what each replaced, for `revertRestored`.
    public func restore(saved: [String: String]) -> [(key: String, reason: String)] {
        var skipped: [(String, String)] = []
        for (key, text) in saved.sorted(by: { $0.key < $1.key }) {
            do throws(ConsoleError) {
                let before = current
                let (proposed, keys) = try proposal(key: key, text: text)
                try commit(proposed, keys: keys, origin: .saved)
                for key in keys where beforeRestore[key] == nil { beforeRestore[key] = before }
            } catch { skipped.append((key, error.message)) }
        }
        return skipped
    }

    /// True when saved settings replaced anything at start.
    public var hasRestored: Bool { !beforeRestore.isEmpty }

    /// Puts back what the saved settings replaced (the camera refused them: saved with another
    /// camera); returns the keys.
    public func revertRestored() throws(ConsoleError) -> [String] {
        let keys = beforeRestore.keys.sorted()
        var proposed = current
        for key in keys {
            guard let setting = SettingsTable.setting(key), let before = beforeRestore[key] else { continue }
            setting.copy(from: before, to: &proposed)
        }
        beforeRestore = [:]
        try commit(proposed, keys: Set(keys), origin: .revert)
        return keys
    }

    /// `reset`: back to the base; returns the change (its keys are those that differed). A key
    /// the line's origin may not change refuses the whole reset.
    @discardableResult
    public func reset(requestedBy: CommandOrigin) throws(ConsoleError) -> SettingsChange {
        try commit(base, keys: SettingsTable.keys(differingBetween: current, and: base), origin: .reset, requestedBy: requestedBy)
    }

    /// The keys whose values differ from the base, as text: what `save` writes.
    public var changedFromBase: [String: String] {
        let keys = SettingsTable.keys(differingBetween: current, and: base)
        return SettingsTable.texts(current).filter { keys.contains($0.key) }
    }
}
