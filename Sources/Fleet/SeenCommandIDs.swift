import Settings

/// The ids of the commands already carried out, so that a command delivered twice (QoS 1 after a
/// reconnect, a restart with a persistent session, a sender's retry) runs once.
///
/// Bounded: the oldest ids are forgotten beyond `capacity`. Persisted in the state directory
/// (`StateStore.File.fleetCommandIDs`) before the command runs, so a restart remembers them; the
/// write is atomic (StateStore). Without a state directory it remembers for this run only.
/// Loop-confined.
final class SeenCommandIDs {
    let capacity: Int
    private var order: [String] = []
    private var members: Set<String> = []
    private let state: StateStore?

    /// Loads the ids a previous run saved; an unreadable file is reported and starts empty.
    init(capacity: Int, state: StateStore?, warn: (String) -> Void) {
        self.capacity = capacity
        self.state = state
        do {
            if let saved = try state?.load([String].self, from: StateStore.File.fleetCommandIDs) {
                for id in saved.suffix(capacity) where !members.contains(id) { order.append(id); members.insert(id) }
            }
        } catch { warn("\(error); ids of commands already run are forgotten") }
    }

    func contains(_ id: String) -> Bool { members.contains(id) }

    /// Remembers `id` and saves the set; an error means it may run again after a restart.
    func insert(_ id: String) throws {
        guard !members.contains(id) else { return }
        order.append(id)
        members.insert(id)
        if order.count > capacity {
            for old in order.prefix(order.count - capacity) { members.remove(old) }
            order.removeFirst(order.count - capacity)
        }
        try state?.save(order, as: StateStore.File.fleetCommandIDs)
    }
}
