import Testing
import TestSupport
@testable import Supervisor

/// What the supervisor says about stabilization when the camera starts (pinned before the
/// stabilization service took its event handler in its initialiser).
@Suite struct StabilizationStartTests {
    /// The camera's first format is the service's starting point, not a change: lens stabilization
    /// becomes supported with it (the sim board's IMU runs, imx708's optics are known), and no
    /// `stabilization.*` event is broadcast (nor logged) for it.
    @Test func theFirstFormatAtStartIsNoEvent() throws {
        let board = try SimulatedBoardHarness()
        let supported = board.loop.perform { board.supervisor.stabilization?.lens.supported }
        #expect(supported == true, "the sim board's lens stabilization should be supported from the start")
        #expect(!board.logLines.contains { $0.contains("stabilization.") }, "\(board.logLines.filter { $0.contains("stabilization.") })")
        #expect(!board.output.lines.contains { $0.contains("stabilization.") })
    }
}
