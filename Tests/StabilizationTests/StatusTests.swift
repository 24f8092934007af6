import Boards
import Camera
import Foundation
import Hardware
import ManualLoop
import Motion
import SimulatedHardware
import Testing
@testable import Stabilization

/// A rig streaming 1920×1080 with a custom exposure, ready for brackets.
func streamingRig(exposureMicroseconds: Int = 33_333, profile: String = "still", amplitude: Double? = nil) throws -> Rig {
    let rig = try Rig(format: "1920x1080")
    rig.controller.requestsInFlight = 1
    try rig.controller.setExposure(.custom(durationMicroseconds: exposureMicroseconds, iso: 100))
    try rig.controller.startStreaming()
    try rig.move(profile, amplitude: amplitude)
    rig.loop.advance(by: .milliseconds(500))
    return rig
}

func bracket(_ rig: Rig, gate: any BracketFrameGate, microseconds: [Int]) -> [KeptFrame] {
    let harness = BracketHarness(rig: rig, gate: gate, exposures: microseconds.map { .microseconds(Int64($0)) })
    harness.run()
    return harness.kept
}

/// Body-to-world orientation of the truth at `time` (R = Ry(yaw)·Rx(pitch)·Rz(roll)).
func truthOrientation(_ rig: Rig, at time: MonotonicTime) -> Quaternion {
    let a = rig.imu.truth.profile.angles(at: time)
    return Quaternion(axis: Vector3(0, 1, 0), angle: a.yaw) * Quaternion(axis: Vector3(1, 0, 0), angle: a.pitch)
        * Quaternion(axis: Vector3(0, 0, 1), angle: a.roll)
}

@Suite("Per-frame status")
struct StatusTests {
    @Test("Off: lens stabilization not enabled; blur is still measured for the sidecar")
    func off() throws {
        let rig = try streamingRig(profile: "handheld")
        let kept = bracket(rig, gate: rig.stabilization.makeGate(kind: .bracket), microseconds: [10_000, 33_333])
        #expect(kept.map(\.verdict.status) == [.off, .off])
        #expect(kept.allSatisfy { $0.verdict.measuredBlurPixels != nil && $0.attempts == 1 })
    }

    @Test("Active: enabled on a tripod; alignment is the identity for the first frame")
    func active() throws {
        let rig = try streamingRig()
        try rig.stabilization.setLensEnabled(true)
        let gate = rig.stabilization.makeGate(kind: .bracket)
        let kept = bracket(rig, gate: gate, microseconds: [8_000, 16_000, 33_333])
        #expect(kept.map(\.verdict.status) == [.active, .active, .active])
        #expect(kept[0].verdict.alignment == [1, 0, 0, 0])
        #expect(gate.retakesRequested == 0 && gate.framesThatWaited == 0)
    }

    @Test("OutOfRange: walking motion beyond K retakes, and an exposure over the limit (no retakes)")
    func outOfRange() throws {
        let rig = try streamingRig(exposureMicroseconds: 66_666, profile: "walking")
        try rig.stabilization.setLensEnabled(true)
        let gate = rig.stabilization.makeGate(kind: .bracket)
        let kept = bracket(rig, gate: gate, microseconds: [66_666])
        #expect(kept.map(\.verdict.status) == [.outOfRange])
        #expect(kept[0].attempts == 1 + gate.thresholds.retakeLimit)
        #expect((kept[0].verdict.measuredBlurPixels ?? 0) > gate.thresholds.blurThresholdPixels)

        let tripod = try streamingRig(exposureMicroseconds: 1_200_000)
        try tripod.stabilization.setLensEnabled(true)
        let long = tripod.stabilization.makeGate(kind: .bracket)
        let frames = bracket(tripod, gate: long, microseconds: [1_200_000])
        #expect(frames.map(\.verdict.status) == [.outOfRange])
        #expect(frames[0].attempts == 1 && long.framesThatWaited == 0)
    }

    @Test("Unavailable: the IMU fails during a bracket; and a single capture with no IMU at all")
    func unavailable() throws {
        let rig = try streamingRig()
        try rig.stabilization.setLensEnabled(true)
        let gate = rig.stabilization.makeGate(kind: .bracket)
        let first = bracket(rig, gate: gate, microseconds: [33_333])
        #expect(first.map(\.verdict.status) == [.active])
        rig.imu.bus.unplugged.insert(rig.imu.address)
        rig.loop.advance(by: .seconds(1))
        #expect(rig.stabilization.imuHealth != .running)
        let harness = BracketHarness(rig: rig, gate: gate, exposures: [.microseconds(33_333), .microseconds(33_333)])
        harness.run()
        #expect(harness.kept.map(\.verdict.status) == [.unavailable, .unavailable])
        #expect(harness.kept.allSatisfy { $0.verdict.measuredBlurPixels == nil && $0.verdict.alignment == nil })

        // Never started: automatic still stabilization asks, the IMU is absent.
        let loop = ManualEventLoop()
        let absent = Stabilization(tracker: MotionTracker(deviceName: "none"), sensor: try SensorDescription.embedded(model: "imx708"), loop: loop)
        absent.formatChanged(rig.controller.activeFormat)
        let single = absent.makeGate(kind: .single)
        #expect(single.readiness(index: 0, exposure: .milliseconds(100), now: loop.now()) == .go)
        #expect(single.judge(index: 0, attempt: 1, exposureStart: loop.now(), exposure: .milliseconds(100)).status == .unavailable)
    }

    @Test("automatic still stabilization: single long exposures are gated by default, short ones and 'off' are not")
    func automaticStill() throws {
        // The rig streams at the bracket's exposure: the sensor applies exposure two frames late, and
        // the gate judges the exposure the metadata reports.
        let long = try streamingRig(exposureMicroseconds: 100_000)
        #expect(bracket(long, gate: long.stabilization.makeGate(kind: .single), microseconds: [100_000]).map(\.verdict.status) == [.active])
        long.stabilization.setStillAutomatic(false)
        #expect(bracket(long, gate: long.stabilization.makeGate(kind: .single), microseconds: [100_000]).map(\.verdict.status) == [.off])
        let short = try streamingRig(exposureMicroseconds: 10_000)
        #expect(bracket(short, gate: short.stabilization.makeGate(kind: .single), microseconds: [10_000]).map(\.verdict.status) == [.off])
    }

    @Test("alignment: each frame's rotation relative to the first matches the ground truth within 0.02°")
    func alignment() throws {
        let rig = try streamingRig(profile: "handheld", amplitude: 6)
        try rig.stabilization.setLensEnabled(true)
        var thresholds = StillStabilizationThresholds()
        thresholds.blurThresholdPixels = 1000  // keep every frame: this checks alignment only
        rig.stabilization.thresholds = thresholds
        let kept = bracket(rig, gate: rig.stabilization.makeGate(kind: .bracket), microseconds: [4_000, 8_000, 16_000, 33_333, 66_666])
        #expect(kept.count == 5)
        let reference = truthOrientation(rig, at: kept[0].exposureStart + kept[0].exposure / 2)
        var largest = 0.0
        for frame in kept.dropFirst() {
            let a = try #require(frame.verdict.alignment)
            let measured = Quaternion(w: a[0], x: a[1], y: a[2], z: a[3])
            let truth = reference.conjugate * truthOrientation(rig, at: frame.exposureStart + frame.exposure / 2)
            largest = max(largest, measured.angle(to: truth) * 180 / .pi)
            #expect(truth.angle(to: .identity) > 0.01 * .pi / 180, "the frames did move")
        }
        print("alignment: largest error \(largest)°")
        #expect(largest < 0.02)
    }
}
