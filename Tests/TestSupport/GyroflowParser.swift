import Foundation

/// What Gyroflow's own parser (telemetry-parser, from PyPI, in the test venv that tools/setup
/// fills) reads from a Gyroflow log: the IMU samples it would stabilize with.
public struct GyroflowReading: Decodable {
    public var camera: String?
    public var samples: Int
    public var firstMilliseconds: Double
    public var lastMilliseconds: Double
    /// The largest gyro component seen, degrees per second.
    public var peakGyroDegreesPerSecond: Double
}

/// Parses `file` with telemetry-parser's `Parser` and `normalized_imu()`; a missing venv or a
/// file the parser rejects is an error.
public func readWithGyroflowParser(_ file: String) throws -> GyroflowReading {
    let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
    let script = """
    import json, sys, telemetry_parser
    p = telemetry_parser.Parser(sys.argv[1])
    imu = p.normalized_imu()
    gyro = [abs(v) for s in imu for v in (s.get("gyro") or ())]
    print(json.dumps({"camera": p.camera, "samples": len(imu),
                      "firstMilliseconds": imu[0]["timestamp_ms"] if imu else 0,
                      "lastMilliseconds": imu[-1]["timestamp_ms"] if imu else 0,
                      "peakGyroDegreesPerSecond": max(gyro) if gyro else 0}))
    """
    let data = try runTool(cache + "/tripod/pyenv/bin/python", ["-c", script, file])
    return try JSONDecoder().decode(GyroflowReading.self, from: data)
}
