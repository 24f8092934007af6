/// The ids of the commands already carried out, so that a command delivered twice (QoS 1 after a
/// reconnect, a restart with a persistent session, a sender's retry) runs once.
///
/// Bounded: the oldest ids are forgotten beyond `capacity`. `CommandIDJournal` persists the list
/// (`StateStore.File.fleetCommandIDs`, in batches, before the commands run) and hands it back at the next start. Loop-confined.
final class SeenCommandIDs {
    let capacity: Int
    private var order: [String] = []
    private var members: Set<String> = []

    /// Starts from the ids a previous run persisted (oldest first).
    init(capacity: Int, remembered: [String] = []) {
        self.capacity = capacity
        for id in remembered.suffix(capacity) where !members.contains(id) { order.append(id); members.insert(id) }
    }

    func contains(_ id: String) -> Bool { members.contains(id) }

    /// Every id remembered, oldest first: what to persist.
    var remembered: [String] { order }

    /// Remembers `id`, forgetting the oldest beyond `capacity` (`remembered` is what to persist).
    func insert(_ id: String) {
        guard !members.contains(id) else { return }
        order.append(id)
        members.insert(id)
        if order.count > capacity {
            for old in order.prefix(order.count - capacity) { members.remove(old) }
            order.removeFirst(order.count - capacity)
        }
    }
}
