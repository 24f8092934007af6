import Camera
import Console
import Fleet
import FleetConsole
import Hardware
import Supervisor

/// Joins the fleet client (module Fleet) and the supervisor, which do not know each other, each
/// through the other's initialiser: the `fleet` command's work is the client's (`fleetCommands`,
/// given to the supervisor, which is made first); a shot's part is armed on the supervisor's
/// capture service, and the sender's report is written through the supervisor's captures'
/// storage (`SupervisorShotRig`, given to the client).
public enum FleetShotWiring {
    /// The supervisor's `fleetCommands`: the fleet client's, once `fleet` is attached (at the end
    /// of `TripodMain.prepare`, once the client is made; weak, read on the loop).
    public static func fleetCommands(_ fleet: LateBound<FleetClient>) -> FleetCommandHandler {
        { arguments, session in
            fleet.value?.fleetCommand(arguments, session: session) ?? .err(.unsupported, "the fleet client has stopped")
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
