import Camera
import Console
import Fleet
import FleetConsole
import Supervisor

/// Joins the fleet client (module Fleet) and the supervisor, which do not know each other: the
/// `fleet` command's work is the client's; a shot's part is armed on the supervisor's capture
/// service, and the sender's report is written through the supervisor's captures' storage
/// (`SupervisorShotRig`, given to the client at its `init`).
public enum FleetShotWiring {
    public static func connect(_ fleet: FleetClient, to supervisor: Supervisor) {
        supervisor.fleetCommandHandler = { [weak fleet] arguments, session in
            fleet?.fleetCommand(arguments, session: session) ?? .err(.unsupported, "the fleet client has stopped")
        }
    }
}

/// The supervisor as the fleet client's shots see it. Weak: the client outlives no supervisor it
/// serves, and a stopped one refuses (`the rig is stopping`).
public final class SupervisorShotRig: ShotRig {
    private weak var supervisor: Supervisor?

    public init(_ supervisor: Supervisor) { self.supervisor = supervisor }

    public func armShot(_ order: ShotOrder, ended: @escaping (Reply) -> Void) throws(ConsoleError) -> [(String, String)] {
        guard let supervisor else { throw ConsoleError(.busy, "the rig is stopping") }
        let instant = ExposureInstant(wallClockNanoseconds: order.instantNanoseconds,
                                      realtimeMinusMonotonicNanoseconds: order.realtimeMinusMonotonicNanoseconds)
        return try supervisor.armShot(id: order.id, instant: instant, action: order.action, clock: order.clock,
                                      clockErrorMicroseconds: order.clockErrorMicroseconds, ended: ended)
    }

    public func cancelArmedShot(reason: String) {
        supervisor?.cancelShotWaitingForInstant(reason: reason)
    }

    public var syncedFrameGrid: SyncedFrameGrid? {
        supervisor?.syncedFrame.map { SyncedFrameGrid(frameStartWallClockNanoseconds: $0.startWallClockNanoseconds, frameNanoseconds: $0.frameNanoseconds) }
    }

    public func saveShotReport(_ bytes: [UInt8], name: String, folder: String?, done: @escaping (Result<String, ConsoleError>) -> Void) {
        guard let supervisor else { done(.failure(ConsoleError(.busy, "the rig is stopping"))); return }
        supervisor.saveShotReport(bytes, name: name, folder: folder, done: done)
    }
}
