/// Work in progress (a running bracket, a state write, a simulated press), counted by reason. A
/// stop waits until there is none: whoever owns the stop gives `onIdle`. Services get the tracker,
/// not the supervisor, so they mark their work without calling back into it. Loop-confined.
public final class WorkTracker {
    private var inProgress: [String: Int] = [:]
    /// Called on the loop each time the last piece of work ends.
    private let onIdle: () -> Void

    public init(onIdle: @escaping () -> Void = {}) { self.onIdle = onIdle }

    /// Marks work in progress; pair with `end`.
    public func begin(_ reason: String) { inProgress[reason, default: 0] += 1 }

    public func end(_ reason: String) {
        if let n = inProgress[reason] { inProgress[reason] = n > 1 ? n - 1 : nil }
        if inProgress.isEmpty { onIdle() }
    }

    public var isEmpty: Bool { inProgress.isEmpty }

    /// True while work of this kind is in progress.
    public func contains(_ reason: String) -> Bool { inProgress[reason] != nil }
}
