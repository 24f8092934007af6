import Hardware
import Motion
import SimulatedHardware
import Testing
@testable import Stabilization

@Suite("Blur estimate")
struct BlurEstimateTests {
    @Test("the gate's measured blur matches the ground truth's rendered blur (handheld, 1/30 s to 1/4 s)")
    func measuredAgainstTruth() throws {
        let rig = try Rig(format: "1920x1080")
        try rig.move("handheld")
        rig.loop.advance(by: .seconds(1))
        let f = rig.focalLength
        #expect(f > 1500 && f < 1900)  // IMX708 4.74 mm / 1.4 µm / 2 (binned 2304×1296)
        let gate = rig.stabilization.makeGate(kind: .single)
        var errors: [Double] = []
        for (k, micro) in [33_333, 66_666, 125_000, 250_000].enumerated() {
            for j in 0..<8 {
                let exposure = Duration.microseconds(Int64(micro))
                let start = rig.loop.now()
                rig.loop.advance(by: exposure + .milliseconds(60))  // the samples of the window arrive
                let measured = try #require(gate.measuredBlurPixels(start: start, exposure: exposure))
                let truth = renderedBlurPixels(truth: rig.imu.truth, window: start...(start + exposure), focalLengthPixels: f)
                #expect(truth > 0.5, "window \(k).\(j) has motion")
                errors.append(abs(measured - truth) / truth)
            }
        }
        let mean = errors.reduce(0, +) / Double(errors.count)
        print("blur estimate: mean relative error \(mean), worst \(errors.max() ?? 0) over \(errors.count) windows")
        #expect(mean < 0.02)
        #expect((errors.max() ?? 1) < 0.06)
    }

    @Test("without the tail of the window in the history, a short gap is extrapolated and a long one is not measured")
    func coverage() throws {
        let rig = try Rig(format: "1920x1080")
        try rig.move("handheld")
        rig.loop.advance(by: .seconds(1))
        let gate = rig.stabilization.makeGate(kind: .single)
        let newest = try #require(rig.tracker.history.newest?.timestamp)
        let f = rig.focalLength
        // 90 % covered: measured ≈ truth within 20 %.
        let start = newest - .milliseconds(90)
        let measured = try #require(gate.measuredBlurPixels(start: start, exposure: .milliseconds(100)))
        let truth = renderedBlurPixels(truth: rig.imu.truth, window: start...(start + .milliseconds(100)), focalLengthPixels: f)
        #expect(abs(measured - truth) / truth < 0.2)
        // 40 % covered (under the 50 % minimum): not measured.
        #expect(gate.measuredBlurPixels(start: newest - .milliseconds(40), exposure: .milliseconds(100)) == nil)
    }
}
