import Camera
import Foundation
import Controls
import Hardware
import Lifecycle
import Logging
import Media
import Motion

/// A Gyroflow `.gcsv` for each saved bracket, written beside it by the capture writer
/// (`<folder>/<id>.gcsv`): the IMU samples from half a second before the first frame's exposure to
/// the end of the bracket (the samples that exist when it is saved), with t = 0
/// at the first frame's SensorTimestamp, the board's axis mapping and the active mode's readout time.
public struct GyroLogMaker {
    /// Margin of samples kept around the bracket's frames.
    public static let gyroLogMargin = Duration.milliseconds(500)  // before the first frame

    /// The tracker whose history holds the samples.
    public let motion: MotionTracker
    /// The board's IMU axis mapping ("XYZ" when the description gives none).
    public let orientation: String?
    public let log: Logger

    public init(motion: MotionTracker, orientation: String?, log: Logger) {
        self.motion = motion; self.orientation = orientation; self.log = log
    }

    /// The log's path and a job that renders it: the samples are copied here, on the loop, and the
    /// text (up to 30 s of samples) is built by whoever runs the job (the capture writer's queue).
    public func make(for sidecar: BracketSidecar, camera: CameraController?) -> (path: String, render: @Sendable () -> [UInt8])? {
        guard let first = sidecar.frames.map(\.sensorTimestampNanoseconds).min(),
              // An unreported exposure counts as 0: the margin after the last frame still covers it.
              let last = sidecar.frames.map({ $0.sensorTimestampNanoseconds + Int64($0.actual?.exposureTimeMicroseconds ?? 0) * 1000 }).max()
        else { return nil }
        let origin = MonotonicTime(nanoseconds: first)
        let samples = motion.history.samples(from: origin - Self.gyroLogMargin,
                                             to: MonotonicTime(nanoseconds: last) + Self.gyroLogMargin)
        guard !samples.isEmpty else {
            log.warning("gyro log \(sidecar.id): no IMU samples cover the bracket")
            return nil
        }
        let mapping: AxisMapping
        do { mapping = try AxisMapping(orientation ?? "XYZ") }
        catch { log.warning("gyro log \(sidecar.id): board IMU orientation: \(error)"); return nil }
        var writer = GcsvWriter(axisMapping: mapping, origin: origin, frameReadoutMilliseconds: Self.readoutMilliseconds(camera))
        writer.firmwareVersion = "tripod \(TripodVersion.firmware)"
        writer.videoFilename = sidecar.id
        let document = writer
        return ("\(sidecar.folder)/\(sidecar.id).gcsv", { Array(document.document(samples).utf8) })
    }

    /// Full-frame readout time of the active sensor mode, ms, when the sensor database knows it.
    public static func readoutMilliseconds(_ camera: CameraController?) -> Double? {
        guard let camera else { return nil }
        let size = camera.activeFormat.format.sensorModeSize
        return camera.sensor.modes.first { $0.width == size.width && $0.height == size.height }?.readoutMilliseconds
    }
}
