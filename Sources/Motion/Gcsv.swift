import Hardware

/// Writes Gyroflow `.gcsv` gyro logs (format: hardware-facts.md, "Gyroflow .gcsv gyro log").
///
/// Rows are integers: t in `timeScaleSeconds` units relative to `origin` (use the first frame's
/// SensorTimestamp, so t = 0 is the first frame), gyro in `gyroScale` rad/s units, accel in
/// `accelScale` g units. Samples arrive in the camera frame; they are written back in the IMU's
/// own frame with the board's orientation string, so Gyroflow applies the mapping itself and a
/// user can correct a wrong board entry in Gyroflow without re-recording. The header stays well
/// under 500 bytes (Gyroflow reads id/vendor/readout only there).
public struct GcsvWriter: Sendable {
    public var loggerID = "tripod"
    public var vendor = "tripod"
    /// The board's axis mapping, written as `orientation`.
    public var axisMapping: AxisMapping
    /// The active mode's full-frame readout time, ms (`frame_readout_time`), when known.
    public var frameReadoutMilliseconds: Double?
    /// 0 = top to bottom.
    public var frameReadoutDirection = 0
    public var videoFilename: String?
    public var firmwareVersion: String?
    /// Seconds since 1970 at `origin`, when the wall clock is trusted.
    public var unixTimestampSeconds: Double?
    public var origin: MonotonicTime
    public var timeScaleSeconds = 1e-6
    public var gyroScale = 1e-5
    public var accelScale = 1e-5

    public init(axisMapping: AxisMapping, origin: MonotonicTime, frameReadoutMilliseconds: Double? = nil) {
        self.axisMapping = axisMapping; self.origin = origin; self.frameReadoutMilliseconds = frameReadoutMilliseconds
    }

    /// The header lines through the column row, each ending in "\n".
    public func header() -> String {
        // Gyroflow's reference wants orientation on the fourth line, optional keys after it.
        var lines = ["GYROFLOW IMU LOG", "version,1.3", "id,\(loggerID)", "orientation,\(axisMapping)"]
        if let fw = firmwareVersion { lines.append("fwversion,\(fw)") }
        if let unix = unixTimestampSeconds { lines.append("timestamp,\(format(unix))") }
        lines.append("vendor,\(vendor)")
        if let name = videoFilename { lines.append("videofilename,\(name)") }
        if let ms = frameReadoutMilliseconds {
            lines.append("frame_readout_time,\(format(ms))")
            lines.append("frame_readout_direction,\(frameReadoutDirection)")
        }
        lines += ["tscale,\(format(timeScaleSeconds))", "gscale,\(format(gyroScale))",
                  "ascale,\(format(accelScale))", "t,gx,gy,gz,ax,ay,az"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// One data row for a camera-frame sample, ending in "\n".
    public func row(_ s: IMUSample) -> String {
        let t = ((s.timestamp - origin).secondsValue / timeScaleSeconds).rounded()
        let g = axisMapping.toIMU(s.gyro) / gyroScale
        let a = axisMapping.toIMU(s.accel) / standardGravity / accelScale
        return [t, g.x, g.y, g.z, a.x, a.y, a.z].map { String(Int64($0.rounded())) }.joined(separator: ",") + "\n"
    }

    /// Header plus rows for `samples`.
    public func document(_ samples: [IMUSample]) -> String {
        var text = header()
        text.reserveCapacity(text.utf8.count + samples.count * 48)
        for s in samples { text += row(s) }
        return text
    }

    private func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
    }
}
