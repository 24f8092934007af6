import Console
import Hardware
import Motion

/// `imu`: the newest IMU sample as the motion pipeline has it, in units: what the driver decoded
/// (accelerometer) and the gyro with and without its calibrated bias.
extension Supervisor {
    func registerIMUCommands() {
        commands.add(Command("imu", summary: "the newest IMU sample: accel m/s², gyro °/s, bias",
                             detail: ["example: imu",
                                      "ok imu=\"mpu6050 on i2c-1@0x68\" samples=969 still=yes accel=0.012,-0.004,9.807 gyro=0.01,-0.02,0 bias=0.458,-0.286,0.688",
                                      "accel: specific force in the camera frame, m/s² (gravity included); gyro: bias-corrected rate, °/s;",
                                      "bias: the calibrated gyro bias, °/s (none before calibration); the raw rate is gyro + bias."]) { context, _ in
            context.supervisor.imuReply()
        })
    }

    func imuReply() -> Reply {
        guard hasIMU else { return .err(.unsupported, "this board has no IMU") }
        let name = deviceSummary().first { $0.0 == "imu" }?.1 ?? motion.deviceName
        var fields: [(String, String)] = [("imu", name), ("samples", String(runtime.imuSamples)),
                                          ("still", motion.isStill ? "yes" : "no")]
        guard let sample = motion.history.newest else { return .ok(fields) }
        func triple(_ v: Vector3, _ scale: Double) -> String {
            [v.x, v.y, v.z].map { ValueParser.formatNumber($0 * scale) }.joined(separator: ",")
        }
        let degrees = 180 / Double.pi
        fields += [("accel", triple(sample.accel, 1)), ("gyro", triple(sample.gyro, degrees)),
                   ("bias", motion.calibration.map { triple($0.bias, degrees) } ?? "none")]
        return .ok(fields)
    }
}
