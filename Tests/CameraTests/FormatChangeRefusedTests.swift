import Camera
import Hardware
import ManualLoop
import SimulatedHardware
import Testing

/// A format change the camera refuses at configure (busy: the viewfinder still holds a frame of the
/// old configuration) changes nothing: the format stays, and the camera streams again once the
/// frame is given back (issue 19: it used to stay stopped, reporting the new format).
@Test func aFormatChangeRefusedBusyKeepsTheFormatAndStreamsAgain() throws {
    let rig = try Rig()
    try rig.controller.startStreaming()
    rig.loop.advance(by: .milliseconds(200))
    let before = rig.controller.activeFormat
    rig.camera.pipeline.buffersHeldByApplication = 1  // the display thread is converting the last frame
    do {
        try rig.controller.selectFormat("1")
        Issue.record("a refused configure must throw")
    } catch let error as CameraError {
        #expect(error.kind == .notReady, "\(error)")
        #expect(error.message.contains("stays \(before.format.label)"), "\(error.message)")
    }
    #expect(rig.controller.activeFormat.format.label == before.format.label, "the reported format is still the one in force")
    rig.loop.advance(by: .milliseconds(100))
    #expect(!rig.controller.isStreaming, "still refused while the frame is held")
    rig.camera.pipeline.buffersHeldByApplication = 0  // the display gives it back
    let frames = rig.recordFrames()
    rig.loop.advance(by: .milliseconds(300))
    #expect(rig.controller.isStreaming)
    #expect(frames.states.count >= 5, "streaming goes on in the old format: \(frames.states.count)")
    #expect(rig.controller.lastError == nil)
    try rig.controller.selectFormat("1")
    #expect(rig.controller.activeFormat.format.label != before.format.label, "with the frame back, the change goes through")
}
