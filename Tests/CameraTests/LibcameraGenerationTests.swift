import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

/// The controller uses what the camera offers: libcamera 0.5's exposure modes where the camera lists
/// them, AeEnable and the 0 placeholders where it does not (Debian's 0.0.3), and reads AE state and
/// the wall clock from whichever metadata the camera sends.
@Suite struct LibcameraGenerationTests {
    /// Every request's controls, as the camera received them.
    final class Requests: @unchecked Sendable { var controls: [ControlList] = [] }

    @Test(arguments: SimulatedLibcamera.allCases)
    func customExposureIsConfirmedOnEitherLibcamera(libcamera: SimulatedLibcamera) throws {
        let rig = try Rig(libcamera: libcamera)
        let log = rig.recordFrames()
        try rig.controller.startStreaming()
        rig.loop.advance(by: .milliseconds(200))
        try rig.controller.setExposure(.custom(durationMicroseconds: 8_000, iso: 200))
        let controls = rig.controller.controlsForNextRequest(consumeTrigger: false)
        #expect(controls[ControlName.aeEnable] == .bool(false))
        let listed = rig.controller.device.controlInfo
        #expect(controls[ControlName.exposureTimeMode] == (listed[ControlName.exposureTimeMode] != nil ? .int32(1) : nil))
        #expect(controls[ControlName.analogueGainMode] == (listed[ControlName.analogueGainMode] != nil ? .int32(1) : nil))
        rig.loop.advance(by: .milliseconds(500))
        let last = try #require(log.states.last)
        #expect(last.exposureDurationMicroseconds == 8_000 && last.iso == 200)
        // Both exposure and gain are manual: 0.5's AeState says AE is idle (0.0.3's AeLocked says
        // nothing useful about manual exposure).
        if libcamera == .raspberryPi0_5 { #expect(last.autoExposureState == .idle) }
    }

    @Test(arguments: SimulatedLibcamera.allCases)
    func autoExposureReturnsToAEOnEitherLibcamera(libcamera: SimulatedLibcamera) throws {
        let rig = try Rig(libcamera: libcamera)
        let log = rig.recordFrames()
        try rig.controller.startStreaming()
        try rig.controller.setExposure(.custom(durationMicroseconds: 200, iso: 100))
        rig.loop.advance(by: .milliseconds(500))
        #expect(log.states.last?.exposureDurationMicroseconds == 200)
        try rig.controller.setExposure(.auto)
        let controls = rig.controller.controlsForNextRequest(consumeTrigger: false)
        #expect(controls[ControlName.aeEnable] == .bool(true))
        // A listed mode control hands its value back to AE; without it, a 0 placeholder does.
        if rig.controller.device.controlInfo[ControlName.exposureTimeMode] != nil {
            #expect(controls[ControlName.exposureTimeMode] == .int32(0))
            #expect(controls[ControlName.exposureTime] == nil)
        } else {
            #expect(controls[ControlName.exposureTimeMode] == nil)
            #expect(controls[ControlName.exposureTime] == .int32(0))
        }
        rig.loop.advance(by: .seconds(2))
        let last = try #require(log.states.last)
        // AE ran again: the exposure moved away from the manual 200 µs and settled.
        #expect(last.exposureDurationMicroseconds != 200)
        #expect(last.autoExposureState == .converged)
    }

    /// Each mode control, and each 0 placeholder, follows that control's own presence in the
    /// camera's list: a camera may list one mode control and not the other.
    @Test func eachExposureModeControlIsSentOnlyWhereTheCameraListsIt() throws {
        for (hidden, kept) in [(ControlName.analogueGainMode, ControlName.exposureTimeMode),
                               (ControlName.exposureTimeMode, ControlName.analogueGainMode)] {
            let rig = try Rig(hiding: [hidden])
            let keptValue = kept == ControlName.exposureTimeMode ? ControlName.exposureTime : ControlName.analogueGain
            let hiddenValue = kept == ControlName.exposureTimeMode ? ControlName.analogueGain : ControlName.exposureTime
            let auto = rig.controller.controlsForNextRequest(consumeTrigger: false)
            #expect(auto[kept] == .int32(0), "kept \(kept)")
            #expect(auto[hidden] == nil, "hidden \(hidden)")
            #expect(auto[keptValue] == nil, "no placeholder for \(keptValue): \(kept) hands it back")
            let placeholder: ControlValue = hiddenValue == ControlName.exposureTime ? .int32(0) : .float(0)
            #expect(auto[hiddenValue] == placeholder, "placeholder for \(hiddenValue)")

            try rig.controller.setExposure(.custom(durationMicroseconds: 8_000, iso: 200))
            let custom = rig.controller.controlsForNextRequest(consumeTrigger: false)
            #expect(custom[kept] == .int32(1) && custom[hidden] == nil)
            #expect(custom[ControlName.exposureTime] == .int32(8_000) && custom[ControlName.analogueGain] == .float(2))
        }
    }

    /// Requests carry only what the camera lists now: a control the configured camera no longer
    /// lists is left out although it was listed when the camera was opened.
    @Test func requestsAreFilteredByTheCurrentControlList() throws {
        let rig = try Rig(hidingAfterConfigure: [ControlName.exposureValue])
        let camera = try #require(rig.fewerControls)
        #expect(rig.controller.device.controlInfo[ControlName.exposureValue] != nil)
        try rig.controller.startStreaming()
        rig.loop.advance(by: .milliseconds(200))
        #expect(rig.controller.controlsForNextRequest(consumeTrigger: false)[ControlName.exposureValue] != nil)
        #expect(camera.received.count > 2)
        #expect(camera.received.allSatisfy { $0[ControlName.exposureValue] == nil })
        #expect(camera.received.allSatisfy { $0[ControlName.aeEnable] != nil })
        #expect((rig.controller.latest?.sequence ?? 0) > 0)
    }

    @Test func frameWallClockIsReadWhereTheCameraSendsIt() throws {
        for libcamera in SimulatedLibcamera.allCases {
            let rig = try Rig(libcamera: libcamera)
            let log = rig.recordFrames()
            try rig.controller.startStreaming()
            rig.loop.advance(by: .milliseconds(300))
            let states = log.states.suffix(2)
            #expect(states.count == 2)
            guard libcamera == .raspberryPi0_5 else {
                #expect(states.allSatisfy { $0.wallClockNanoseconds == nil })
                continue
            }
            let now = Date().timeIntervalSince1970
            for state in states {
                let wall = try #require(state.wallClockNanoseconds)
                #expect(abs(Double(wall) / 1e9 - now) < 60)  // the realtime clock, not the monotonic one
            }
            // The same instants as the sensor timestamps, on the other clock.
            let pair = Array(states)
            #expect(pair[1].wallClockNanoseconds! - pair[0].wallClockNanoseconds!
                    == pair[1].sensorTimestamp.nanoseconds - pair[0].sensorTimestamp.nanoseconds)
        }
    }

    @Test func aeStateAndAeLockedDecodeToTheSameStates() {
        #expect(AutoExposureState(metadata: [ControlName.aeState: .int32(0)]) == .idle)
        #expect(AutoExposureState(metadata: [ControlName.aeState: .int32(1)]) == .searching)
        #expect(AutoExposureState(metadata: [ControlName.aeState: .int32(2)]) == .converged)
        #expect(AutoExposureState(metadata: [ControlName.aeState: .int32(3)]) == .converged)  // 0.0.3 draft Locked
        #expect(AutoExposureState(metadata: [ControlName.aeState: .int32(9)]) == nil)
        #expect(AutoExposureState(metadata: [ControlName.aeLocked: .bool(true)]) == .converged)
        #expect(AutoExposureState(metadata: [ControlName.aeLocked: .bool(false)]) == .searching)
        #expect(AutoExposureState(metadata: [:]) == nil)
    }
}

/// Waits sized in frames follow the camera's real pace, not only its format's.
@Test func theObservedFrameIntervalFollowsTheCameraNotTheFormat() throws {
    let rig = try Rig()
    final class Seen: @unchecked Sendable { var intervals: [Int64?] = []; var timestamps: [Int64] = [] }
    let seen = Seen()
    let controller = rig.controller
    rig.taps.onFrame = { _, state in
        seen.intervals.append(controller.observedFrameIntervalMicroseconds)
        seen.timestamps.append(state.sensorTimestamp.nanoseconds)
    }
    try controller.startStreaming()
    rig.loop.advance(by: .milliseconds(500))
    let n = seen.timestamps.count
    #expect(n > 10)
    #expect(seen.intervals.last == (seen.timestamps[n - 1] - seen.timestamps[n - 2]) / 1_000)
    // The camera stops for a second (as vimc does on a loaded host): the frame after it shows it.
    rig.camera.stall(for: .seconds(1))
    rig.loop.advance(by: .milliseconds(1_100))
    let afterStall = seen.intervals.dropFirst(n).compactMap { $0 }
    #expect((afterStall.max() ?? 0) > 900_000)
}
