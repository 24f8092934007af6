import Foundation
import Hardware
import ManualLoop
import Motion
import SimulatedHardware
import Testing

@Suite("Gyroflow gcsv, axis mapping, motion profiles")
struct GcsvTests {
    func sample(_ t: Double, _ g: Vector3, _ a: Vector3) -> IMUSample {
        IMUSample(timestamp: MonotonicTime(nanoseconds: Int64(t * 1e9)), gyro: g, accel: a)
    }

    @Test("header is short, complete and parses back; rows round-trip to the IMU frame")
    func roundTrip() throws {
        let mapping = try AxisMapping("yXZ")
        var writer = GcsvWriter(axisMapping: mapping, origin: MonotonicTime(nanoseconds: 10_000_000_000),
                                frameReadoutMilliseconds: 16.7)
        writer.videoFilename = "IMG_0001.mp4"
        let samples = [sample(10.0, Vector3(0.1, -0.2, 0.3), Vector3(0, -9.80665, 0)),
                       sample(10.002, Vector3(-1.5, 0.25, 0), Vector3(1, -9.7, 0.5)),
                       sample(9.998, Vector3(0, 0, 0.001), Vector3(0, 0, 9.80665))]
        let text = writer.document(samples)
        let header = writer.header()
        #expect(header.utf8.count < 500)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.removeLast() == "")
        #expect(lines[0] == "GYROFLOW IMU LOG")
        #expect(lines[3] == "orientation,yXZ")  // the reference puts it on the fourth line
        var keys: [String: String] = [:]
        var i = 1
        while lines[i] != "t,gx,gy,gz,ax,ay,az" {
            let parts = lines[i].split(separator: ",", maxSplits: 1).map(String.init)
            #expect(parts.count == 2, "header line \(lines[i])")
            keys[parts[0]] = parts.count == 2 ? parts[1] : nil
            i += 1
        }
        #expect(keys["version"] == "1.3")
        #expect(keys["orientation"] == "yXZ")
        #expect(keys["frame_readout_time"] == "16.7")
        #expect(keys["videofilename"] == "IMG_0001.mp4")
        let tscale = try #require(Double(keys["tscale"] ?? ""))
        let gscale = try #require(Double(keys["gscale"] ?? ""))
        let ascale = try #require(Double(keys["ascale"] ?? ""))
        let rows = lines[(i + 1)...].map { $0.split(separator: ",").compactMap { Int64($0) } }
        #expect(rows.count == samples.count)
        for (row, s) in zip(rows, samples) {
            #expect(row.count == 7)
            #expect(abs(Double(row[0]) * tscale - (s.timestamp.seconds - 10)) < 1e-6)
            // Gyroflow applies `orientation` to the logged IMU-frame values: that must give back ours.
            let g = mapping.toCamera(Vector3(Double(row[1]), Double(row[2]), Double(row[3])) * gscale)
            let a = mapping.toCamera(Vector3(Double(row[4]), Double(row[5]), Double(row[6])) * ascale) * 9.80665
            #expect(norm(g - s.gyro) < 2e-5)
            #expect(norm(a - s.accel) < 2e-4)
        }
        #expect(rows[2][0] < 0)  // a sample before the first frame keeps its negative time
    }

    @Test("axis mappings parse, invert, and reject nonsense")
    func mapping() throws {
        let m = try AxisMapping("yXz")
        let v = Vector3(1, 2, 3)
        #expect(m.toCamera(v) == Vector3(-2, 1, -3))
        #expect(m.toIMU(m.toCamera(v)) == v)
        #expect(m.description == "yXz")
        #expect(try AxisMapping("XYZ") == .identity)
        for bad in ["XY", "XXZ", "ABC", "XYZW", ""] {
            #expect(throws: HardwareError.self) { try AxisMapping(bad) }
        }
    }

    @Test("profiles are deterministic for a seed and have the asked amplitude")
    func profiles() throws {
        for profile in MotionProfile.allCases {
            let a = profile.make(seed: 5), b = profile.make(seed: 5), c = profile.make(seed: 6)
            let t = MonotonicTime(nanoseconds: 1_234_567_890)
            #expect(a.angularVelocity(at: t) == b.angularVelocity(at: t))
            #expect(a.acceleration(at: t) == b.acceleration(at: t))
            if profile != .still { #expect(a.angularVelocity(at: t) != c.angularVelocity(at: t)) }
        }
        // RMS angular speed over 20 s ≈ the amplitude (handheld 4 °/s), mostly 8–12 Hz tremor.
        let hand = MotionProfile.handheld.make(amplitudeDegreesPerSecond: 4, seed: 11)
        var sumSquares = 0.0
        let n = 20_000
        for k in 0..<n {
            let w = hand.angularVelocity(at: MonotonicTime(nanoseconds: Int64(k) * 1_000_000))
            sumSquares += (w * w).sum()
        }
        let rms = (sumSquares / Double(n)).squareRoot() * 180 / .pi
        #expect(abs(rms - 4) < 0.4)
        #expect(hand.pitch.filter { (8...12).contains($0.frequencyHertz) }.count == 3)
        // Still: level, 1 g up.
        let still = MotionProfile.still.make()
        #expect(still.angularVelocity(at: .zero) == .zero)
        #expect(norm(still.acceleration(at: .zero) - Vector3(0, -9.80665, 0)) < 1e-12)
        #expect(throws: HardwareError.self) { try MotionProfile.named("jog") }
        #expect(try MotionProfile.named("Pan") == .pan)
    }
}

@Suite("Simulated board IMU")
struct SimulatedIMUTests {
    @Test("built from the board section, switches profile by name, data-ready wired")
    func fromBoard() throws {
        let loop = ManualEventLoop()
        let json = #"{"backend": "sim", "orientation": "yXZ", "motion": "handheld", "amplitudeDegreesPerSecond": 6, "dataReady": {"name": "IMU_INT"}}"#
        let section = try JSONDecoder().decode(BoardDescription.IMUSection.self, from: Data(json.utf8))
        let imu = try SimulatedIMU(section: section, loop: loop, seed: 3)
        #expect(imu.dataReadyLine != nil)
        let samples = LockedValue<[IMUSample]>([])
        try imu.start { if case .samples(let s) = $0 { samples.withLock { $0 += s } } }
        loop.advance(by: .seconds(2))
        #expect(imu.name.hasPrefix("mpu6050 on i2c-sim@0x68"))
        let shaking = samples.current.suffix(500)
        let rms = (shaking.reduce(0.0) { $0 + ($1.gyro * $1.gyro).sum() } / Double(shaking.count)).squareRoot() * 180 / .pi
        #expect(rms > 4 && rms < 8)
        try imu.setMotion("still")
        samples.withLock { $0.removeAll() }
        loop.advance(by: .seconds(1))
        let still = samples.current
        let maxRate = still.map { norm($0.gyro) }.max() ?? 1
        #expect(still.count > 450 && maxRate < 0.03)  // bias + noise only
        #expect(throws: HardwareError.self) { try imu.setMotion("jog") }
    }
}
