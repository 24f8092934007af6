import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

/// A shot at a shared instant (`BracketEngine`'s `notBefore`): the first kept frame is the first
/// whose exposure starts at or after the instant, by the frame's own metadata; none before it.
@Suite struct ShotInstantTests {
    /// Runs `plan` with `notBefore` an instant `lead` after the latest frame's exposure start (plus
    /// a third of a frame, so that no frame starts exactly on it), on the manual clock.
    func shoot(_ plan: BracketPlan, libcamera: SimulatedLibcamera = .raspberryPi0_5, lead: Duration = .milliseconds(700))
        throws -> (log: BracketLog, instant: ExposureInstant, periodNanoseconds: Int64) {
        let rig = try Rig(libcamera: libcamera)
        rig.controller.requestsInFlight = 4
        try rig.controller.startStreaming()
        rig.loop.advance(by: .milliseconds(500))
        let latest = try #require(rig.controller.latestRequest)
        let period = try #require(rig.controller.observedFrameIntervalMicroseconds) * 1000
        // Without FrameWallClock the mapping is the arming's offset; an arbitrary one here.
        let offset: Int64 = latest.metadata[ControlName.frameWallClock]?.int64Value.map { $0 - latest.sensorTimestamp.nanoseconds }
            ?? 1_764_000_000_000_000_000
        let instant = ExposureInstant(wallClockNanoseconds: latest.sensorTimestamp.nanoseconds + offset + lead.nanoseconds + period / 3,
                                      realtimeMinusMonotonicNanoseconds: offset)
        let log = BracketLog()
        let engine = try BracketEngine(camera: rig.controller, plan: plan, notBefore: instant,
                                       onFrame: { log.frames.append($0) }, onFinish: { log.outcome = $0 })
        try engine.start()
        // Nothing is queued while the instant is far: the engine waits on the regular frames.
        #expect(engine.statistics.requestsQueued == 0)
        rig.loop.advance(by: lead + .seconds(3))
        return (log, instant, period)
    }

    @Test func anEVBracketsFirstFrameIsTheFirstExposedAtOrAfterTheInstant() throws {
        let (log, instant, period) = try shoot(try BracketPlan.evPreset(count: 3, stepEV: 1))
        guard case .complete(let stats)? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
        let starts = log.frames.map { instant.exposureStart(of: $0.request).wallClockNanoseconds }
        #expect(starts.allSatisfy { $0 >= instant.wallClockNanoseconds }, "\(starts.map { $0 - instant.wallClockNanoseconds })")
        let first = try #require(log.frames.first { $0.index == 0 })
        let offset = instant.exposureStart(of: first.request).wallClockNanoseconds - instant.wallClockNanoseconds
        #expect(offset >= 0 && offset < period, "first frame \(offset) ns after the instant; a frame is \(period) ns")
        #expect(instant.exposureStart(of: first.request).fromFrameWallClock)
        #expect(stats.framesBeforeInstant >= 1, "the lead-in frames before the instant are skipped")
        #expect(log.frames.map(\.index).sorted() == [0, 1, 2])
    }

    @Test func aSingleCaptureWithoutFrameWallClockMapsSensorTimestampToRealtime() throws {
        let (log, instant, period) = try shoot(.single, libcamera: .debian0_0_3)
        guard case .complete? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
        let frame = try #require(log.frames.first)
        let start = instant.exposureStart(of: frame.request)
        #expect(!start.fromFrameWallClock)
        let offset = start.wallClockNanoseconds - instant.wallClockNanoseconds
        #expect(offset >= 0 && offset < period, "\(offset) ns after the instant; a frame is \(period) ns")
        #expect(frame.request.sensorTimestamp >= instant.monotonic)
    }

    @Test func anInstantAlreadyCloseQueuesAtTheNextRegularFrame() throws {
        let (log, instant, period) = try shoot(.single, lead: .milliseconds(40))
        guard case .complete? = log.outcome else { Issue.record("not complete: \(String(describing: log.outcome))"); return }
        let frame = try #require(log.frames.first)
        let offset = instant.exposureStart(of: frame.request).wallClockNanoseconds - instant.wallClockNanoseconds
        // Too close to be reached by the first frame at or after it: later, never before.
        #expect(offset >= 0, "\(offset) ns; a frame is \(period) ns")
    }
}
