import Foundation
import Hardware
import Testing
@testable import Motion

/// `MotionTracker.orientation(at:)`: the current orientation with the gyro's rotation since
/// `time` taken back. Its rotations back from the newest sample are kept between calls (a
/// recording's stabilizer asks ~170 times a frame); the answers must equal integrating the kept
/// samples afresh, in any order of asking, and follow each newer sample.
@Suite struct OrientationHistoryTests {
    /// A turning rig: rates on all three axes that change with time, 500 Hz, from `start` seconds.
    static func samples(from start: Double, count: Int) -> [IMUSample] {
        (0..<count).map { n in
            let t = start + Double(n) / 500
            return IMUSample(timestamp: MonotonicTime(nanoseconds: Int64((t * 1e9).rounded())),
                             gyro: Vector3(0.9 * sin(3 * t), 0.6 * cos(5 * t), 0.4 * sin(7 * t + 1)), accel: Vector3(0, 0, 9.81))
        }
    }

    /// The rotation from `time` to the newest kept sample, integrated afresh (each sample's rate
    /// over the time since the one before, the first from `time`).
    static func reference(_ tracker: MotionTracker, at time: MonotonicTime) -> Quaternion {
        guard let newest = tracker.history.newest, time < newest.timestamp else { return tracker.orientation }
        var since = Quaternion.identity
        var previous = time
        for sample in tracker.history.kept where sample.timestamp > previous {
            let rate = length(sample.gyro)
            if rate > 0 { since = since * Quaternion(axis: sample.gyro / rate, angle: rate * (sample.timestamp - previous).secondsValue) }
            previous = sample.timestamp
        }
        return (tracker.orientation * since.conjugate).normalized
    }

    @Test func answersEqualIntegratingAfreshInAnyOrderAndFollowNewSamples() {
        let tracker = MotionTracker(deviceName: "test")
        tracker.ingest(Self.samples(from: 0, count: 1000))
        let newest = tracker.history.newest!.timestamp.nanoseconds
        // Near the newest first, then further back (the kept rotations grow), then near again,
        // between samples and on them, and before the oldest sample.
        let backs: [Int64] = [300_000, 1_000_000, 40_000_000, 700_000_000, 2_000_000, 1_999_000_000, 2_500_000_000, 999_000, 0]
        for back in backs {
            let time = MonotonicTime(nanoseconds: newest - back)
            let angle = tracker.orientation(at: time).angle(to: Self.reference(tracker, at: time))
            #expect(angle < 1e-7, "\(back) ns back: \(angle) rad off")  // angle(to:) resolves ~1e-8 rad
        }
        let before = tracker.orientation(at: MonotonicTime(nanoseconds: newest - 40_000_000))
        tracker.ingest(Self.samples(from: 2, count: 50))
        let time = MonotonicTime(nanoseconds: newest - 40_000_000)
        let after = tracker.orientation(at: time)
        #expect(after.angle(to: Self.reference(tracker, at: time)) < 1e-7)
        // The same instant, seen from later samples: the fused orientation moved on, so the answer differs
        // from the one kept before (a stale cache would give `before` back).
        #expect(after.angle(to: before) > 1e-6)
    }
}
