import Foundation
import Hardware
import ManualLoop
import Motion
import SimulatedHardware

/// `tools/bench imu`: (1) Mahony fusion throughput on one core against x-io Fusion (`imufusion`)
/// and `ahrs`'s Mahony, same filter (proportional gain 0.5, no integral, no rejection), same
/// data, in one run, with the orientations compared; (2) the sustained sample rate the I2C driver
/// reaches from each chip's FIFO on the simulated 400 kHz bus.
struct IMUBenchmark: Benchmark {
    static let name = "imu"
    static let summary = "IMU fusion samples/s vs imufusion and ahrs; driver FIFO rate at 400 kHz"
    static let samples = 200_000
    static let rateHertz = 500.0
    static let gain = 0.5
    static let every = 100

    func run() throws -> BenchmarkReport {
        let data = Self.makeData()
        let swift = Self.runSwift(data)
        let reference = try Self.runReference(data)
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        let swiftRate = Double(Self.samples) / swift.seconds
        rows.append(["fusion: tripod MahonyFilter (Swift)", Self.rate(swiftRate), "1.00", "-"])
        metrics["fusion_swift_samples_per_second"] = swiftRate
        for (key, label) in [("imufusion", "x-io Fusion C via imufusion"), ("ahrs", "ahrs Mahony (NumPy)")] {
            guard let entry = reference[key] as? [String: Any], let seconds = entry["seconds"] as? Double,
                  let quaternions = entry["quaternions"] as? [[Double]] else {
                throw HardwareError(.other, "imu bench: reference output lacks \(key)")
            }
            let rate = Double(Self.samples) / seconds
            let disagreement = zip(swift.quaternions, quaternions).map { s, r in
                s.angle(to: Quaternion(w: r[0], x: r[1], y: r[2], z: r[3]))
            }.max() ?? .nan
            let version = entry["version"] as? String ?? "?"
            rows.append(["fusion: \(label) \(version)", Self.rate(rate), String(format: "%.1f", swiftRate / rate),
                         String(format: "%.4f°", disagreement * 180 / .pi)])
            metrics["fusion_ratio_vs_\(key)"] = swiftRate / rate
            metrics["fusion_max_disagreement_degrees_\(key)"] = disagreement * 180 / .pi
        }
        for (model, rate) in [(IMUChipModel.mpu6050, 1000.0), (.mpu6500, 1000), (.lsm6dso, 833), (.lsm6dso, 1666),
                              (.lsm6dso, 3332), (.lsm6dso, 6667), (.lsm6ds3, 1666), (.lsm6ds3, 3332)] {
            let r = Self.sustainedRate(model: model, rateHertz: rate)
            rows.append(["driver: \(model.rawValue) FIFO at \(Int(rate)) Hz", Self.rate(r.delivered),
                         String(format: "%.0f%% bus", r.busUtilisation * 100),
                         "\(r.overflows) overflows"])
            metrics["driver_\(model.rawValue)_\(Int(rate))_samples_per_second"] = r.delivered
        }
        return BenchmarkReport(
            columns: ["measure", "samples/s", "ratio (Swift ÷ ref) / bus", "max orientation difference / faults"],
            rows: rows,
            notes: ["fusion: \(Self.samples) samples of the handheld profile (20 °/s RMS) at 500 Hz, one core; Swift is the median of 9 runs, each reference one run",
                    "driver: 10 s simulated after a 1 s start, SMBus I2C-block reads at 400 kHz + 20 µs per transfer; rate = samples delivered per simulated second"],
            metrics: metrics)
    }

    static func rate(_ r: Double) -> String { r >= 1e6 ? String(format: "%.2fM", r / 1e6) : String(format: "%.0f", r) }

    /// Rows of (dt, gyro rad/s, accel m/s²) in a z-up body frame (camera x, −z, … so level = +z up).
    static func makeData() -> [Double] {
        let truth = MotionProfile.handheld.make(amplitudeDegreesPerSecond: 20, seed: 1)
        var rng = SeededGenerator(seed: 2)
        var rows: [Double] = []
        rows.reserveCapacity(samples * 7)
        func zUp(_ v: Vector3) -> Vector3 { Vector3(v.x, v.z, -v.y) }
        for i in 0..<samples {
            let t = MonotonicTime(nanoseconds: Int64(Double(i) / rateHertz * 1e9))
            let g = zUp(truth.angularVelocity(at: t)) + Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * 0.001
            let a = zUp(truth.acceleration(at: t)) + Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * 0.03
            rows += [1 / rateHertz, g.x, g.y, g.z, a.x, a.y, a.z]
        }
        return rows
    }

    static func runSwift(_ data: [Double]) -> (seconds: Double, quaternions: [Quaternion]) {
        var times: [Double] = []
        var quaternions: [Quaternion] = []
        for _ in 0..<9 {
            var filter = MahonyFilter(proportionalGain: gain, integralGain: 0)
            var kept: [Quaternion] = []
            kept.reserveCapacity(samples / every)
            let start = monotonicNanoseconds()
            data.withUnsafeBufferPointer { d in
                for i in 0..<samples {
                    let b = i * 7
                    filter.update(gyro: Vector3(d[b + 1], d[b + 2], d[b + 3]), accel: Vector3(d[b + 4], d[b + 5], d[b + 6]), dt: d[b])
                    if i % every == every - 1 { kept.append(filter.orientation) }
                }
            }
            times.append(Double(monotonicNanoseconds() - start) / 1e9)
            quaternions = kept
        }
        return (percentile(times, 50), quaternions)
    }

    /// Runs tools/bench.d/imu_fusion_reference.py on the same data through a temp file.
    static func runReference(_ data: [Double]) throws -> [String: Any] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-imu-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("data.f64"), output = directory.appendingPathComponent("result.json")
        try data.withUnsafeBytes { try Data($0).write(to: input) }
        let script = FileManager.default.currentDirectoryPath + "/tools/bench.d/imu_fusion_reference.py"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, input.path, output.path, String(gain), String(every)]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HardwareError(.other, "imu bench: \(script) exited with \(process.terminationStatus)")
        }
        guard let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any] else {
            throw HardwareError(.other, "imu bench: \(output.path) is not a JSON object")
        }
        return json
    }

    static func sustainedRate(model: IMUChipModel, rateHertz: Double) -> (delivered: Double, busUtilisation: Double, overflows: Int) {
        let loop = ManualEventLoop()
        var configuration = IMUConfiguration()
        configuration.rateHertz = rateHertz
        let imu = SimulatedIMU(loop: loop, model: model, profile: MotionProfile.handheld.make(origin: loop.now()),
                               configuration: configuration)
        let count = LockedValue(0)
        do { try imu.start { if case .samples(let s) = $0 { count.withLock { $0 += s.count } } } } catch { return (0, 0, 0) }
        loop.advance(by: .seconds(1))
        let before = count.current, busBefore = imu.bus.busyTime
        loop.advance(by: .seconds(10))
        let delivered = Double(count.current - before) / 10
        let busy = (imu.bus.busyTime - busBefore).secondsValue / 10
        return (delivered, busy, imu.driver.statistics.overflows)
    }
}
