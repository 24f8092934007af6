import Hardware

/// Owns one `CameraDevice` and runs it: configure the active format, stream with N requests in
/// flight (re-queued as they complete), carry the current focus/exposure/white-balance settings in
/// every request as a `ControlList`, and read the state back from each completed request's metadata.
///
/// Loop-confined: create and call it on its event loop only (not Sendable). Device events are handed
/// to the loop with `execute`.
public final class CameraController {
    /// The camera it drives (libcamera's or the simulated one).
    public let device: any CameraDevice
    /// The sensor's database entry, or `SensorDescription.unknown`.
    public let sensor: SensorDescription
    /// The loop it is confined to and posts device events to.
    public let loop: any EventLoop
    /// The format table of this camera (`FormatTable.formats`).
    public let formats: [CameraFormat]
    /// Temperature/tint ↔ gains for this sensor.
    public let whiteBalanceModel: WhiteBalanceModel
    /// The active format and frame duration limits; the first format's full range until selected.
    public private(set) var activeFormat: FormatSelection
    /// Requests kept queued while streaming (libcamera's pipeline needs a few; each adds a frame of
    /// control latency).
    public var requestsInFlight = 4
    /// What the streams are for, as handed to the last `startStreaming` (its one writer).
    public private(set) var streaming = StreamingConfiguration()
    /// Buffers allocated per stream, beyond the `requestsInFlight` of the processed stream, for
    /// bracket requests (a request needs a free buffer in each of its streams).
    public var bracketBuffersPerStream: Int { streaming.bracketBuffersPerStream }
    /// Buffers the camera allocated per stream at the last `startStreaming` (a pipeline may give
    /// fewer than asked: libcamera's vimc always gives 4).
    public private(set) var allocatedBuffers: [StreamRole: Int] = [:]
    /// Regular requests actually kept in flight: `requestsInFlight`, fewer when the camera gave
    /// fewer buffers than asked, so that `bracketBuffersPerStream` stay free, but never fewer than
    /// `minimumRegularRequests` (nor than the buffers allow).
    public var regularRequestLimit: Int {
        guard let processed = allocatedBuffers[processedRole] else { return max(requestsInFlight, 1) }
        let floor = min(Self.minimumRegularRequests, requestsInFlight, processed)
        return max(floor, 1, min(requestsInFlight, processed - bracketBuffersPerStream))
    }
    /// V4L2 capture drivers start streaming only once this many buffers are queued (videobuf2's
    /// `min_buffers_needed`: 2 in vimc's capture node); with fewer, no frame ever comes.
    public static let minimumRegularRequests = 2
    /// Buffers of the bracket's streams not used by regular requests (the fewest over the
    /// processed and raw streams): what bracket requests can have in flight, before viewers hold any.
    public var bracketBuffersAvailable: Int {
        let processed = (allocatedBuffers[processedRole] ?? (requestsInFlight + bracketBuffersPerStream)) - regularRequestLimit
        let raw = allocatedBuffers[.raw].map { $0 - (regularRequestsFillRaw ? regularRequestLimit : 0) }
        return max(0, min(processed, raw ?? processed))
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
        videoStream != nil && processedRole == .stillCapture && activeFormat.format.rawPixelFormat != nil
    }
    /// While true, completed regular requests are not replaced, so their buffers come free for
    /// bracket requests. The controller is the one scheduler of requests: it holds while any
    /// `RegularRequestHold` taken on this streaming run is in force (see `holdRegularRequests`).
    public var holdsRegularRequests: Bool { holds > 0 }
    /// Holds in force on this streaming run.
    private var holds = 0
    /// The processed stream role: viewfinder for preview, stillCapture once captures want full stills.
    public var processedRole: StreamRole { streaming.processedRole }
    /// True between `startStreaming` and `stopStreaming` (or a disconnect).
    public private(set) var isStreaming = false
    /// The recording's stream, asked for with `requestVideoStream` (CameraController+Video.swift).
    public internal(set) var videoStreamRequest: VideoStreamRequest?
    /// The video stream the camera configured at the last `startStreaming` (YUV420), or nil.
    public private(set) var videoStream: StreamConfiguration?
    /// Why a video stream that was asked for is not there (the camera refused a second processed
    /// stream, or offered no YUV420), or nil.
    public private(set) var videoStreamNote: String?
    /// The processed stream's size at the last `startStreaming`: the format's output, or its full
    /// still while the processed stream is a still stream (`preferredProcessedSize`).
    public private(set) var processedStreamSize: PixelSize?

    /// The latest completed frame's state (its metadata, decoded).
    public private(set) var latest: FrameState? {
        didSet {
            guard let old = oldValue, let new = latest, new.sequence > old.sequence else { return }
            let elapsed = new.sensorTimestamp.nanoseconds - old.sensorTimestamp.nanoseconds
            if elapsed > 0 { observedFrameIntervalMicroseconds = elapsed / 1_000 / Int64(new.sequence - old.sequence) }
        }
    }
    /// The time between the last two frames the camera delivered, per sensor frame, µs (nil before
    /// two frames). A camera can run slower than its format says (vimc under emulation, a loaded
    /// host): waits sized in frames use the slower of the two.
    public private(set) var observedFrameIntervalMicroseconds: Int64?
    /// The latest regular frame's state: what AE (or the current settings) chose, never a bracket
    /// step's own exposure. Brackets meter from it, so back-to-back brackets do not compound.
    public private(set) var latestRegular: FrameState?
    /// The latest completed regular request, with its buffers.
    public private(set) var latestRequest: CompletedRequest?
    /// Called on the loop for every completed regular frame (after `latest` is updated).
    public var onFrame: ((CompletedRequest, FrameState) -> Void)?
    /// Called on the loop for every complete frame, regular or a bracket's, in the order they
    /// complete (before `onFrame` or the bracket's completion). While the video stream is
    /// configured every request fills it, so recording takes its frames from here and a still or
    /// bracket during a recording leaves no gap in the video.
    public var onEveryFrame: ((CompletedRequest) -> Void)?
    /// The controls each regular request in flight was queued with (`regularRequestHadCurrentControls`).
    private var regularRequestControls: [UInt64: ControlList] = [:]
    /// Called on the loop for every complete regular frame while a bracket may take one as its
    /// still (`BracketEngine`'s zero shutter lag); set and cleared by that bracket.
    public var onRegularFrameForBracket: ((CompletedRequest) -> Void)?
    /// The error that stopped streaming on its own (a failed re-queue), if any.
    public private(set) var lastError: (any Error)?
    /// Controls added to every regular (streaming) request, not to bracket requests: the video
    /// stabilization crop (ScalerCrop) rides here.
    public var streamingControls: ControlList = [:]
    /// Called on the loop when the camera goes away.
    public var onDisconnect: (() -> Void)?

    // Settings (see CameraController+Controls.swift).
    /// Current focus mode (set with `setFocus`).
    public internal(set) var focusMode: FocusMode
    /// Current exposure mode (set with `setExposure`).
    public internal(set) var exposureMode: ExposureMode = .auto
    /// Current exposure bias, EV (set with `setExposureBias`).
    public internal(set) var exposureBiasEV = 0.0
    /// Current white-balance mode (set with `setWhiteBalance`).
    public internal(set) var whiteBalanceMode: WhiteBalanceMode = .auto
    /// Exposure held by `.locked` (µs, analogue gain) and the bias when it was locked.
    var lockedExposure: (durationMicroseconds: Int, gain: Double, biasEV: Double)?
    var lockedGains: WhiteBalanceGains?
    /// Digital zoom factor (set with `setZoom`, CameraController+Zoom.swift); 1 = the whole field.
    public internal(set) var zoomFactor = 1.0
    var pendingAfTrigger = false

    /// Frame sync's state machine: what `fleet.sync` asks, the session, what a client hears
    /// (`setFrameSync`, CameraController+FrameSync.swift).
    var sync = FrameSyncState()
    /// `fleet.sync` as asked.
    public var frameSync: FrameSyncRequest { sync.request }
    /// Where a client listens to the server's sync datagrams to measure its own alignment; nil: not measured.
    let frameSyncListener: (any FrameSyncChannelFactory)?

    private var nextCookie: UInt64 = 1
    /// Cookie of the most recent request handed to the device (0 before any): settings changed now
    /// ride on the next one, `lastQueuedCookie + 1`.
    public var lastQueuedCookie: UInt64 { nextCookie - 1 }
    private var regularInFlight: Set<UInt64> = []
    private var explicitRequests: [UInt64: (CompletedRequest) -> Void] = [:]

    /// Video HDR's HdrMode, sent on every request where the camera lists HdrMode (Off when nil);
    /// set with `setHdrMode` (CameraController+HDR.swift).
    public internal(set) var hdrMode: HdrModeValue?
    /// True when the device was opened with the sensor's own HDR on (`SensorHDRSwitch`): its one
    /// mode is the HDR mode, and every frame is HDR.
    public let sensorHDROn: Bool

    /// A controller for an opened device. `sensor` is the database entry (or `.unknown`).
    /// `sensorHDRSwitchable`: the camera manager can switch the sensor's own HDR (the format table
    /// lists it); `sensorHDROn`: the device was opened with it on.
    public init(device: any CameraDevice, sensor: SensorDescription, loop: any EventLoop,
                sensorHDRSwitchable: Bool = false, sensorHDROn: Bool = false,
                frameSyncListener: (any FrameSyncChannelFactory)? = nil) throws {
        self.device = device
        self.frameSyncListener = frameSyncListener
        self.sensor = sensor
        self.loop = loop
        self.sensorHDROn = sensorHDROn
        formats = FormatTable.formats(sensor: sensor, controlInfo: device.controlInfo, sensorHDRSwitchable: sensorHDRSwitchable)
        guard let first = formats.first else {
            throw CameraError(.unsupported, "camera \(device.info.id) (\(sensor.model)): no formats (the sensor database lists no modes)")
        }
        activeFormat = FormatSelection(format: first)
        whiteBalanceModel = WhiteBalanceModel(calibration: sensor.colourCalibration)
        focusMode = .locked(lensPositionDioptres: sensor.lensPositionDefaultDioptres ?? 0)
        let bound = WeakLoopBound(self, loop: loop)  // weak: the device keeps its handler, the controller keeps the device
        device.setEventHandler { event in
            loop.execute { bound.value?.handle(event) }
        }
    }

    /// Makes `choice` (index or "WxH@fps") the active format; restarts streaming if it was on.
    public func selectFormat(_ choice: String) throws {
        try apply(FormatTable.select(choice, from: formats))
    }

    /// Makes a selection active; restarts streaming if it was on.
    /// A custom exposure must fit the new format's ranges, or the selection throws `.outOfRange`.
    public func apply(_ selection: FormatSelection) throws {
        if case .custom(let duration, let iso) = exposureMode {
            let f = selection.format
            guard (f.minimumExposureMicroseconds...f.maximumExposureMicroseconds).contains(duration),
                  iso >= f.minimumISO - 1e-9, iso <= f.maximumISO + 1e-9 else {
                throw CameraError(.outOfRange, "format \(f.label): the custom exposure \(duration) us ISO \(iso) is outside its ranges; change the exposure first")
            }
        }
        if zoomFactor > 1, zoomFactor > (selection.format.maximumZoom ?? 1) + 1e-9 {
            throw CameraError(.outOfRange, "format \(selection.format.label): zoom \(FormatTable.number(zoomFactor, digits: 2))x is beyond its maximum \(FormatTable.number(selection.format.maximumZoom ?? 1, digits: 2))x; set zoom 1 first")
        }
        let wasStreaming = isStreaming, previous = activeFormat
        if wasStreaming { stopStreaming() }
        activeFormat = selection
        guard wasStreaming else { return }
        do {
            try startStreaming()
        } catch {
            // All or nothing: configure was refused (busy while a viewer still holds a frame of the
            // old configuration), so the previous format comes back and streams again.
            activeFormat = previous
            restartStreaming(attemptsLeft: Self.restartAttempts)
            let kind: CameraError.Kind = (error as? HardwareError)?.kind == .busy ? .notReady : .unsupported
            throw CameraError(kind, "format \(selection.format.label): the camera refused it (\(error)); the format stays \(previous.format.label)")
        }
    }

    /// Tries to restart streaming after a refused reconfiguration, every frame time while the camera
    /// answers busy (a viewer has not yet given back its frame); gives up after `restartAttempts`
    /// and reports through `onStreamingError`.
    func restartStreaming(attemptsLeft: Int) {
        do {
            try startStreaming()
        } catch let error as HardwareError where error.kind == .busy && attemptsLeft > 1 {
            let bound = LoopBound(self, loop: loop)
            loop.schedule(after: .microseconds(activeFormat.minimumFrameDurationMicroseconds)) {
                bound.value.restartStreaming(attemptsLeft: attemptsLeft - 1)
            }
        } catch {
            lastError = error
            onStreamingError?(error)
        }
    }

    /// Frame times a refused restart is retried for.
    static let restartAttempts = 100

    /// Configures the processed stream plus a raw stream at the format's sensor mode (which pins the
    /// mode, as rpicam-apps' --mode does), starts, and queues `requestsInFlight`. The processed
    /// stream is the format's size, or, as a still stream, the format's `highResolutionStill`
    /// (the video, when one is wanted, is then the smaller processed stream at the format's size).
    /// `configuration`: what the streams are for (nil keeps the one in force, as a restart after a
    /// format change does).
    public func startStreaming(_ configuration: StreamingConfiguration? = nil) throws {
        guard !isStreaming else { return }
        if let configuration { streaming = configuration }
        sync.newRun()
        let format = activeFormat.format
        let (status, streams, configured) = try configureStreams(for: format)
        if status == .invalid {
            throw CameraError(.unsupported, "camera \(device.info.id): configuration \(format.label) is invalid")
        }
        var allocated: [StreamRole: Int] = [:]
        for (asked, given) in zip(streams, configured) { allocated[asked.role] = given.bufferCount > 0 ? given.bufferCount : asked.bufferCount }
        allocatedBuffers = allocated
        processedStreamSize = configured.first?.size ?? format.size
        try device.start(controls: supported(controlsForNextRequest()))
        isStreaming = true
        streamingGeneration += 1
        holds = 0  // a hold taken before this run lapses with its generation
        for _ in 0..<regularRequestLimit { try queueRegularRequest() }
    }

    /// The processed stream's size to ask for: a still stream gives the format's full still
    /// (`highResolutionStill`, the sensor mode) where that is larger than its output; else the output.
    public func preferredProcessedSize(for format: CameraFormat) -> PixelSize {
        let still = format.highResolutionStill
        guard processedRole == .stillCapture, format.rawPixelFormat != nil,
              still.width >= format.size.width, still.height >= format.size.height else { return format.size }
        return still
    }

    /// Configures the processed stream (at `preferredProcessedSize`), the raw stream and the video
    /// stream when one is wanted. A camera that does not take the still size as asked (adjusts it,
    /// refuses it, or then has no room for the video stream) is configured at the format's size.
    private func configureStreams(for format: CameraFormat) throws
        -> (status: ConfigurationStatus, asked: [StreamConfiguration], streams: [StreamConfiguration]) {
        func streams(processed size: PixelSize) -> [StreamConfiguration] {
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
        let video = videoStreamConfiguration(for: format)
        let preferred = preferredProcessedSize(for: format)
        if preferred != format.size {
            let asked = streams(processed: preferred)
            let (status, configured) = try configure(asked, video: video)
            if status != .invalid, configured.first?.size == preferred, video == nil || videoStream != nil {
                return (status, asked, configured)
            }
        }
        let asked = streams(processed: format.size)
        let (status, configured) = try configure(asked, video: video)
        return (status, asked, configured)
    }

    /// Configures `streams` plus the video stream when one is wanted. A camera that refuses the
    /// video stream, or adjusts it away from YUV420, is configured without it (and `videoStreamNote`
    /// says why): recording then takes the processed stream.
    private func configure(_ streams: [StreamConfiguration], video: StreamConfiguration?)
        throws -> (status: ConfigurationStatus, streams: [StreamConfiguration]) {
        videoStream = nil
        videoStreamNote = nil
        guard let video else { return try device.configure(streams) }
        let refusal: String
        do {
            let (status, configured) = try device.configure(streams + [video])
            if status != .invalid, configured.count == streams.count + 1, let given = configured.last,
               given.role == .videoRecording, given.pixelFormat == .yuv420 {
                videoStream = given
                return (status, Array(configured.dropLast()))
            }
            refusal = status == .invalid ? "the configuration was invalid" : "it offered \(configured.last?.pixelFormat.rawValue ?? "nothing") instead of YUV420"
        } catch let error as HardwareError where error.kind == .busy {
            throw error  // not a refusal of the stream: a viewer still holds a frame (retried by the caller)
        } catch {
            refusal = "\(error)"
        }
        let result = try device.configure(streams)
        videoStreamNote = "no separate video stream (\(refusal)); recording converts the \(processedRole) stream"
        return result
    }

    /// Counts `startStreaming`s: a bracket started on one generation must not go on in the next
    /// (another format, other buffers).
    public private(set) var streamingGeneration = 0

    /// Stops streaming; requests in flight complete as cancelled.
    public func stopStreaming() {
        guard isStreaming else { return }
        isStreaming = false
        device.stop()
        // The requests in flight complete cancelled; the next start begins afresh.
        regularInFlight = []
        regularRequestControls = [:]
        holds = 0  // holds of the old run lapse (their release is ignored: another generation)
        allocatedBuffers = [:]
        videoStream = nil
        processedStreamSize = nil
        // Buffers still referenced block the next configure (libcamera refuses to reconfigure
        // while the caller holds frame buffers): let go of the last frame and tell the viewers.
        latestRequest = nil
        onStreamingStopped?()
    }

    /// Lets go of the device for good: streaming stops, the device's events no longer reach this
    /// controller (`setEventHandler` with a handler that drops them, which also breaks the
    /// device → handler → controller cycle) and every hook is cleared, so the device, and the camera
    /// it holds open, goes away with the last reference to it (the frames already lent go back as
    /// their holders drop them).
    public func close() {
        stopStreaming()
        device.setEventHandler { _ in }
        onFrame = nil; onEveryFrame = nil; onRegularFrameForBracket = nil
        onDisconnect = nil; onStreamingError = nil; onStreamingStopped = nil
    }

    /// Asks the controller to stop replacing regular requests until the returned hold is released
    /// (a bracket that needs its requests back to back, or waits for a free buffer). Holds add up;
    /// the controller refills regular requests when the last is released, and a restart of
    /// streaming ends every hold.
    public func holdRegularRequests() -> RegularRequestHold {
        holds += 1
        return RegularRequestHold(controller: self, generation: streamingGeneration)
    }

    /// Ends a hold taken with `holdRegularRequests` (once; on the run it was taken on).
    fileprivate func release(_ hold: RegularRequestHold) {
        guard hold.generation == streamingGeneration, holds > 0 else { return }
        holds -= 1
        if holds == 0 { refillRegularRequests() }
    }

    /// Called on the loop after streaming stops: whoever holds frames (the viewfinder) drops them.
    public var onStreamingStopped: (() -> Void)?

    /// Bracket hook: queues one request with the current settings overridden by `controls` (e.g.
    /// AeEnable false, ExposureTime, AnalogueGain), filling `roles` (default: processed + raw).
    /// `completion` runs on the loop with the completed request (check `isComplete`); it does not
    /// reach `onFrame` and is not re-queued. Returns the request's cookie.
    @discardableResult
    public func queueRequest(controls: ControlList, roles: [StreamRole]? = nil,
                             completion: @escaping (CompletedRequest) -> Void) throws -> UInt64 {
        guard isStreaming else { throw CameraError(.notReady, "camera \(device.info.id): queueRequest while not streaming") }
        let cookie = takeCookie()
        var merged = controlsForNextRequest(consumeTrigger: false)
        for (name, value) in controls { merged[name] = value }
        var wanted = roles ?? captureRoles
        if videoStream != nil, !wanted.contains(.videoRecording) { wanted.append(.videoRecording) }  // the video goes on
        explicitRequests[cookie] = completion
        do {
            try device.queueRequest(CaptureRequest(cookie: cookie, controls: supported(merged), roles: wanted))
        } catch {
            explicitRequests[cookie] = nil
            throw error
        }
        return cookie
    }

    private func takeCookie() -> UInt64 {
        defer { nextCookie += 1 }
        return nextCookie
    }

    /// Keeps `regularRequestLimit` regular requests queued (none while `holdsRegularRequests`). When every buffer is held (by a viewer or a
    /// bracket) the camera answers busy: streaming goes on with fewer requests and tries again at
    /// the next completion, or after a frame time when nothing is in flight. Any other error stops
    /// streaming and is reported through `onStreamingError`.
    private func refillRegularRequests() {
        while isStreaming && !holdsRegularRequests && regularInFlight.count < regularRequestLimit {
            do {
                try queueRegularRequest()
            } catch let error as HardwareError where error.kind == .busy {
                if regularInFlight.isEmpty && explicitRequests.isEmpty {
                    let bound = LoopBound(self, loop: loop)
                    loop.schedule(after: .microseconds(activeFormat.minimumFrameDurationMicroseconds)) {
                        bound.value.refillRegularRequests()
                    }
                }
                return
            } catch {
                lastError = error
                stopStreaming()
                onStreamingError?(error)
                return
            }
        }
    }

    /// Called on the loop when streaming stopped on its own (a request the camera refused).
    public var onStreamingError: ((any Error) -> Void)?

    /// The controls this camera has now (its current `ControlInfoMap`, which `configure` may change:
    /// `CameraDevice.configuredControlInfo`); the rest are left out, so a camera without 3A (vimc, a
    /// sensor without AF) streams instead of refusing every request.
    private func supported(_ controls: ControlList) -> ControlList {
        let current = device.configuredControlInfo
        return controls.filter { current[$0.key] != nil }
    }

    /// True when regular request `cookie` (in flight or completing now) was queued with the
    /// controls a regular request would carry now (the settings, zoom and streaming controls in
    /// force): its frame was made with the settings in force, not with ones from before a change.
    public func regularRequestHadCurrentControls(_ cookie: UInt64) -> Bool {
        guard let queued = regularRequestControls[cookie] else { return false }
        var now = controlsForNextRequest(consumeTrigger: false)
        for (name, value) in streamingControls { now[name] = value }
        return supported(now) == queued
    }

    private func queueRegularRequest() throws {
        let cookie = takeCookie()
        var controls = controlsForNextRequest()
        for (name, value) in streamingControls { controls[name] = value }
        let roles = videoStream == nil ? [processedRole] : [processedRole, .videoRecording] + (regularRequestsFillRaw ? [.raw] : [])
        let sent = supported(controls)
        try device.queueRequest(CaptureRequest(cookie: cookie, controls: sent, roles: roles))
        regularRequestControls[cookie] = sent
        regularInFlight.insert(cookie)
    }

    private func handle(_ event: CameraEvent) {
        switch event {
        case .disconnected:
            isStreaming = false
            regularInFlight = []
            onDisconnect?()
        case .requestCompleted(let completed):
            if let completion = explicitRequests.removeValue(forKey: completed.cookie) {
                if completed.isComplete {
                    latest = frameState(completed)
                    onEveryFrame?(completed)
                }
                completion(completed)
                refillRegularRequests()  // its buffers are free again
                return
            }
            regularInFlight.remove(completed.cookie)
            defer { regularRequestControls[completed.cookie] = nil }
            guard completed.isComplete else { return }
            let state = frameState(completed)
            measureFrameSync(state)
            latest = state
            latestRegular = state
            latestRequest = completed
            onEveryFrame?(completed)
            onRegularFrameForBracket?(completed)
            onFrame?(completed, state)
            refillRegularRequests()
        }
    }
}

/// A bracket's claim that regular requests wait (see `CameraController.holdRegularRequests`).
/// Loop-confined like the controller.
public final class RegularRequestHold {
    private weak var controller: CameraController?
    fileprivate let generation: Int
    private var released = false

    fileprivate init(controller: CameraController, generation: Int) {
        self.controller = controller
        self.generation = generation
    }

    /// Lets regular requests flow again, unless another hold is in force. Idempotent.
    public func release() {
        guard !released else { return }
        released = true
        controller?.release(self)
    }
}
