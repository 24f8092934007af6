import Dispatch
import Hardware

/// What a recording reports to the supervisor's loop.
public enum RecordingEvent: Sendable {
    /// A file of the recording is complete (or left as written after an error), sidecar written.
    case fileClosed(VideoSidecar)
    /// The recording ended: by `stop` (error nil), or by a storage or encoder error.
    case stopped(id: String, error: VideoError?)
    /// The preferred encoder could not be used; the note says why and which one is used.
    case encoderFallback(String)
}

/// A snapshot for `status`.
public struct RecordingStatus: Sendable, Equatable {
    public enum State: String, Sendable { case idle, prerecording, recording }
    public var state: State = .idle
    public var id: String?
    /// Sensor time from the recording's first frame to its newest, stretched in slow motion.
    public var durationSeconds: Double = 0
    public var framesWritten = 0
    /// Frames lost since the recording started: queue full, camera sequence gaps, refused.
    public var droppedFrames = 0
    public var bytesWritten: Int64 = 0
    /// Bytes of encoded video held in the pre-record ring.
    public var prerecordBytes = 0
    /// The FFmpeg encoder in use, once one is open.
    public var encoder: String?
    /// libx264's preset in use, once the encoder is open (nil for other encoders).
    public var encoderPreset: String?
    public var lastError: String?
}

/// Records YUV420 camera frames into MP4 or MKV files through libavcodec and libavformat.
///
/// Narrow API for the supervisor: `configure`, `start`, `submit`, `submitMotion`, `stop`, `status`.
/// `submit` is called from the camera's thread or the loop and never blocks: it copies the frame
/// (so a lent buffer goes back to the camera at once) into a bounded `FrameInbox`, or drops and
/// records it when the encoder is behind. Encoding, muxing and file writes run on one serial
/// queue (`RecordingPipeline`); events hop to the loop through `loop.execute`. All timing comes
/// from SensorTimestamps (split, pre-record window, duration), never from a clock.
public final class RecordingService: @unchecked Sendable {
    /// Utility QoS: libdispatch on Linux gives the queue's thread a nice value just above the
    /// loop's (user-initiated had run it at −2, above the camera), and libx264's frame threads,
    /// started from it in avcodec_open2, inherit that. The loop, with its frame deadline, comes
    /// first; an encoder that falls behind drops at the inbox, counted.
    let queue = DispatchQueue(label: "tripod.video.encoder", qos: .utility)
    private let storage: any StreamingStorage & Sendable
    private let loop: any EventLoop
    private let onEvent: @Sendable (RecordingEvent) -> Void
    private let control = LockedValue(Control())
    private let shared: LockedValue<RecordingStatus>
    /// Stills noted during the recording in progress (emptied at each start; at most 4,096).
    private let stills = LockedValue<[VideoStill]>([])
    private let motionInbox = LockedValue<[IMUSample]>([])
    /// Confined to `queue` (the reason for `@unchecked Sendable`).
    private let pipeline: RecordingPipeline
    private var inbox: FrameInbox { control.withLock { $0.inbox } }

    private struct Control: Sendable {
        var settings = VideoSettings()
        var inbox = FrameInbox(capacity: VideoSettings().queueCapacityFrames)
        var recordingID: String?
        /// `stop` was called for `recordingID`: a preset measurement ending now must not open the inbox.
        var stopping = false
        /// The live stream takes the encoder's packets (`setStream`).
        var streaming = false
        /// Whether frames are wanted while not recording: a pre-record ring or the live stream.
        var wantsFramesWhileIdle: Bool { settings.prerecordSeconds > 0 || streaming }
    }

    /// Free bytes needed to start: ten seconds at the bit rate, at least 64 MiB.
    public static func requiredFreeBytes(_ settings: VideoSettings) -> Int64 {
        max(64 << 20, Int64(settings.bitrateBitsPerSecond) / 8 * 10)
    }

    /// Measures libx264's speed when a start gives the frame size (`RecordingRequest.frameSize`).
    private let speedProbe: (any EncoderSpeedProbe)?

    /// `speedProbe` measures libx264's presets at a start for `EncoderPresetChoice` (tests inject
    /// fixed speeds; nil never measures and keeps the settings' preset).
    public init(storage: any StreamingStorage & Sendable, loop: any EventLoop, speedProbe: (any EncoderSpeedProbe)? = nil,
                onEvent: @escaping @Sendable (RecordingEvent) -> Void) {
        self.storage = storage; self.loop = loop; self.onEvent = onEvent; self.speedProbe = speedProbe
        let shared = LockedValue(RecordingStatus())
        self.shared = shared
        pipeline = RecordingPipeline(storage: storage, status: shared, stills: stills, speedProbe: speedProbe,
                                     emit: { [loop, onEvent] event in loop.execute { onEvent(event) } },
                                     ended: { [control] id in
                                         control.withLock { c in
                                             guard c.recordingID == id else { return }
                                             c.recordingID = nil
                                             c.inbox.accepting = c.wantsFramesWhileIdle
                                         }
                                     })
    }

    public var status: RecordingStatus { shared.withLock { $0 } }

    /// Frames submitted and waiting for the encoder (at most `queueCapacityFrames`).
    public var queuedFrames: Int { inbox.count }

    /// Applies `settings` (validated) while not recording. With a pre-record time the encoder runs
    /// from the next frame on and keeps that much video in memory.
    public func configure(_ settings: VideoSettings) throws(VideoError) {
        try settings.validate()
        let inbox = FrameInbox(capacity: settings.queueCapacityFrames)
        let busy = control.withLock { c -> VideoError? in
            if let id = c.recordingID { return VideoError(.state, "video settings cannot change while recording \(id)") }
            c.inbox.accepting = false
            c.settings = settings
            inbox.accepting = c.wantsFramesWhileIdle
            c.inbox = inbox
            return nil
        }
        if let busy { throw busy }
        queue.async { self.pipeline.configure(settings) }
    }

    /// Starts a recording: checks the room, then on the encoder queue chooses libx264's preset
    /// (measuring its speed first when the request gives the frame size: frames are taken only
    /// once that is done; earlier ones are not the recording's, nor drops), opens the first file and writes the
    /// pre-record ring into it from its oldest keyframe.
    public func start(_ request: RecordingRequest) throws(VideoError) {
        let settings = control.withLock { $0.settings }
        let free: Int64
        do { free = try storage.freeBytes() } catch {
            throw VideoError(.storage, "\(storage.rootDescription): free space: \(error)", storageError: error as? HardwareError)
        }
        let needed = Self.requiredFreeBytes(settings)
        guard free >= needed else {
            throw VideoError(.noRoom, "\(storage.rootDescription): \(free) bytes free, a recording needs \(needed)")
        }
        let measures = RecordingPipeline.measuresAtStart(settings, request, probe: speedProbe,
                                                         streaming: control.withLock { $0.streaming })
        let busy = control.withLock { c -> VideoError? in
            if let id = c.recordingID { return VideoError(.state, "already recording \(id)") }
            c.recordingID = request.id
            c.stopping = false
            if !measures { c.inbox.accepting = true }
            return nil
        }
        if let busy { throw busy }
        shared.withLock { $0.state = .recording; $0.id = request.id; $0.lastError = nil }
        stills.withLock { $0.removeAll() }
        queue.async {
            self.pipeline.choosePreset(for: request)
            if measures { self.control.withLock { c in if c.recordingID == request.id, !c.stopping { c.inbox.accepting = true } } }
            self.pipeline.start(request, reserveBytes: needed / 2)
        }
    }

    /// Feeds the live stream with every packet from the next frame on (nil: stops feeding it). While
    /// nothing records, an encoder runs for the stream alone at `bitrateBitsPerSecond`; a recording's
    /// start replaces it with the recording's, whose packets the stream then gets.
    public func setStream(_ sink: (any EncodedVideoSink)?, bitrateBitsPerSecond: Int) {
        control.withLock { c in
            c.streaming = sink != nil
            if c.recordingID == nil { c.inbox.accepting = c.wantsFramesWhileIdle }
        }
        let tap = sink.map { StreamTap(sink: $0, bitrateBitsPerSecond: bitrateBitsPerSecond) }
        queue.async { self.pipeline.setStream(tap) }
    }

    /// Hands one frame to the encoder; never blocks. Returns false when it was dropped or not wanted.
    @discardableResult
    public func submit(_ frame: VideoFrame) -> Bool {
        let inbox = self.inbox
        switch inbox.push(frame) {
        case .queued(let needsHop):
            if needsHop { queue.async { self.drainFrames(inbox) } }
            return true
        case .dropped, .idle:
            return false
        }
    }

    /// Copies a camera buffer (YUV420) and hands it over; the buffer can be released on return.
    /// Without room in the queue nothing is copied and the frame is recorded as dropped.
    @discardableResult
    public func submit(_ buffer: FrameBuffer, sequence: UInt64, sensorTimestamp: MonotonicTime,
                       wallClockNanoseconds: Int64? = nil, exposure: FrameExposure? = nil) throws(VideoError) -> Bool {
        let inbox = self.inbox
        guard inbox.accepting else { return false }
        guard inbox.hasRoom else {
            inbox.recordDropped(sequence: sequence, at: sensorTimestamp)
            return false
        }
        var frame = try VideoFrame(copying: buffer, sequence: sequence, sensorTimestamp: sensorTimestamp)
        frame.wallClockNanoseconds = wallClockNanoseconds
        frame.exposure = exposure
        return submit(frame)
    }

    /// A completed camera request: its `role` buffer (YUV420), sequence, SensorTimestamp, and from
    /// its metadata ExposureTime, AnalogueGain, ColourTemperature and FrameWallClock (libcamera ≥ 0.3).
    /// Returns false when the request has no such buffer, was dropped or is not wanted.
    @discardableResult
    public func submit(_ request: CompletedRequest, role: StreamRole = .videoRecording) throws(VideoError) -> Bool {
        guard request.isComplete, let buffer = request.buffers[role] else { return false }
        let (wallClock, exposure) = Self.metadata(of: request)
        return try submit(buffer, sequence: request.sequence, sensorTimestamp: request.sensorTimestamp,
                          wallClockNanoseconds: wallClock, exposure: exposure)
    }

    /// A copy of a completed request's `role` buffer with its sequence, SensorTimestamp and
    /// metadata, for a caller that holds frames before submitting them (video stabilization's
    /// look-ahead); nil when the request has no such buffer.
    public static func frame(of request: CompletedRequest, role: StreamRole) throws(VideoError) -> VideoFrame? {
        guard request.isComplete, let buffer = request.buffers[role] else { return nil }
        var frame = try VideoFrame(copying: buffer, sequence: request.sequence, sensorTimestamp: request.sensorTimestamp)
        (frame.wallClockNanoseconds, frame.exposure) = metadata(of: request)
        return frame
    }

    /// FrameWallClock, and ExposureTime, AnalogueGain, ColourTemperature and HdrMode, from a request's
    /// metadata (the sensor's own HDR is the recording's, `VideoCaptureState.hdr`).
    private static func metadata(of request: CompletedRequest) -> (wallClock: Int64?, exposure: FrameExposure) {
        let m = request.metadata
        return (m[ControlName.frameWallClock]?.int64Value,
                FrameExposure(exposureTimeMicroseconds: m[ControlName.exposureTime]?.doubleValue,
                              analogueGain: m[ControlName.analogueGain]?.doubleValue,
                              colourTemperatureKelvin: m[ControlName.colourTemperature]?.doubleValue,
                              hdr: videoHDRLabel(metadata: m, sensorHDR: false)))
    }

    /// IMU samples (camera frame, CLOCK_MONOTONIC) for the Gyroflow logs; never blocks.
    public func submitMotion(_ samples: [IMUSample]) {
        guard !samples.isEmpty else { return }
        motionInbox.withLock { $0 += samples; if $0.count > 1 << 16 { $0.removeFirst($0.count - (1 << 16)) } }
    }

    /// Notes a still taken during the recording (its frame went to `submit` too): the sidecar of
    /// the file that holds its frame lists it. Ignored when not recording; never blocks for long.
    public func noteStill(_ still: VideoStill) {
        guard control.withLock({ $0.recordingID != nil }) else { return }
        stills.withLock { if $0.count < 4096 { $0.append(still) } }
    }

    /// Stops the recording: every frame queued so far is encoded, the file finalised. With a
    /// `reason` (e.g. `.sourceLost`) the recording ends as failed: the sidecar and the `stopped`
    /// event carry it.
    public func stop(reason: VideoError? = nil) throws(VideoError) {
        let inbox = control.withLock { c -> FrameInbox? in
            guard c.recordingID != nil else { return nil }
            c.stopping = true
            c.inbox.accepting = c.wantsFramesWhileIdle
            return c.inbox
        }
        guard let inbox else { throw VideoError(.state, "not recording") }
        queue.async {
            self.drainFrames(inbox)
            self.pipeline.stop(reason: reason)
        }
    }

    /// Waits until everything submitted so far is encoded and written (tests, shutdown; blocks).
    public func drain() { queue.sync {} }

    private func drainFrames(_ inbox: FrameInbox) {
        let (frames, dropped) = inbox.drain()
        pipeline.takeMotion(motionInbox.withLock { s in defer { s.removeAll() }; return s })
        pipeline.recordDropped(dropped)
        for frame in frames { pipeline.process(frame) }
    }
}
