import Hardware

/// The hand-over of libmosquitto's events from its network thread to the supervisor's event loop.
///
/// `push` never blocks on the loop: it appends under a lock and asks for one loop hop only when the
/// inbox was empty (as `EdgeInbox` does for button edges). Two lanes, each bounded on its own, so
/// that the group's traffic (every rig's state, status and replies) can never crowd out the
/// commands: `drain` hands the commands first. Beyond a lane's capacity its oldest message is
/// dropped and counted (a flood must not grow memory, and what comes after a flood is what still
/// matters: a `status` sent after it is kept); a group message whose payload is larger than
/// `maximumGroupPayloadBytes` is dropped and counted at once; connection events are always kept.
public final class FleetInbox: Sendable {
    /// An event, tagged with the connection it came from (a reconfigured client's stale events are ignored).
    public struct Item: Sendable, Equatable {
        public var connection: Int
        public var event: MosquittoEvent
        public init(connection: Int, event: MosquittoEvent) { self.connection = connection; self.event = event }
    }

    /// Which queue a message waits in: commands (and connection events, and cancels), or the group's view.
    public enum Lane: Sendable { case commands, group }

    /// What one drain hands over, and what was dropped since the last one.
    public struct Drained: Sendable {
        public var commands: [Item] = []
        public var group: [Item] = []
        public var droppedCommands = 0
        public var droppedGroup = 0
        public var droppedOversize = 0
    }

    private struct State: Sendable {
        /// The commands lane and the counts (the group lane is `group`).
        var taken = Drained()
        /// The group lane, oldest first, messages only. Its oldest goes by emptying its slot and
        /// moving `groupHead` on (a flood costs no shifting of thousands of messages per message on
        /// libmosquitto's thread); the emptied slots are cut at the drain, or once they are as many
        /// as the lane holds.
        var group: [Item?] = []
        var groupHead = 0
        var hopPending = false
        /// Messages (not connection events) waiting in each lane.
        var commandMessages = 0
        var groupMessages = 0
    }
    public let commandCapacity: Int
    public let groupCapacity: Int
    public let maximumGroupPayloadBytes: Int
    private let state = LockedValue(State())

    public init(commandCapacity: Int, groupCapacity: Int, maximumGroupPayloadBytes: Int) {
        self.commandCapacity = max(2, commandCapacity)
        self.groupCapacity = max(2, groupCapacity)
        self.maximumGroupPayloadBytes = maximumGroupPayloadBytes
    }

    /// Adds an event on `lane` (connection events always on `.commands`); true when the caller must
    /// schedule a drain on the loop.
    public func push(_ item: Item, lane: Lane) -> Bool {
        state.withLock { s in
            var lane = lane
            if case .message(_, let payload, _) = item.event {
                switch lane {
                case .commands where s.commandMessages >= commandCapacity:
                    Self.dropOldestMessage(&s.taken.commands)
                    s.taken.droppedCommands += 1
                case .commands:
                    s.commandMessages += 1
                case .group where payload.count > maximumGroupPayloadBytes:
                    s.taken.droppedOversize += 1
                    return false
                case .group where s.groupMessages >= groupCapacity:
                    s.group[s.groupHead] = nil
                    s.groupHead += 1
                    if s.groupHead >= groupCapacity { s.group.removeFirst(s.groupHead); s.groupHead = 0 }
                    s.taken.droppedGroup += 1
                case .group:
                    s.groupMessages += 1
                }
            } else {
                lane = .commands
            }
            switch lane {
            case .commands: s.taken.commands.append(item)
            case .group: s.group.append(item)
            }
            defer { s.hopPending = true }
            return !s.hopPending
        }
    }

    /// Removes the oldest message of `items` (connection events stay).
    private static func dropOldestMessage(_ items: inout [Item]) {
        if let oldest = items.firstIndex(where: isMessage) { items.remove(at: oldest) }
    }

    private static func isMessage(_ item: Item) -> Bool {
        if case .message = item.event { return true } else { return false }
    }

    /// How many events wait in each lane now (tests: what reached the inbox before the loop ran).
    public var waiting: (commands: Int, group: Int) { state.withLock { ($0.taken.commands.count, $0.group.count - $0.groupHead) } }

    /// Takes the queued events, each lane in arrival order, and the counts of what was dropped: at
    /// most `commandLimit` of the commands lane (the oldest; the rest wait, and the caller drains
    /// again when it has room: no hop is asked for them meanwhile), and the whole group lane.
    public func drain(commandLimit: Int = .max) -> Drained {
        state.withLock { s in
            var taken = s.taken
            let kept = Array(taken.commands.dropFirst(max(0, commandLimit)))
            taken.commands.removeLast(kept.count)
            taken.group = s.group[s.groupHead...].compactMap { $0 }
            s.taken = Drained()
            s.taken.commands = kept
            s.commandMessages = kept.filter(Self.isMessage).count
            s.group = []
            s.groupHead = 0
            s.groupMessages = 0
            s.hopPending = !kept.isEmpty
            return taken
        }
    }
}
