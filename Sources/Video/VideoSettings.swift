import Hardware

/// How to record: codec, container, rate, pre-record and split (the `video.*` settings).
public struct VideoSettings: Sendable, Equatable, Codable {
    public enum Codec: String, Sendable, Codable, CaseIterable { case h264, mjpeg }
    public enum Container: String, Sendable, Codable, CaseIterable {
        case mp4, mkv
        /// libavformat's muxer name.
        var muxerName: String { self == .mp4 ? "mp4" : "matroska" }
        public var fileExtension: String { rawValue }
    }

    public var codec: Codec = .h264
    public var container: Container = .mp4
    /// Target bit rate (`video.bitrate`), bits per second.
    public var bitrateBitsPerSecond = 10_000_000
    /// The FFmpeg encoder to try first ("h264_v4l2m2m" where the board has the hardware encoder);
    /// nil for the software default. When it is missing or refuses to open, the recording falls back
    /// to the software encoder and says so in its status and sidecar.
    public var encoderName: String?
    /// libx264's speed options, set by name with `av_opt_set(…, AV_OPT_SEARCH_CHILDREN)` (codec
    /// context or libx264's private options) and passed as `-name value` to the ffmpeg command
    /// line in `tools/bench video`. They are what rpicam-apps gives libx264 on a Pi 5 (no hardware
    /// encoder) for a recording that is not low latency: preset superfast, intra partitions only,
    /// diamond motion search over 16 pixels, no sub-pixel refinement or chroma motion estimation,
    /// no weighted prediction, no scene-cut detection and no lookahead (so nothing is held back).
    public var x264Options: [EncoderOption] = [
        EncoderOption("preset", "superfast"), EncoderOption("partitions", "i8x8,i4x4"),
        EncoderOption("weightp", "none"), EncoderOption("motion-est", "dia"), EncoderOption("me_range", "16"),
        EncoderOption("subq", "0"), EncoderOption("cmp", "1"), EncoderOption("sc_threshold", "0"),
        EncoderOption("rc-lookahead", "0"), EncoderOption("mixed-refs", "0"),
    ]
    /// The sensor's frame rate (`video.fps`): keyframe spacing and the slow-motion factor.
    public var captureFramesPerSecond: Double = 30
    /// `video.slowmotion`: PTS stretched by capture fps ÷ `playbackFramesPerSecond`.
    public var slowMotion = false
    /// `video.playback-fps`.
    public var playbackFramesPerSecond: Double = 30
    /// `video.prerecord`: seconds of encoded video kept before `start`.
    public var prerecordSeconds: Double = 0
    /// `video.split`: minutes per file; 0 = one file.
    public var splitMinutes: Double = 0
    /// Frames the camera side may queue ahead of the encoder before frames are dropped.
    public var queueCapacityFrames = 8
    /// Seconds between keyframes (a fragmented MP4 loses at most about this much on `kill -9`).
    public var keyframeIntervalSeconds: Double = 1

    public init() {}

    /// One FFmpeg option by its AVOption name.
    public struct EncoderOption: Sendable, Equatable, Codable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) { self.name = name; self.value = value }
    }

    /// The default encoder of `codec`.
    public var softwareEncoderName: String { codec == .h264 ? "libx264" : "mjpeg" }

    /// Presentation time per capture time: 1, or capture ÷ playback fps in slow motion.
    public var timeStretch: Double {
        slowMotion && playbackFramesPerSecond > 0 ? captureFramesPerSecond / playbackFramesPerSecond : 1
    }

    /// A clear error for values that cannot be recorded.
    public func validate() throws(VideoError) {
        guard bitrateBitsPerSecond >= 100_000, bitrateBitsPerSecond <= 200_000_000 else {
            throw VideoError(.invalidArgument, "bit rate \(bitrateBitsPerSecond) b/s is outside 100k…200M")
        }
        guard captureFramesPerSecond > 0, captureFramesPerSecond <= 1000 else {
            throw VideoError(.invalidArgument, "capture rate \(captureFramesPerSecond) fps is outside (0, 1000]")
        }
        guard playbackFramesPerSecond > 0, playbackFramesPerSecond <= 1000 else {
            throw VideoError(.invalidArgument, "playback rate \(playbackFramesPerSecond) fps is outside (0, 1000]")
        }
        guard prerecordSeconds >= 0, prerecordSeconds <= 60 else {
            throw VideoError(.invalidArgument, "pre-record \(prerecordSeconds) s is outside 0…60 s")
        }
        guard splitMinutes >= 0, splitMinutes <= 24 * 60 else {
            throw VideoError(.invalidArgument, "split \(splitMinutes) minutes is outside 0…1440 minutes")
        }
        guard queueCapacityFrames >= 1, queueCapacityFrames <= 256 else {
            throw VideoError(.invalidArgument, "queue capacity \(queueCapacityFrames) is outside 1…256 frames")
        }
        guard keyframeIntervalSeconds > 0, keyframeIntervalSeconds <= 10 else {
            throw VideoError(.invalidArgument, "keyframe interval \(keyframeIntervalSeconds) s is outside (0, 10]")
        }
    }
}
