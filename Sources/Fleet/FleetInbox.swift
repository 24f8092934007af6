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
        var taken = Drained()
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

    /// Adds an event on `lane`; true when the caller must schedule a drain on the loop.
    public func push(_ item: Item, lane: Lane) -> Bool {
        state.withLock { s in
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
                    Self.dropOldestMessage(&s.taken.group)
                    s.taken.droppedGroup += 1
                case .group:
                    s.groupMessages += 1
                }
            }
            switch lane {
            case .commands: s.taken.commands.append(item)
            case .group: s.taken.group.append(item)
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
    public var waiting: (commands: Int, group: Int) { state.withLock { ($0.taken.commands.count, $0.taken.group.count) } }

    /// Takes the queued events, each lane in arrival order, and the counts of what was dropped: at
    /// most `commandLimit` of the commands lane (the oldest; the rest wait, and the caller drains
    /// again when it has room: no hop is asked for them meanwhile), and the whole group lane.
    public func drain(commandLimit: Int = .max) -> Drained {
        state.withLock { s in
            var taken = s.taken
            let kept = Array(taken.commands.dropFirst(max(0, commandLimit)))
            taken.commands.removeLast(kept.count)
            s.taken = Drained()
            s.taken.commands = kept
            s.commandMessages = kept.filter(Self.isMessage).count
            s.groupMessages = 0
            s.hopPending = !kept.isEmpty
            return taken
        }
    }
}
