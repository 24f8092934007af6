import Hardware

/// What recording asks of the camera: a YUV420 stream (role VideoRecording) beside the processed
/// one, and a fixed frame rate while it records.
public struct VideoStreamRequest: Equatable, Sendable {
    /// The largest video size: the active format's output is fitted inside it (aspect kept, even
    /// sides). 1920×1080 by default, the Pi 4's H.264 encoder limit.
    public var maximumSize: PixelSize
    /// The rate to record at (FrameDurationLimits min = max), capped by the format's fastest; nil
    /// keeps the format's own range.
    public var framesPerSecond: Double?

    public init(maximumSize: PixelSize = PixelSize(width: 1920, height: 1080), framesPerSecond: Double? = nil) {
        self.maximumSize = maximumSize; self.framesPerSecond = framesPerSecond
    }
}

extension CameraController {
    /// Asks for (or, with nil, gives up) the video stream. A change of streams restarts streaming
    /// when it is on (stop, configure, start: a few frames are lost, as on any reconfiguration);
    /// a change of rate alone does not. While a viewer still holds a frame of the old configuration
    /// the camera refuses to reconfigure: streaming then comes back as soon as it lets go (tried
    /// every frame time, as after a refused format). Read `videoStream` once frames flow: a camera
    /// that cannot produce a second processed stream (vimc) streams without it, and recording then
    /// converts the processed stream (`videoStreamNote` says so).
    public func requestVideoStream(_ request: VideoStreamRequest?) throws {
        let streamsChange = (request == nil) != (videoStreamRequest == nil)
            || request?.maximumSize != videoStreamRequest?.maximumSize
        layout.videoStreamRequest = request
        guard streamsChange, isStreaming else { return }
        stopStreaming()
        do {
            try startStreaming()
        } catch let error as HardwareError where error.kind == .busy {
            restartStreaming(attemptsLeft: Self.restartAttempts)
        }
    }

    /// The video stream's size for an output of `size`: fitted inside `maximum`, both sides even.
    static func videoSize(for size: PixelSize, within maximum: PixelSize) -> PixelSize {
        guard size.width > maximum.width || size.height > maximum.height else { return size }
        let scale = min(Double(maximum.width) / Double(size.width), Double(maximum.height) / Double(size.height))
        return PixelSize(width: Int(Double(size.width) * scale) & ~1, height: Int(Double(size.height) * scale) & ~1)
    }

    /// The minimum and maximum frame durations to send, µs: the recording's fixed rate while one is
    /// asked for (never faster than the format allows), else the active format's range.
    public var frameDurationRangeMicroseconds: (minimum: Int64, maximum: Int64) {
        // The sensor's HDR mode is slower than the format's own mode (30 fps on the IMX708).
        let fastest = max(activeFormat.format.minimumFrameDurationMicroseconds, sensorHDRMinimumFrameDurationMicroseconds ?? 0)
        if let fixed = frameSyncFrameMicroseconds { return (max(fixed, fastest), max(fixed, fastest)) }
        guard let fps = videoStreamRequest?.framesPerSecond, fps > 0 else {
            let maximum = max(activeFormat.maximumFrameDurationMicroseconds, fastest)
            return (max(activeFormat.minimumFrameDurationMicroseconds, fastest), maximum)
        }
        let duration = max(Int64((1e6 / fps).rounded()), fastest)
        return (duration, duration)
    }
}
