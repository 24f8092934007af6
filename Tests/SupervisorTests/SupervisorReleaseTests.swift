import Hardware
import ManualLoop
import TestSupport
import Testing
@testable import Supervisor

/// A stopped supervisor goes with its last user: no retain cycle (a service's callback holding the
/// supervisor, the device's handler holding the controller, a timer holding its device) keeps it,
/// its camera, its loop and their frame buffers alive (each scenario cell leaked hundreds of MB).
@Suite struct SupervisorReleaseTests {
    @Test func aStoppedSupervisorAndItsCameraAreReleased() throws {
        weak var supervisor: Supervisor?
        weak var controller: AnyObject?
        weak var device: AnyObject?
        weak var loop: ManualEventLoop?
        do {
            let board = try SimulatedBoardHarness()
            board.advance(.milliseconds(300))
            #expect(board.reply("sim motion handheld").hasPrefix("ok"))
            #expect(board.reply("bracket manual 1/60@100 1/60@400").hasPrefix("ok bracket=started"))
            #expect(ScenarioRun.waitForEnd(board)?.hasPrefix("event bracket.done") == true)
            supervisor = board.supervisor
            controller = board.supervisor.camera
            device = board.supervisor.camera?.device as AnyObject?
            loop = board.loop
            #expect(supervisor != nil && controller != nil && device != nil && loop != nil)
        }  // the harness stops the supervisor and lets go of it here
        #expect(supervisor == nil, "the stopped supervisor is still alive")
        #expect(controller == nil, "the camera controller is still alive")
        #expect(device == nil, "the camera device (and its frame pool) is still alive")
        #expect(loop == nil, "the loop (and the work queued on it) is still alive")
    }
}
