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
    /// The streams: what they are for, the requests kept queued, the video stream, what the camera
    /// allocated (StreamLayout.swift; read through CameraController+Streams.swift).
    var layout = StreamLayout()
    /// The requests of the streaming run: cookies, regular and explicit requests in flight, holds.
    private(set) var run = StreamingRun()
    /// The latest frames delivered and the interval measured between them.
    private(set) var frames = LatestFrames()
    /// The settings every request carries (ControlSettings.swift; set through CameraController+Controls.swift).
    var settings: ControlSettings
    /// Frame sync's state machine: what `fleet.sync` asks, the session, what a client hears
    /// (`setFrameSync`, CameraController+FrameSync.swift).
    var sync = FrameSyncState()
    /// Where a client listens to the server's sync datagrams to measure its own alignment; nil: not measured.
    let frameSyncListener: (any FrameSyncChannelFactory)?
    /// True when the device was opened with the sensor's own HDR on (`SensorHDRSwitch`): its one
    /// mode is the HDR mode, and every frame is HDR.
    public let sensorHDROn: Bool

    /// The error that stopped streaming on its own (a failed re-queue), if any.
    public private(set) var lastError: (any Error)?
    /// Controls added to every regular (streaming) request, not to bracket requests: the video
    /// stabilization crop (ScalerCrop) rides here.
    public var streamingControls: ControlList = [:]

    /// The stages every complete frame goes through, in order (FramePipeline.swift).
    public let pipeline: FramePipeline
    /// Where the controller reports the camera going away and streaming stopping, on the loop.
    private let output: (CameraControllerEvent) -> Void
    /// True once `close` has let go of the device: no frame or event goes out any more.
    private var isClosed = false

    /// V4L2 capture drivers start streaming only once this many buffers are queued (videobuf2's
    /// `min_buffers_needed`: 2 in vimc's capture node); with fewer, no frame ever comes.
    public static let minimumRegularRequests = 2

    /// A controller for an opened device. `sensor` is the database entry (or `.unknown`).
    /// `sensorHDRSwitchable`: the camera manager can switch the sensor's own HDR (the format table
    /// lists it); `sensorHDROn`: the device was opened with it on. `pipeline`: the stages each
    /// complete frame goes through; `output`: the camera's lifecycle events, on the loop.
    public init(device: any CameraDevice, sensor: SensorDescription, loop: any EventLoop,
                sensorHDRSwitchable: Bool = false, sensorHDROn: Bool = false,
                frameSyncListener: (any FrameSyncChannelFactory)? = nil,
                pipeline: FramePipeline = FramePipeline(),
                output: @escaping (CameraControllerEvent) -> Void = { _ in }) throws {
        self.device = device
        self.pipeline = pipeline
        self.output = output
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
        settings = ControlSettings(focusMode: .locked(lensPositionDioptres: sensor.lensPositionDefaultDioptres ?? 0))
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
    /// and reports `.streamingFailed`.
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
            report(.streamingFailed(error))
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
        if let configuration { layout.configuration = configuration }
        sync.newRun()
        let format = activeFormat.format
        let (status, streams, configured) = try configureStreams(for: format)
        if status == .invalid {
            throw CameraError(.unsupported, "camera \(device.info.id): configuration \(format.label) is invalid")
        }
        layout.started(asked: streams, configured: configured, formatSize: format.size)
        try device.start(controls: supported(controlsForNextRequest()))
        run.started()  // a hold taken before this run lapses with its generation
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
        let video = layout.videoStreamConfiguration(for: format)
        let preferred = preferredProcessedSize(for: format)
        if preferred != format.size {
            let asked = layout.streams(for: format, processed: preferred)
            let (status, configured) = try configure(asked, video: video)
            if status != .invalid, configured.first?.size == preferred, video == nil || videoStream != nil {
                return (status, asked, configured)
            }
        }
        let asked = layout.streams(for: format, processed: format.size)
        let (status, configured) = try configure(asked, video: video)
        return (status, asked, configured)
    }

    /// Configures `streams` plus the video stream when one is wanted. A camera that refuses the
    /// video stream, or adjusts it away from YUV420, is configured without it (and `videoStreamNote`
    /// says why): recording then takes the processed stream.
    private func configure(_ streams: [StreamConfiguration], video: StreamConfiguration?)
        throws -> (status: ConfigurationStatus, streams: [StreamConfiguration]) {
        layout.configuring()
        guard let video else { return try device.configure(streams) }
        let refusal: String
        do {
            let (status, configured) = try device.configure(streams + [video])
            if status != .invalid, configured.count == streams.count + 1, let given = configured.last,
               given.role == .videoRecording, given.pixelFormat == .yuv420 {
                layout.videoConfigured(given)
                return (status, Array(configured.dropLast()))
            }
            refusal = status == .invalid ? "the configuration was invalid" : "it offered \(configured.last?.pixelFormat.rawValue ?? "nothing") instead of YUV420"
        } catch let error as HardwareError where error.kind == .busy {
            throw error  // not a refusal of the stream: a viewer still holds a frame (retried by the caller)
        } catch {
            refusal = "\(error)"
        }
        let result = try device.configure(streams)
        layout.videoRefused(note: "no separate video stream (\(refusal)); recording converts the \(processedRole) stream")
        return result
    }

    /// Stops streaming; requests in flight complete as cancelled.
    public func stopStreaming() {
        guard isStreaming else { return }
        run.stopping()
        device.stop()
        // The requests in flight complete cancelled; the next start begins afresh.
        run.stopped()  // holds of the old run lapse (their release is ignored: another generation)
        layout.stopped()
        // Buffers still referenced block the next configure (libcamera refuses to reconfigure
        // while the caller holds frame buffers): let go of the last frame and tell the viewers.
        frames.streamingStopped()
        report(.streamingStopped)
    }

    /// Lets go of the device for good: streaming stops, the device's events no longer reach this
    /// controller (`setEventHandler` with a handler that drops them, which also breaks the
    /// device → handler → controller cycle) and nothing more goes out (no frame reaches the
    /// pipeline, no event the output), so the device, and the camera it holds open, goes away with
    /// the last reference to it (the frames already lent go back as their holders drop them).
    public func close() {
        stopStreaming()
        device.setEventHandler { _ in }
        isClosed = true
    }

    /// Reports `event` unless closed.
    private func report(_ event: CameraControllerEvent) {
        guard !isClosed else { return }
        output(event)
    }

    /// Asks the controller to stop replacing regular requests until the returned hold is released
    /// (a bracket that needs its requests back to back, or waits for a free buffer). Holds add up;
    /// the controller refills regular requests when the last is released, and a restart of
    /// streaming ends every hold.
    public func holdRegularRequests() -> RegularRequestHold {
        run.hold()
    }

    /// Ends a hold taken with `holdRegularRequests`: regular requests flow again when it was the
    /// last in force. A hold already released, or taken on an earlier run, changes nothing.
    public func releaseRegularRequests(_ hold: RegularRequestHold) {
        if run.release(hold) { refillRegularRequests() }
    }

    /// Bracket hook: queues one request with the current settings overridden by `controls` (e.g.
    /// AeEnable false, ExposureTime, AnalogueGain), filling `roles` (default: processed + raw).
    /// `completion` runs on the loop with the completed request (check `isComplete`), after the
    /// pipeline's stages up to the bracket stage (which claims it) have seen a complete one; it is
    /// not re-queued. Returns the request's cookie.
    @discardableResult
    public func queueRequest(controls: ControlList, roles: [StreamRole]? = nil,
                             completion: @escaping (CompletedRequest) -> Void) throws -> UInt64 {
        guard isStreaming else { throw CameraError(.notReady, "camera \(device.info.id): queueRequest while not streaming") }
        let cookie = run.takeCookie()
        var merged = controlsForNextRequest(consumeTrigger: false)
        for (name, value) in controls { merged[name] = value }
        var wanted = roles ?? captureRoles
        if videoStream != nil, !wanted.contains(.videoRecording) { wanted.append(.videoRecording) }  // the video goes on
        run.explicitQueued(cookie, completion: completion)
        do {
            try device.queueRequest(CaptureRequest(cookie: cookie, controls: supported(merged), roles: wanted))
        } catch {
            run.explicitRefused(cookie)
            throw error
        }
        return cookie
    }

    /// Keeps `regularRequestLimit` regular requests queued (none while `holdsRegularRequests`). When every buffer is held (by a viewer or a
    /// bracket) the camera answers busy: streaming goes on with fewer requests and tries again at
    /// the next completion, or after a frame time when nothing is in flight. Any other error stops
    /// streaming and is reported as `.streamingFailed`.
    private func refillRegularRequests() {
        while isStreaming && !holdsRegularRequests && run.regularInFlight.count < regularRequestLimit {
            do {
                try queueRegularRequest()
            } catch let error as HardwareError where error.kind == .busy {
                if run.isIdle {
                    let bound = LoopBound(self, loop: loop)
                    loop.schedule(after: .microseconds(activeFormat.minimumFrameDurationMicroseconds)) {
                        bound.value.refillRegularRequests()
                    }
                }
                return
            } catch {
                lastError = error
                stopStreaming()
                report(.streamingFailed(error))
                return
            }
        }
    }

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
        guard let queued = run.controls(ofRegular: cookie) else { return false }
        var now = controlsForNextRequest(consumeTrigger: false)
        for (name, value) in streamingControls { now[name] = value }
        return supported(now) == queued
    }

    private func queueRegularRequest() throws {
        let cookie = run.takeCookie()
        var controls = controlsForNextRequest()
        for (name, value) in streamingControls { controls[name] = value }
        let roles = layout.regularRoles(formatHasRaw: activeFormat.format.rawPixelFormat != nil)
        let sent = supported(controls)
        try device.queueRequest(CaptureRequest(cookie: cookie, controls: sent, roles: roles))
        run.regularQueued(cookie, controls: sent)
    }

    private func handle(_ event: CameraEvent) {
        switch event {
        case .disconnected:
            run.disconnected()
            report(.disconnected)
        case .requestCompleted(let completed):
            if let completion = run.takeCompletion(of: completed.cookie) {
                if completed.isComplete {
                    let state = frameState(completed)
                    frames.explicitFrame(state)
                    if !isClosed { pipeline.deliver(PipelineFrame(request: completed, state: state, kind: .requested)) }
                }
                completion(completed)
                refillRegularRequests()  // its buffers are free again
                return
            }
            run.regularCompleted(completed.cookie)
            defer { run.forgetControls(of: completed.cookie) }
            guard completed.isComplete else { return }
            let state = frameState(completed)
            measureFrameSync(state)
            frames.regularFrame(state, request: completed)
            if !isClosed { pipeline.deliver(PipelineFrame(request: completed, state: state, kind: .regular)) }
            refillRegularRequests()
        }
    }
}

/// What the controller reports besides frames, on its loop (the `output` given to its initialiser).
public enum CameraControllerEvent {
    /// The camera went away; requests in flight may never complete.
    case disconnected
    /// Streaming stopped (asked for, or on its own): whoever holds frames (the viewfinder) drops them.
    case streamingStopped
    /// Streaming stopped on its own: the camera refused a request (`lastError`).
    case streamingFailed(any Error)
}

/// A bracket's claim that regular requests wait (see `CameraController.holdRegularRequests`): a
/// value naming the streaming run it was taken on and its number there. The holder gives it back
/// to the controller it came from (`releaseRegularRequests`); the controller keeps which are in force.
public struct RegularRequestHold: Hashable, Sendable {
    /// The streaming run the hold was taken on (a restart ends every hold).
    let generation: Int
    /// The hold's number on its controller.
    let number: Int
}
