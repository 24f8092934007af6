import Camera
import Hardware
import ManualLoop
import SimulatedHardware
import Testing

/// The controller is the one scheduler of requests: brackets ask it to hold regular requests and
/// it decides (issue 20: the bracket engine used to set the controller's flag itself, so two
/// holders would undo each other and a stale engine could stop the stream's refill).
@Test func regularRequestsWaitUntilTheLastHoldIsReleased() throws {
    let rig = try Rig()
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(100))
    let first = rig.controller.holdRegularRequests()
    let second = rig.controller.holdRegularRequests()
    #expect(rig.controller.holdsRegularRequests)
    rig.loop.advance(by: .milliseconds(200))
    #expect(rig.camera.requestsWaiting == 0, "held: completed regular requests are not replaced")
    rig.controller.releaseRegularRequests(first)
    rig.controller.releaseRegularRequests(first)  // a second release of the same hold changes nothing
    #expect(rig.controller.holdsRegularRequests, "the other hold is still in force")
    rig.controller.releaseRegularRequests(second)
    #expect(!rig.controller.holdsRegularRequests)
    #expect(rig.camera.requestsWaiting > 0, "refilled when the last hold ends")
    let frames = rig.recordFrames()
    rig.loop.advance(by: .milliseconds(200))
    #expect(frames.states.count >= 5)
}

@Test func aRestartEndsEveryHoldAndAStaleReleaseIsIgnored() throws {
    let rig = try Rig()
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(100))
    let stale = rig.controller.holdRegularRequests()
    rig.controller.stopStreaming()
    try rig.controller.startStreaming()
    #expect(!rig.controller.holdsRegularRequests, "a restart ends the holds of the old run")
    let current = rig.controller.holdRegularRequests()
    rig.controller.releaseRegularRequests(stale)
    #expect(rig.controller.holdsRegularRequests, "the old run's hold does not release the new one")
    rig.controller.releaseRegularRequests(current)
    #expect(!rig.controller.holdsRegularRequests)
}
