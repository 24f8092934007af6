import Camera
import Console
import Fleet
import FleetConsole
import Supervisor

/// Joins the fleet client (module Fleet) and the supervisor, which do not know each other: the
/// `fleet` command's work is the client's; a shot's part is armed on the supervisor's capture
/// service, and the sender's report is written through the supervisor's captures' storage.
public enum FleetShotWiring {
    public static func connect(_ fleet: FleetClient, to supervisor: Supervisor) {
        supervisor.fleetCommandHandler = { [weak fleet] arguments, session in
            fleet?.fleetCommand(arguments, session: session) ?? .err(.unsupported, "the fleet client has stopped")
        }
        fleet.armShot = { [weak supervisor] order, ended throws(ConsoleError) in
            guard let supervisor else { throw ConsoleError(.busy, "the rig is stopping") }
            let instant = ExposureInstant(wallClockNanoseconds: order.instantNanoseconds,
                                          realtimeMinusMonotonicNanoseconds: order.realtimeMinusMonotonicNanoseconds)
            return try supervisor.armShot(id: order.id, instant: instant, action: order.action, clock: order.clock,
                                          clockErrorMicroseconds: order.clockErrorMicroseconds, ended: ended)
        }
        fleet.cancelArmedShot = { [weak supervisor] reason in
            supervisor?.cancelShotWaitingForInstant(reason: reason)
        }
        fleet.syncedFrameGrid = { [weak supervisor] in
            supervisor?.syncedFrame.map { SyncedFrameGrid(frameStartWallClockNanoseconds: $0.startWallClockNanoseconds, frameNanoseconds: $0.frameNanoseconds) }
        }
        fleet.saveShotReport = { [weak supervisor] bytes, name, folder, done in
            guard let supervisor else { done(.failure(ConsoleError(.busy, "the rig is stopping"))); return }
            supervisor.saveShotReport(bytes, name: name, folder: folder, done: done)
        }
    }
}
