import Hardware

// The controller's streams, requests and latest frames as its callers read them: each forwards to
// the one value that owns it (`StreamLayout`, `StreamingRun`, `LatestFrames`).
extension CameraController {
    // MARK: Streams

    /// Requests kept queued while streaming (libcamera's pipeline needs a few; each adds a frame of
    /// control latency).
    public var requestsInFlight: Int {
        get { layout.requestsInFlight }
        set { layout.requestsInFlight = newValue }
    }

    /// What the streams are for, as handed to the last `startStreaming` (its one writer).
    public var streaming: StreamingConfiguration {
        layout.configuration
    }

    /// The processed stream role: viewfinder for preview, stillCapture once captures want full stills.
    public var processedRole: StreamRole {
        layout.processedRole
    }

    /// Buffers allocated per stream, beyond the `requestsInFlight` of the processed stream, for
    /// bracket requests (a request needs a free buffer in each of its streams).
    public var bracketBuffersPerStream: Int {
        layout.bracketBuffersPerStream
    }

    /// Buffers the camera allocated per stream at the last `startStreaming` (a pipeline may give
    /// fewer than asked: libcamera's vimc always gives 4).
    public var allocatedBuffers: [StreamRole: Int] {
        layout.allocatedBuffers
    }

    /// Regular requests actually kept in flight: `requestsInFlight`, fewer when the camera gave
    /// fewer buffers than asked, so that `bracketBuffersPerStream` stay free, but never fewer than
    /// `minimumRegularRequests` (nor than the buffers allow).
    public var regularRequestLimit: Int {
        layout.regularRequestLimit
    }

    /// Buffers of the bracket's streams not used by regular requests (the fewest over the
    /// processed and raw streams): what bracket requests can have in flight, before viewers hold any.
    public var bracketBuffersAvailable: Int {
        layout.bracketBuffersAvailable(formatHasRaw: activeFormat.format.rawPixelFormat != nil)
    }

    /// The streams a capture's request fills unless told otherwise: the processed stream, and the
    /// raw stream where the format has one.
    public var captureRoles: [StreamRole] {
        [processedRole] + (activeFormat.format.rawPixelFormat == nil ? [] : [.raw])
    }

    /// True while regular requests fill the raw stream too: a still stream beside a video stream, so
    /// any frame of the recording can be a capture's still, DNG included (zero shutter lag, as
    /// picamera2's `capture_request` during a recording).
    public var regularRequestsFillRaw: Bool {
        layout.regularRequestsFillRaw(formatHasRaw: activeFormat.format.rawPixelFormat != nil)
    }

    /// The recording's stream, asked for with `requestVideoStream` (CameraController+Video.swift).
    public var videoStreamRequest: VideoStreamRequest? {
        layout.videoStreamRequest
    }

    /// The video stream the camera configured at the last `startStreaming` (YUV420), or nil.
    public var videoStream: StreamConfiguration? {
        layout.videoStream
    }

    /// Why a video stream that was asked for is not there (the camera refused a second processed
    /// stream, or offered no YUV420), or nil.
    public var videoStreamNote: String? {
        layout.videoStreamNote
    }

    /// The processed stream's size at the last `startStreaming`: the format's output, or its full
    /// still while the processed stream is a still stream (`preferredProcessedSize`).
    public var processedStreamSize: PixelSize? {
        layout.processedStreamSize
    }

    // MARK: Requests

    /// True between `startStreaming` and `stopStreaming` (or a disconnect).
    public var isStreaming: Bool {
        run.isStreaming
    }

    /// Counts `startStreaming`s: a bracket started on one generation must not go on in the next
    /// (another format, other buffers).
    public var streamingGeneration: Int {
        run.generation
    }

    /// While true, completed regular requests are not replaced, so their buffers come free for
    /// bracket requests. The controller is the one scheduler of requests: it holds while any
    /// `RegularRequestHold` taken on this streaming run is in force (see `holdRegularRequests`).
    public var holdsRegularRequests: Bool {
        run.holdsRegularRequests
    }

    /// Cookie of the most recent request handed to the device (0 before any): settings changed now
    /// ride on the next one, `lastQueuedCookie + 1`.
    public var lastQueuedCookie: UInt64 {
        run.lastQueuedCookie
    }

    // MARK: Frames

    /// The latest completed frame's state (its metadata, decoded).
    public var latest: FrameState? {
        frames.latest
    }

    /// The time between the last two frames the camera delivered, per sensor frame, µs (nil before
    /// two frames). A camera can run slower than its format says (vimc under emulation, a loaded
    /// host): waits sized in frames use the slower of the two.
    public var observedFrameIntervalMicroseconds: Int64? {
        frames.observedFrameIntervalMicroseconds
    }

    /// The latest regular frame's state: what AE (or the current settings) chose, never a bracket
    /// step's own exposure. Brackets meter from it, so back-to-back brackets do not compound.
    public var latestRegular: FrameState? {
        frames.latestRegular
    }

    /// The latest completed regular request, with its buffers.
    public var latestRequest: CompletedRequest? {
        frames.latestRequest
    }
}
