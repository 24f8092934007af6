import Camera
import Foundation
import Hardware
import ManualLoop
import Motion
import SimulatedHardware
import Stabilization

/// The path the planner gives a recording, against the truth (`tools/bench stabilization`, part
/// "orientation"; no video, no margin): the simulated IMU (bias, noise, its FIFO and clock) under
/// handheld 10 from a standing start (no still calibration, as in the recordings), read by the
/// tracker; at each frame (30 fps) `RotationPathPlanner` is fed the tracker's `orientation(at:)`
/// as `RecordingStabilizer` feeds it, and each target's view is carried into the true world
/// (truth · camera⁻¹ · view: what the shown picture points at). The RMS change of that between
/// consecutive frames, about the optical axis (roll) and across it, degrees; the same with the
/// truth itself as the source (what the planner does with a perfect IMU), and off (the truth).
struct OrientationCheckRun {
    static let seconds = 14.0
    static let skipSeconds = 4.0

    func run() throws -> (rows: [[String]], notes: [String], metrics: [String: Double]) {
        var rows: [[String]] = [["planned path vs truth", "mode", "source", "roll ° / frame", "across ° / frame", "roll vs off", "across vs off",
                                 "", "", "", ""]]
        var metrics: [String: Double] = [:]
        let off = try measure(mode: nil, fromTruth: true)
        rows.append(["", "off", "truth", String(format: "%.5f", off.roll), String(format: "%.5f", off.across), "—", "—", "", "", "", ""])
        for mode in [StabilizationMode.standard, .cinematic] {
            for fromTruth in [false, true] {
                let r = try measure(mode: mode, fromTruth: fromTruth)
                rows.append(["", mode.rawValue, fromTruth ? "truth" : "tracker", String(format: "%.5f", r.roll), String(format: "%.5f", r.across),
                             String(format: "%.0f %%", 100 * r.roll / off.roll), String(format: "%.0f %%", 100 * r.across / off.across), "", "", "", ""])
                metrics["path_\(mode.rawValue)_\(fromTruth ? "truth" : "tracker")_roll_vs_off"] = r.roll / off.roll
            }
        }
        let notes = ["planned path: simulated IMU (gyro bias 0.69 °/s about the optical axis, noise, FIFO timestamps) under handheld 10, "
            + "no still calibration; the planner's views at 30 fps carried into the true world, their change between frames (RMS after "
            + "the first \(Int(Self.skipSeconds)) s of \(Int(Self.seconds)) s); no margin, frame middles only"]
        return (rows, notes, metrics)
    }

    struct Jitter { var roll = 0.0, across = 0.0 }

    private func measure(mode: StabilizationMode?, fromTruth: Bool) throws -> Jitter {
        let loop = ManualEventLoop()
        let origin = loop.now()
        let profile = MotionProfile.handheld.make(amplitudeDegreesPerSecond: 10, seed: 1, origin: origin)
        let imu = SimulatedIMU(loop: loop, profile: profile, seed: 1)
        let tracker = MotionTracker(deviceName: imu.name)
        let bound = LoopBound(tracker, loop: loop)
        try imu.start { event in if case .samples(let s) = event { bound.value.ingest(s) } }
        // The truth in the tracker's world (+z up; the profile's world has y down).
        let upright = Quaternion(axis: Vector3(1, 0, 0), angle: -.pi / 2)
        func truth(_ t: MonotonicTime) -> Quaternion { (upright * profile.orientation(at: t)).normalized }
        let planner = try mode.map { try RotationPathPlanner(mode: $0) }
        let source: (MonotonicTime) -> Quaternion? = fromTruth ? { truth($0) } : { tracker.orientation(at: $0) }
        let period = Duration.nanoseconds(33_333_333)
        var frame = origin + .seconds(1)
        loop.advance(by: .seconds(1) + .milliseconds(20))
        var previous: Quaternion?, sum = Jitter(), count = 0
        while (frame - origin).secondsValue < Self.seconds {
            let targets = planner.map { $0.push(time: frame, orientationAt: source).map { (time: $0.time, camera: $0.camera, view: $0.view) } }
                ?? [(time: frame, camera: truth(frame), view: truth(frame))]
            for target in targets {
                planner?.shown(target.view)
                let shown = (truth(target.time) * target.camera.conjugate * target.view).normalized
                defer { previous = shown }
                guard let previous, (target.time - origin).secondsValue > Self.skipSeconds else { continue }
                let change = (previous.conjugate * shown).normalized.rotationVector * (180 / .pi)
                sum.roll += change.z * change.z; sum.across += change.x * change.x + change.y * change.y
                count += 1
            }
            loop.advance(by: period)
            frame = frame + period
        }
        imu.stop()
        return Jitter(roll: (sum.roll / Double(max(count, 1))).squareRoot(), across: (sum.across / Double(max(count, 1))).squareRoot())
    }
}
