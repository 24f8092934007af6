import Fleet
import Hardware
import Logging
import Settings

/// The ids of the fleet's commands, on disk before each command runs, written in batches.
///
/// A command is admitted with its id and the work that carries it out. At most one write of the id
/// list (`StateWriter`: a temporary file, its fsync, a rename, the directory's fsync) is in flight:
/// every command admitted meanwhile waits for the next write, which covers them all. So a flood of
/// fresh ids costs one write per batch, not one per id, and the commands run in their order.
/// Bounded: beyond `maximumWaiting` commands waiting for the disk, `admit` refuses (the caller drops
/// the command; its id is not remembered, so a later delivery may still run it). Without a state directory the work runs at
/// once. Loop-confined.
final class CommandIDJournal {
    enum Admission: Equatable { case admitted, duplicate, full }

    /// Commands waiting for their ids to be on disk, at most.
    static let maximumWaiting = 256

    /// Where the ids are kept: on disk through a state writer, or in memory only (no state
    /// directory: the work runs at once, and a restart forgets the ids).
    private enum Keeping {
        case inMemory
        case onDisk(StateWriter)
    }

    private let seen: SeenCommandIDs
    private let keeping: Keeping
    /// Runs after each write's commands ran, when there is room again (the fleet client drains its inbox).
    private let roomFreed: () -> Void
    private let loop: any EventLoop
    private let log: Logger
    /// Admitted since the write in flight began: the next write covers them.
    private var waiting: [() -> Void] = []
    /// Covered by the write in flight (never empty while one is); they run when it ends.
    private var writing: [() -> Void] = []
    private var writeInFlight: Bool { !writing.isEmpty }
    /// Writes of the id list made (tests).
    private(set) var writes = 0

    init(capacity: Int, remembered: [String], writer: StateWriter?, loop: any EventLoop, log: Logger,
         roomFreed: @escaping () -> Void = {}) {
        seen = SeenCommandIDs(capacity: capacity, remembered: remembered)
        keeping = writer.map { .onDisk($0) } ?? .inMemory
        self.roomFreed = roomFreed
        self.loop = loop
        self.log = log
    }

    func contains(_ id: String) -> Bool { seen.contains(id) }

    /// How many more commands may be admitted now.
    var room: Int {
        guard case .onDisk = keeping else { return .max }
        return Self.maximumWaiting - waiting.count - writing.count
    }

    /// Remembers `id` and runs `work` once the id is on disk; `.duplicate` when it ran (or waits) already,
    /// `.full` when too many commands wait for the disk.
    func admit(_ id: String, then work: @escaping () -> Void) -> Admission {
        guard !seen.contains(id) else { return .duplicate }
        guard waiting.count + writing.count < Self.maximumWaiting else { return .full }
        seen.insert(id)
        guard case .onDisk = keeping else { work(); return .admitted }
        waiting.append(work)
        if !writeInFlight { writeBatch() }
        return .admitted
    }

    private func writeBatch() {
        guard case .onDisk(let writer) = keeping, !waiting.isEmpty else { return }
        writing = waiting
        waiting = []
        writes += 1
        let target = WeakLoopBound(self, loop: loop)
        writer.save(seen.remembered, as: StateStore.File.fleetCommandIDs) { error in
            target.value?.batchWritten(error)
        }
    }

    private func batchWritten(_ error: (any Error)?) {
        let batch = writing
        writing = []
        if let error { log.warning("fleet: cannot save the ids of commands run (\(error)); \(batch.count) commands could run again after a restart") }
        for work in batch { work() }
        writeBatch()
        roomFreed()
    }
}
