import Hardware
import Motion
import Video

/// Video stabilization of a recording, done on the recorded frames: each frame gets the crop the
/// planner decided for its own exposure (its SensorTimestamp and the orientation then), cut out
/// and scaled back to the frame's size on the encoder queue (`VideoFrame.crop`). Standard decides
/// each frame's crop at once; cinematic decides it `lookaheadFrames` later, so frames wait here
/// until then (0.5 s at 30 fps, in memory). Loop-confined.
///
/// Unlike the viewfinder's ScalerCrop, which reaches the camera only with the requests queued
/// next (about four frames later), nothing here lags the motion.
public final class RecordingStabilizer {
    private let planner: EISCropPlanner
    /// The planner's field (the format's sensor crop), in which its crops are given.
    private let field: PixelSize
    private var held: [VideoFrame] = []

    public init(planner: EISCropPlanner, field: PixelSize) {
        self.planner = planner; self.field = field
    }

    /// Frames held for the look-ahead.
    public var heldFrames: Int { held.count }
    /// The most frames it holds (cinematic's look-ahead; 0 for standard).
    public var lookaheadFrames: Int { planner.lookaheadFrames }

    /// Adds the next frame with the orientation at the middle of its exposure; returns the frames
    /// whose crops are now decided, oldest first.
    public func push(_ frame: VideoFrame, orientation: Quaternion) -> [VideoFrame] {
        held.append(frame)
        return release(planner.push(frameTime: frame.sensorTimestamp, orientation: orientation))
    }

    /// The frames still held, with crops smoothed over what is known (end of the recording).
    public func flush() -> [VideoFrame] { release(planner.flush()) + takeRest() }

    private func release(_ crops: [EISCrop]) -> [VideoFrame] {
        var out: [VideoFrame] = []
        for crop in crops where !held.isEmpty {
            var frame = held.removeFirst()
            let rect = SoftwareCrop.rect(crop.rect, field: field, in: frame.size)
            // Whole, even, inside the frame (the scaled rectangle may round past an edge).
            let width = min(rect.width, frame.size.width) & ~1, height = min(rect.height, frame.size.height) & ~1
            frame.crop = PixelRect(x: min(max(rect.x, 0), frame.size.width - width) & ~1,
                                   y: min(max(rect.y, 0), frame.size.height - height) & ~1,
                                   width: width, height: height)
            out.append(frame)
        }
        return out
    }

    private func takeRest() -> [VideoFrame] {
        defer { held.removeAll() }
        return held
    }
}
