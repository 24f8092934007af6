import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

/// `fleet.sync` in the camera controller: the fixed rate, the refusals in words, SyncMode only once
/// frames come at that rate, and a camera without frame sync falling back.
@Suite struct ControllerFrameSyncTests {
    @Test func syncModeWaitsForFramesAtTheFixedRateThenRidesOnEveryRequest() throws {
        let rig = try Rig()
        try rig.controller.selectFormat("1280x720@120")
        try rig.controller.startStreaming()
        rig.loop.advance(by: .milliseconds(200))
        #expect(rig.controller.takeFrameSyncControls().isEmpty, "nothing is sent while sync is off")
        try rig.controller.setFrameSync(FrameSyncRequest(mode: .server, framesPerSecond: 30))
        // Frames still come at 120 fps: the server's estimate would start skewed, so SyncMode waits.
        #expect(rig.controller.latest?.frameDurationMicroseconds != 33_333)
        #expect(rig.controller.takeFrameSyncControls()[ControlName.syncMode] == nil)
        #expect(rig.controller.controlsForNextRequest()[ControlName.frameDurationLimits] == .int64Array([33_333, 33_333]))
        rig.loop.advance(by: .milliseconds(500))
        #expect(rig.controller.latest?.frameDurationMicroseconds == 33_333)
        rig.loop.advance(by: .milliseconds(300))
        // A new rate ends the session (off) until frames come at it, then starts another; each change
        // rides on a handful of requests, then stops (the IPA keeps the mode, and logs each one).
        let queuedBefore = rig.camera.queued.count
        try rig.controller.setFrameSync(FrameSyncRequest(mode: .server, framesPerSecond: 25))
        rig.loop.advance(by: .milliseconds(1500))
        let sentCount = rig.camera.queued.count - queuedBefore
        #expect(sentCount <= QueuedRequestLog.limit)
        let sent = rig.camera.queued.recentControls.suffix(sentCount)
        let modes = sent.compactMap { $0[ControlName.syncMode] }
        let repeats = FrameSyncState.repeats
        let offs = modes.prefix { $0 == .int32(0) }.count
        #expect((1...repeats).contains(offs), "off until frames come at 25 fps (at most \(repeats) requests): \(modes)")
        #expect(Array(modes.dropFirst(offs)) == Array(repeating: .int32(1), count: repeats), "\(modes)")
        #expect(sent.count > 2 * repeats + 10)
        #expect(rig.controller.latest?.frameDurationMicroseconds == 40_000)
        rig.loop.advance(by: .seconds(4))
        let status = rig.controller.frameSyncStatus
        #expect(status.active && status.ready && status.frameMicroseconds == 40_000, "\(status)")
        #expect((status.timerMicroseconds ?? 0) < 0)
        // Off reaches the camera.
        try rig.controller.setFrameSync(FrameSyncRequest(mode: .off, framesPerSecond: 30))
        #expect(rig.controller.takeFrameSyncControls()[ControlName.syncMode] == .int32(0))
        #expect(!rig.controller.frameSyncStatus.active)
    }

    @Test func aRateAtTheFormatsMaximumIsRefusedInWords() throws {
        let rig = try Rig()
        try rig.controller.selectFormat("1280x720@120")
        #expect {
            try rig.controller.setFrameSync(FrameSyncRequest(mode: .client, framesPerSecond: 120, rateSetting: "video.fps"))
        } throws: { error in
            let message = (error as? CameraError)?.message ?? ""
            return message.contains("below this format's maximum of 120 fps") && message.contains("set video.fps to 118 or lower")
        }
        #expect(rig.controller.frameSync.mode == .off, "a refusal changes nothing")
        try rig.controller.setFrameSync(FrameSyncRequest(mode: .client, framesPerSecond: 100))
        // A custom exposure longer than the fixed frame, and a format whose maximum is the rate, are refused too.
        #expect(throws: CameraError.self) {
            try rig.controller.apply(CameraSettingsChange(exposureMode: .custom(durationMicroseconds: 20_000, iso: 100)))
        }
        #expect(rig.controller.exposureMode == .auto)
        try rig.controller.apply(CameraSettingsChange(exposureMode: .custom(durationMicroseconds: 5_000, iso: 100)))
        #expect(throws: CameraError.self) { try rig.controller.apply(CameraSettingsChange(format: "1920x1080@56")) }
        #expect(rig.controller.activeFormat.format.label.hasPrefix("1280x720"), "the format is put back")
    }

    @Test func aCameraWithoutFrameSyncTakesTheSettingAndSaysItCannot() throws {
        let rig = try Rig(libcamera: .debian0_0_3)
        try rig.controller.startStreaming()
        try rig.controller.setFrameSync(FrameSyncRequest(mode: .client, framesPerSecond: 240))
        rig.loop.advance(by: .milliseconds(500))
        let status = rig.controller.frameSyncStatus
        #expect(!status.active && !status.ready && status.frameMicroseconds == nil)
        #expect(status.note?.contains("no frame sync") == true, "\(status)")
        let controls = rig.controller.controlsForNextRequest()
        #expect(controls[ControlName.syncMode] == nil)
        let limits = controls[ControlName.frameDurationLimits]?.doubleArray ?? []
        #expect(limits.count == 2 && limits[0] != limits[1], "the format's own range: \(limits)")
    }
}
