import Hardware

/// Camera state a recording states in its sidecar, as the supervisor names it.
public struct VideoCaptureState: Sendable, Equatable, Codable {
    /// The stabilization mode asked for, and the one applied ("off", "standard", "cinematic").
    public var stabilizationPreferred: String
    public var stabilizationActive: String
    /// Video HDR when the recording started: "off", "sensor" (the sensor's own HDR mode, which
    /// cannot change during a recording), or the HdrMode's name. Each frame's is in `hdrFrames`.
    public var hdr: String
    public init(stabilizationPreferred: String = "off", stabilizationActive: String = "off", hdr: String = "off") {
        self.stabilizationPreferred = stabilizationPreferred; self.stabilizationActive = stabilizationActive; self.hdr = hdr
    }
}

/// A still (a `capture` or a bracket's frame) taken during the recording: its frame is in the video
/// too, at this sequence and SensorTimestamp (the bracket's own sidecar names its files).
public struct VideoStill: Sendable, Equatable, Codable {
    public var bracketID: String
    /// 1-based, as `bracket.frame` counts.
    public var frame: Int
    public var sequence: UInt64
    public var sensorTimestampNanoseconds: Int64
    public init(bracketID: String, frame: Int, sequence: UInt64, sensorTimestampNanoseconds: Int64) {
        self.bracketID = bracketID; self.frame = frame; self.sequence = sequence
        self.sensorTimestampNanoseconds = sensorTimestampNanoseconds
    }
}

/// A run of frames of a file with the same video HDR state, from each frame's metadata.
public struct VideoHDRRun: Sendable, Equatable, Codable {
    /// The run's first frame, 0-based within the file, and its camera sequence.
    public var firstFrame: Int
    public var firstSequence: UInt64
    public var frames: Int
    /// "off", "sensor", or the HdrMode's name (with the channel of an unmerged sequence).
    public var hdr: String
}

/// Minimum, maximum and mean of one value over a file's frames.
public struct ValueRange: Sendable, Equatable, Codable {
    public var minimum: Double
    public var maximum: Double
    public var mean: Double
}

/// The `<file>.json` beside each video file: what it is, how it was timed, what was lost.
public struct VideoSidecar: Sendable, Equatable, Codable {
    public struct Format: Sendable, Equatable, Codable {
        public var container: String
        public var codec: String
        /// The FFmpeg encoder used, and why it is not the preferred one when it is not.
        public var encoder: String
        public var encoderNote: String?
        /// libx264's preset (`EncoderPresetChoice`), and why: chosen at the recording's start from
        /// the mode's pixel rate and the encoding speed measured then. Nil for other encoders.
        public var encoderPreset: String?
        public var encoderPresetReason: String?
        public var bitrateBitsPerSecond: Int
        public var width: Int
        public var height: Int
        public var captureFramesPerSecond: Double
        /// PTS = (SensorTimestamp − first) × this (slow motion > 1).
        public var timeStretch: Double
        /// The container's PTS unit: 1/1000000 for MP4, 1/1000 for MKV (Matroska's default scale).
        public var ptsTimeBase: String
    }
    public struct Exposure: Sendable, Equatable, Codable {
        public var exposureTimeMicroseconds: ValueRange?
        /// Analogue gain × 100.
        public var iso: ValueRange?
        public var colourTemperatureKelvin: ValueRange?
    }

    public var id: String
    /// This file's name, its part number (1 unless split) and its neighbours' names.
    public var file: String
    public var part: Int
    public var format: Format
    /// `FrameWallClock` of the first frame, seconds since 1970, when the camera reports it.
    public var startWallClockSeconds: Double?
    /// SensorTimestamp (CLOCK_MONOTONIC ns) of the first and last frame: PTS 0 is the first.
    public var firstSensorTimestampNanoseconds: Int64
    public var lastSensorTimestampNanoseconds: Int64
    public var durationSeconds: Double
    public var framesWritten: Int
    public var firstSequence: UInt64
    public var lastSequence: UInt64
    public var droppedFrames: [DroppedFrame]
    public var capture: VideoCaptureState
    public var exposure: Exposure
    /// Each frame's video HDR, as runs of frames in the same state.
    public var hdrFrames: [VideoHDRRun]
    /// The mkvmerge timecode v2 file (one PTS in ms per frame) and the Gyroflow log beside it.
    public var timecodesFile: String
    public var gyroLogFile: String?
    /// Stills taken during this file, oldest first.
    public var stills: [VideoStill]
    /// "complete", or "stopped" with `error` (storage full or failing, encoder error).
    public var status: String
    public var error: String?
    /// The shot at a shared instant that started this recording (`fleet shot ... record start`), if any.
    public var shot: VideoShot? = nil
    /// Video stabilization's warp of each frame (its correction and whether the margin limited
    /// it), in file order; nil when no frame was warped.
    public var stabilizedFrames: [StabilizedFrame]? = nil
    /// The trigger that started this recording (motion, PIR, button), if any.
    public var trigger: VideoTrigger? = nil
}

/// Running min/max/mean of one value.
struct RangeAccumulator {
    private var minimum = Double.infinity, maximum = -Double.infinity, sum = 0.0, count = 0
    mutating func add(_ value: Double?) {
        guard let value, value.isFinite else { return }
        minimum = min(minimum, value); maximum = max(maximum, value); sum += value; count += 1
    }
    var range: ValueRange? { count == 0 ? nil : ValueRange(minimum: minimum, maximum: maximum, mean: sum / Double(count)) }
}
