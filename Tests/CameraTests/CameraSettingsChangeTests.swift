import Hardware
import Testing
@testable import Camera

// `CameraController.apply(_:)`: a change of several settings is one transaction (issue 20), all of
// it or none of it, with the controller put back as it was when a part is refused.

/// The format whose maximum zoom is the smallest, and that maximum.
private func leastZoomingFormat(_ rig: Rig) throws -> (format: CameraFormat, maximumZoom: Double) {
    let least = rig.controller.formats.compactMap { f in f.maximumZoom.map { (f, $0) } }.min { $0.1 < $1.1 }
    let found = try #require(least, "no format reports a maximum zoom")
    try #require(rig.controller.maximumZoomFactor > found.1 + 0.5, "the active format zooms further than format \(found.0.index)")
    return found
}

private struct HookRefusal: Error {}

@Suite struct CameraSettingsChangeTests {
    @Test func aChangeAppliesEveryPartInOrder() throws {
        let rig = try Rig.streaming()
        try rig.controller.setZoom(2)
        var told: [Bool] = []
        let change = CameraSettingsChange(format: "1", zoomFactor: 1, exposureMode: .custom(durationMicroseconds: 8000, iso: 200),
                                          exposureBiasEV: 0.5, focusMode: .locked(lensPositionDioptres: 2),
                                          whiteBalance: .mode(.lockedGains(WhiteBalanceGains(red: 1.9, blue: 1.6))))
        // Zoom 1 is lower than the zoom in force: it goes before the format.
        try rig.controller.apply(change) { formatChanged in
            told.append(formatChanged)
            #expect(rig.controller.zoomFactor == 1, "the lower zoom went before the format")
        }
        #expect(told == [true])
        #expect(rig.controller.activeFormat.format.index == 1)
        #expect(rig.controller.exposureMode == .custom(durationMicroseconds: 8000, iso: 200))
        #expect(rig.controller.exposureBiasEV == 0.5)
        #expect(rig.controller.focusMode == .locked(lensPositionDioptres: 2))
        #expect(rig.controller.whiteBalanceMode == .lockedGains(WhiteBalanceGains(red: 1.9, blue: 1.6)))
        rig.loop.advance(by: .milliseconds(300))
        #expect(rig.controller.isStreaming && rig.controller.lastError == nil)
    }

    @Test func aZoomTheNewFormatCannotTakePutsTheFormatAndZoomBack() throws {
        let rig = try Rig.streaming()
        let least = try leastZoomingFormat(rig)
        let before = rig.controller.activeFormat
        // Above the zoom in force, so it goes after the format, whose maximum it exceeds.
        let change = CameraSettingsChange(format: String(least.format.index), zoomFactor: least.maximumZoom + 0.5)
        var told: [Bool] = []
        let error = #expect(throws: CameraError.self) { try rig.controller.apply(change) { told.append($0) } }
        #expect(error?.kind == .outOfRange, "\(String(describing: error))")
        #expect(told == [true], "the format went through before the zoom was refused")
        #expect(rig.controller.activeFormat == before, "the format went back")
        #expect(rig.controller.zoomFactor == 1, "the zoom is as it was")
        rig.loop.advance(by: .milliseconds(300))
        #expect(rig.controller.isStreaming && rig.controller.lastError == nil, "streaming again in the old format")
    }

    @Test func aRefusedFormatLeavesTheZoomAsItWas() throws {
        let rig = try Rig.streaming()
        let least = try leastZoomingFormat(rig)
        let before = rig.controller.activeFormat
        let zoom = least.maximumZoom + 0.5
        try rig.controller.setZoom(zoom)
        // Lower than the zoom in force, so it goes first; still beyond the new format's maximum.
        let change = CameraSettingsChange(format: String(least.format.index), zoomFactor: least.maximumZoom + 0.25)
        var hookRan = false
        let error = #expect(throws: CameraError.self) { try rig.controller.apply(change) { _ in hookRan = true } }
        #expect(error?.message.contains("set zoom 1 first") == true, "\(String(describing: error))")
        #expect(!hookRan, "a refused format runs nothing after it")
        #expect(rig.controller.zoomFactor == zoom, "the zoom that went first is undone")
        #expect(rig.controller.activeFormat == before)
    }

    @Test func anExposureErrorAfterAFormatChangeRestoresTheFormat() throws {
        let rig = try Rig.streaming()
        try rig.controller.setExposureBias(ev: -1)
        let before = rig.controller.activeFormat
        let controlsBefore = rig.controller.controlsForNextRequest(consumeTrigger: false)
        let change = CameraSettingsChange(format: "1", exposureMode: .custom(durationMicroseconds: 1_000_000_000, iso: 100),
                                          exposureBiasEV: 1)
        let error = #expect(throws: CameraError.self) { try rig.controller.apply(change) }
        #expect(error?.kind == .outOfRange && error?.message.contains("exposure: duration") == true, "\(String(describing: error))")
        #expect(rig.controller.activeFormat == before, "the format went back")
        #expect(rig.controller.exposureMode == .auto && rig.controller.exposureBiasEV == -1)
        #expect(rig.controller.controlsForNextRequest(consumeTrigger: false) == controlsBefore, "every request control as before")
    }

    @Test func aRefusalOfTheLastPartKeepsTheHeldExposureAndGainsExactly() throws {
        let rig = try Rig.streaming()
        try rig.controller.setExposure(.locked)
        try rig.controller.setWhiteBalance(.locked)
        let focusBefore = rig.controller.focusMode
        let controlsBefore = rig.controller.controlsForNextRequest(consumeTrigger: false)
        rig.loop.advance(by: .milliseconds(300))  // newer frames: a lock taken now could hold other values
        let change = CameraSettingsChange(exposureMode: .auto, exposureBiasEV: 1, focusMode: .continuous,
                                          whiteBalance: .mode(.lockedGains(WhiteBalanceGains(red: 100, blue: 1))))
        let error = #expect(throws: CameraError.self) { try rig.controller.apply(change) }
        #expect(error?.kind == .outOfRange && error?.message.contains("red gain") == true, "\(String(describing: error))")
        #expect(rig.controller.exposureMode == .locked && rig.controller.exposureBiasEV == 0)
        #expect(rig.controller.focusMode == focusBefore && rig.controller.whiteBalanceMode == .locked)
        #expect(rig.controller.controlsForNextRequest(consumeTrigger: false) == controlsBefore, "the held values are the ones before")
    }

    @Test func aRefusalByTheHookAfterTheFormatPutsTheFormatBack() throws {
        let rig = try Rig.streaming()
        let before = rig.controller.activeFormat
        #expect(throws: HookRefusal.self) {
            try rig.controller.apply(CameraSettingsChange(format: "1", zoomFactor: 1)) { _ in throw HookRefusal() }
        }
        #expect(rig.controller.activeFormat == before)
    }
}
