import Hardware

/// A controller's streams: what they are for (as handed to `startStreaming`), how many regular
/// requests to keep queued, the video stream asked for, and what the camera configured and
/// allocated at the last start. It answers the buffer sums a bracket and the request loop need;
/// `CameraController` owns one and is its one writer.
struct StreamLayout {
    /// What the streams are for, as handed to the last `startStreaming`.
    var configuration = StreamingConfiguration()
    /// Requests kept queued while streaming (libcamera's pipeline needs a few; each adds a frame of
    /// control latency).
    var requestsInFlight = 4
    /// The recording's stream, asked for with `requestVideoStream`.
    var videoStreamRequest: VideoStreamRequest?
    /// Buffers the camera allocated per stream at the last start (a pipeline may give fewer than asked).
    private(set) var allocatedBuffers: [StreamRole: Int] = [:]
    /// The video stream the camera configured at the last start (YUV420), or nil.
    private(set) var videoStream: StreamConfiguration?
    /// Why a video stream that was asked for is not there, or nil.
    private(set) var videoStreamNote: String?
    /// The processed stream's size at the last start.
    private(set) var processedStreamSize: PixelSize?

    /// The processed stream role: viewfinder for preview, stillCapture once captures want full stills.
    var processedRole: StreamRole { configuration.processedRole }
    /// Buffers allocated per stream for bracket requests, beyond the regular requests'.
    var bracketBuffersPerStream: Int { configuration.bracketBuffersPerStream }

    /// Regular requests actually kept in flight: `requestsInFlight`, fewer when the camera gave
    /// fewer buffers than asked, so that `bracketBuffersPerStream` stay free, but never fewer than
    /// `CameraController.minimumRegularRequests` (nor than the buffers allow).
    var regularRequestLimit: Int {
        guard let processed = allocatedBuffers[processedRole] else { return max(requestsInFlight, 1) }
        let floor = min(CameraController.minimumRegularRequests, requestsInFlight, processed)
        return max(floor, 1, min(requestsInFlight, processed - bracketBuffersPerStream))
    }

    /// True while regular requests fill the raw stream too: a still stream beside a video stream,
    /// on a format with a raw stream (`formatHasRaw`).
    func regularRequestsFillRaw(formatHasRaw: Bool) -> Bool {
        videoStream != nil && processedRole == .stillCapture && formatHasRaw
    }

    /// Buffers of the bracket's streams not used by regular requests (the fewest over the
    /// processed and raw streams).
    func bracketBuffersAvailable(formatHasRaw: Bool) -> Int {
        let processed = (allocatedBuffers[processedRole] ?? (requestsInFlight + bracketBuffersPerStream)) - regularRequestLimit
        let raw = allocatedBuffers[.raw].map { $0 - (regularRequestsFillRaw(formatHasRaw: formatHasRaw) ? regularRequestLimit : 0) }
        return max(0, min(processed, raw ?? processed))
    }

    /// The streams a regular request fills: the processed one, and with a video stream the video
    /// (and the raw stream while `regularRequestsFillRaw`).
    func regularRoles(formatHasRaw: Bool) -> [StreamRole] {
        videoStream == nil ? [processedRole]
            : [processedRole, .videoRecording] + (regularRequestsFillRaw(formatHasRaw: formatHasRaw) ? [.raw] : [])
    }

    /// The processed stream (at `size`) and the raw stream at the format's sensor mode, each with
    /// room for the regular requests that fill it and the bracket's buffers.
    func streams(for format: CameraFormat, processed size: PixelSize) -> [StreamConfiguration] {
        var streams = [StreamConfiguration(role: processedRole, pixelFormat: format.pixelFormat, size: size,
                                           bufferCount: max(4, requestsInFlight + bracketBuffersPerStream))]
        if let raw = format.rawPixelFormat {
            // Beside a video stream regular requests may fill it too (`regularRequestsFillRaw`).
            let regular = videoStreamRequest != nil && processedRole == .stillCapture ? requestsInFlight : 0
            streams.append(StreamConfiguration(role: .raw, pixelFormat: raw, size: format.sensorModeSize,
                                               bufferCount: max(4, regular + bracketBuffersPerStream)))
        }
        return streams
    }

    /// The recording stream's configuration to ask for, when a video stream is wanted.
    func videoStreamConfiguration(for format: CameraFormat) -> StreamConfiguration? {
        guard let request = videoStreamRequest else { return nil }
        return StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420,
                                   size: CameraController.videoSize(for: format.size, within: request.maximumSize),
                                   bufferCount: max(4, requestsInFlight + bracketBuffersPerStream))  // brackets fill it too
    }

    /// A configuration is being tried: no video stream (nor a note why not) until one is given.
    mutating func configuring() {
        videoStream = nil
        videoStreamNote = nil
    }

    /// The camera gave the video stream.
    mutating func videoConfigured(_ given: StreamConfiguration) {
        videoStream = given
    }

    /// The camera refused the video stream, for `note`.
    mutating func videoRefused(note: String) {
        videoStreamNote = note
    }

    /// Streaming starts with `configured` (the camera's answer to `asked`): the buffers it gave
    /// (what was asked where it does not say) and the processed stream's size.
    mutating func started(asked: [StreamConfiguration], configured: [StreamConfiguration], formatSize: PixelSize) {
        var allocated: [StreamRole: Int] = [:]
        for (asked, given) in zip(asked, configured) { allocated[asked.role] = given.bufferCount > 0 ? given.bufferCount : asked.bufferCount }
        allocatedBuffers = allocated
        processedStreamSize = configured.first?.size ?? formatSize
    }

    /// Streaming stopped: nothing is allocated or configured until the next start.
    mutating func stopped() {
        allocatedBuffers = [:]
        videoStream = nil
        processedStreamSize = nil
    }
}
