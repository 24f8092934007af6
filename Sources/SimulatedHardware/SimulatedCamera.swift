import Foundation
import Hardware
import FrameSyncNetwork

/// The simulated camera: implements `CameraDevice` on an event loop, with frames paced by the
/// loop's clock (on a `ManualEventLoop` a minute of streaming runs in milliseconds).
///
/// It models control delays counted through the requests in flight (a request's controls reach the
/// sensor when the pipeline takes it for a frame, and exposure/gain apply `delay` frames later),
/// AE/AWB/AF, one dropped start-up frame unless exposure, gain and colour gains are all manual, and
/// full-size frames of a test chart (see `SimulatedFrameRenderer`). Use it from the loop's thread only.
public final class SimulatedCamera: CameraDevice {
    /// Identity as libcamera would report it (model = the sensor's).
    public let info: CameraInfo
    /// The sensor entry it simulates.
    public let sensor: SensorDescription
    /// The loop whose clock paces the frames.
    public let loop: any EventLoop
    /// Seed of the frame noise.
    public let seed: UInt64
    /// False simulates a camera without exposure control, as vimc: no AeEnable, ExposureTime,
    /// AnalogueGain or ExposureValue controls, and no ExposureTime, AnalogueGain, DigitalGain or
    /// AeLocked metadata (its AE still runs inside). Set before streaming.
    public var exposureControl = true
    /// False leaves ExposureTime, AnalogueGain, DigitalGain and AeLocked out of the metadata while
    /// the controls stay (a fault: a camera that takes exposure settings but never reports them).
    public var reportsExposureMetadata = true
    /// Which libcamera's controls and metadata it offers (default: Raspberry Pi's, as a Pi runs).
    /// Set before streaming.
    public var libcamera = SimulatedLibcamera.raspberryPi0_5
    /// CLOCK_REALTIME minus the loop's monotonic clock, for FrameWallClock: fixed at creation, as a
    /// Pi's realtime clock is the monotonic one plus an offset.
    public let wallClockOffsetNanoseconds: Int64
    /// The driver's limits: buffers per stream, buffers held, requests to start, processed streams.
    public var pipeline = SimulatedPipelineLimits()
    /// What the camera looks at; tests may change it while streaming.
    public var scene: SimulatedScene
    /// The sensor's own HDR, the HdrMode in force and the modes the tuning lacks.
    public var hdr = SimulatedHDRState()
    /// What reached `queueRequest` (accepted or not), for tests to read.
    public private(set) var queued = QueuedRequestLog()
    /// What the raw stream hands back for the mode's unpacked raw format (board option
    /// `camera.raw`): the Pi 5's 16-bit or compressed raw, the Pi 4's CSI-2 packed. Set before
    /// `configure`.
    public var rawOutput = SimulatedRawOutput.unpacked
    /// Largest rendered frame; when set, streams are scaled down by a whole factor to fit and
    /// `FrameBuffer.size` is the rendered size. nil (the default): every stream at its own size.
    /// Small renders are for tests and long simulations that need no pixels.
    public var maximumRenderSize: PixelSize?
    /// Where frame sync's datagrams go (SyncMode, as the fork's IPA does it: `SimulatedFrameSync`).
    /// The default keeps them on the loopback; a board sets its own group and port. Set before streaming.
    public var frameSyncChannels: any FrameSyncChannelFactory = MulticastFrameSyncChannels(address: .simulatedDefault)

    /// Stopped, streaming, or unplugged (every later call throws).
    private enum Phase { case stopped, streaming, disconnected }
    private var phase = Phase.stopped
    /// The streams of the last `configure`.
    private var streams: [StreamConfiguration] = []
    /// The sensor and IPA for the configured mode, made afresh at each start.
    private var model: SimulatedSensorModel?
    /// The requests waiting for a frame and in progress.
    private var requests = SimulatedRequestQueue()
    /// When frames start, their cadence, a stall, and the frame counters.
    private var clock = SimulatedSensorClock()
    private var handler: (@Sendable (CameraEvent) -> Void)?
    /// The camera's orientation from the motion truth, for motion blur and the rolling shutter.
    private var attitude: SimulatedCameraAttitude
    /// Draws the frames; caches the chart per crop, size and focus.
    private let renderer: SimulatedFrameRenderer
    /// The frame sync algorithm, made when a request first asks for SyncMode.
    private var frameSync: SimulatedFrameSync?

    /// The sensor mode chosen by the last `configure`.
    public var activeMode: SensorDescription.Mode? {
        model?.mode
    }
    /// Frames the sensor produced since start, including dropped ones and ones the loop missed.
    public var framesProduced: UInt64 {
        clock.framesProduced
    }
    /// Frames since start that started while the loop was too late to take them (their sequence
    /// numbers are skipped; no request is used up).
    public var framesMissed: UInt64 {
        clock.framesMissed
    }
    /// Requests queued and not yet taken for a frame.
    public var requestsWaiting: Int {
        requests.waiting.count
    }
    /// The next frame's sequence and start (nil start: not streaming), for `sim object cross`.
    var upcomingFrame: (sequence: UInt64, start: MonotonicTime?) {
        (clock.framesProduced, phase == .streaming ? clock.nextFrameStart : nil)
    }
    /// Why frame sync could not send or receive, if it could not.
    public var frameSyncFailure: String? {
        frameSync?.failure
    }

    init(info: CameraInfo, sensor: SensorDescription, loop: any EventLoop, motion: any MotionTruth,
         scene: SimulatedScene, seed: UInt64, wallClockOffsetNanoseconds: Int64? = nil) {
        self.info = info; self.sensor = sensor; self.loop = loop
        self.scene = scene; self.seed = seed
        attitude = SimulatedCameraAttitude(motion: motion)
        renderer = SimulatedFrameRenderer(sensor: sensor)
        self.wallClockOffsetNanoseconds = wallClockOffsetNanoseconds ?? Int64(Date().timeIntervalSince1970 * 1e9) - loop.now().nanoseconds
    }

    /// Controls and limits from the sensor entry: HdrMode with an HDR sensor, AF controls only with AF.
    public var controlInfo: [String: ControlInfo] {
        withoutHiddenControls(SimulatedControlInfo.controls(sensor: sensor, mode: nil, libcamera: libcamera))
    }

    /// As `controlInfo`, with FrameDurationLimits and ScalerCrop for the configured mode.
    public var configuredControlInfo: [String: ControlInfo] {
        withoutHiddenControls(SimulatedControlInfo.controls(sensor: sensor, mode: activeMode, libcamera: libcamera))
    }

    /// Controls (and the metadata of the same names) a camera without exposure control lacks.
    static let exposureControlNames: Set<String> = [ControlName.aeEnable, ControlName.exposureTime, ControlName.analogueGain,
                                                    ControlName.exposureValue, ControlName.digitalGain, ControlName.aeLocked,
                                                    ControlName.aeState, ControlName.exposureTimeMode,
                                                    ControlName.analogueGainMode]

    /// `list` without the exposure names when `hidden` (default: when the camera lacks exposure control).
    private func withoutHiddenControls<V>(_ list: [String: V], hidden: Bool? = nil) -> [String: V] {
        (hidden ?? !exposureControl) ? list.filter { !Self.exposureControlNames.contains($0.key) } : list
    }

    public func streamFormats(for role: StreamRole) throws -> [StreamFormat] {
        try checkConnected("streamFormats")
        return SimulatedControlInfo.streamFormats(sensor: sensor, role: role, sensorHDR: hdr.sensorHDR)
    }

    public func configure(_ requested: [StreamConfiguration]) throws -> (status: ConfigurationStatus, streams: [StreamConfiguration]) {
        try checkConnected("configure")
        guard phase != .streaming else { throw HardwareError(.busy, "simulated camera \(info.id): configure while streaming") }
        guard pipeline.buffersHeldByApplication == 0 else {
            throw HardwareError(.busy, "simulated camera \(info.id): configure while \(pipeline.buffersHeldByApplication) buffer(s) are still held")
        }
        guard !requested.isEmpty else {
            throw HardwareError(.invalidArgument, "simulated camera \(info.id): configure with no streams")
        }
        if let limit = pipeline.processedStreamLimit, requested.filter({ $0.role != .raw }).count > limit {
            throw HardwareError(.unsupported, "simulated camera \(info.id): cannot produce these \(requested.count) roles together")
        }
        var (status, adjusted, mode) = SimulatedControlInfo.validate(requested, sensor: sensor, sensorHDR: hdr.sensorHDR,
                                                                     rawOutput: rawOutput)
        if let most = pipeline.maximumBufferCount {
            for i in adjusted.indices where adjusted[i].bufferCount > most || adjusted[i].bufferCount == 0 {
                adjusted[i].bufferCount = most
                status = .adjusted
            }
        }
        streams = adjusted
        model = SimulatedSensorModel(sensor: sensor, mode: mode)
        for stream in adjusted {  // sample the chart now rather than in the first frame (and for the smaller drawing)
            let format = stream.role == .raw ? SimulatedControlInfo.rawFormat(sensor: sensor, mode: mode) : stream.pixelFormat
            let size = SimulatedFrameRenderer.renderSize(for: stream.size, maximum: maximumRenderSize)
            renderer.prepare(format: format, size: size, crop: mode.crop, lighting: scene.lighting)
            if let smaller = SimulatedFrameRenderer.smallerSize(of: size, role: stream.role) {
                renderer.prepare(format: format, size: smaller, crop: mode.crop, lighting: scene.lighting)
            }
        }
        return (status, adjusted)
    }

    public func start(controls: ControlList) throws {
        try checkConnected("start")
        guard let mode = activeMode else { throw HardwareError(.invalidArgument, "simulated camera \(info.id): start before configure") }
        guard phase != .streaming else { throw HardwareError(.busy, "simulated camera \(info.id): start while streaming") }
        try checkControls(controls, call: "start")
        // Frame numbers restart at 0, so the algorithms and delay lines start afresh (as the IPA does).
        var model = SimulatedSensorModel(sensor: sensor, mode: mode)
        model.apply(controls, atFrame: 0, immediately: true)
        self.model = model
        hdr.mode = .off
        hdr.take(controls)
        frameSync?.restart()
        takeFrameSync(controls)
        phase = .streaming
        clock.restart()
        attitude.restart()
        scheduleFrame(at: loop.now())
    }

    public func queueRequest(_ request: CaptureRequest) throws {
        try checkConnected("queueRequest")
        queued.note(request.controls)
        guard phase == .streaming else { throw HardwareError(.invalidArgument, "simulated camera \(info.id): queueRequest while stopped") }
        try checkControls(request.controls, call: "queueRequest")
        for role in request.roles {
            guard let stream = streams.first(where: { $0.role == role }) else {
                throw HardwareError(.invalidArgument, "simulated camera \(info.id): queueRequest for unconfigured stream \(role)")
            }
            if pipeline.maximumBufferCount != nil, stream.bufferCount > 0, requests.inUse(role) >= stream.bufferCount {
                throw HardwareError(.busy, "simulated camera \(info.id): queue request: stream \(role) has no free buffer")
            }
        }
        requests.append(request)
    }

    public func stop() {
        guard phase == .streaming else { return }
        phase = .stopped
        clock.cancelNextFrame()
        for request in requests.cancelAll() {
            handler?(.requestCompleted(CompletedRequest(cookie: request.cookie, sequence: 0, sensorTimestamp: loop.now(),
                                                        metadata: [:], buffers: [:], isComplete: false)))
        }
    }

    public func setEventHandler(_ handler: @escaping @Sendable (CameraEvent) -> Void) { self.handler = handler }

    // MARK: Fault hooks

    /// Unplugs the camera: streaming stops (pending requests complete as cancelled, or, with
    /// `completingPending` false, never complete, as when libcamera loses the device), a
    /// `.disconnected` event follows, and every later call throws `HardwareError(.disconnected)`.
    public func simulateDisconnect(completingPending: Bool = true) {
        if completingPending {
            stop()
        } else {
            clock.cancelNextFrame()
            _ = requests.cancelAll()
        }
        phase = .disconnected
        handler?(.disconnected)
    }

    /// Freezes the sensor: no frames start for `duration` (or until `resume()` when nil).
    public func stall(for duration: Duration? = nil) {
        clock.stalledUntil = duration.map { loop.now() + $0 } ?? MonotonicTime(nanoseconds: .max)
    }

    /// Ends a stall; frames resume at once.
    public func resume() {
        clock.stalledUntil = nil
        if phase == .streaming { clock.nextFrame?.cancel(); scheduleFrame(at: loop.now()) }
    }

    // MARK: Frames

    private func checkConnected(_ call: String) throws {
        if phase == .disconnected { throw HardwareError(.disconnected, "simulated camera \(info.id): \(call) after disconnect") }
    }

    private func checkControls(_ controls: ControlList, call: String) throws {
        let known = controlInfo
        for name in controls.keys where known[name] == nil {
            throw HardwareError(.unsupported, "simulated camera \(info.id) (\(sensor.model)): \(call): control \(name) is not supported")
        }
    }

    private func scheduleFrame(at time: MonotonicTime) {
        let bound = WeakLoopBound(self, loop: loop)  // weak: the loop's queue must not keep a dropped camera
        clock.nextFrameStart = time
        clock.nextFrame = loop.schedule(at: time) { bound.value?.frameStart() }
    }

    /// One frame, as the loop gets round to it. Frames keep the sensor's cadence whatever the
    /// loop's delay: frame n+1 starts at frame n's start plus its FrameDuration. When the loop comes
    /// a whole frame or more late, the frames that started meanwhile are lost, as a sensor's frames
    /// are when the pipeline falls behind: their sequence numbers are skipped and they take no request.
    private func frameStart() {
        guard phase == .streaming, var model else { return }
        let now = loop.now()
        var start = clock.nextFrameStart ?? now
        if let until = clock.stalledUntil {
            if now < until {
                if until.nanoseconds != .max { scheduleFrame(at: until) }
                return
            }
            clock.stalledUntil = nil
        }
        if !clock.running {
            guard requests.waiting.count >= pipeline.minimumQueuedToStart else {
                scheduleFrame(at: now + .milliseconds(1))  // the driver has not started streaming yet
                return
            }
            clock.running = true
            start = now
        } else {
            start = clock.skippingMissedFrames(from: start, now: now)
        }
        let sequence = clock.takeSequence()
        // The first frame is dropped unless exposure, gain and colour gains all start manual.
        var dropped = false
        if sequence == 0 {
            let first = requests.waiting.first?.controls ?? [:]
            let startedManual = (model.fixedExposureMicroseconds != nil || (first[ControlName.exposureTime]?.int64Value ?? 0) > 0)
                && (model.fixedGain != nil || (first[ControlName.analogueGain]?.doubleValue ?? 0) > 0)
                && (model.manualColourGains != nil || first[ControlName.colourGains] != nil)
            dropped = !startedManual
        }
        var request: CaptureRequest?
        if !dropped, let next = requests.takeNext() {
            request = next
            model.apply(patched(next.controls), atFrame: sequence)
            hdr.take(next.controls)
            takeFrameSync(next.controls)
        }
        // The light at this frame's start (`sim light`): AE, metadata and pixels all see it.
        let scene = self.scene.lit(at: start)
        let parameters = model.step(frame: sequence, scene: scene)
        self.model = model
        let sync = frameSync?.frame(wallClockMicroseconds: (start.nanoseconds + wallClockOffsetNanoseconds) / 1000,
                                    monotonicMicroseconds: start.nanoseconds / 1000, frameMicroseconds: parameters.frameDurationMicroseconds)
        // A client's correction shortens (or lengthens) this one frame, never below the mode's shortest.
        let correction = min(sync?.correctionMicroseconds ?? 0, parameters.frameDurationMicroseconds - model.minimumFrameDurationMicroseconds)
        let frameDuration = Duration.microseconds(parameters.frameDurationMicroseconds - correction)
        clock.cadence = .microseconds(parameters.frameDurationMicroseconds)
        if let request {
            let completed = complete(request, sequence: sequence, at: start, parameters: parameters, model: model, scene: scene, sync: sync)
            let bound = WeakLoopBound(self, loop: loop)
            let cookie = request.cookie
            let work = loop.schedule(at: start + frameDuration) { bound.value?.deliver(completed, cookie: cookie) }
            requests.started(request, completedBy: work)
        }
        scheduleFrame(at: start + frameDuration)
    }

    private func deliver(_ completed: CompletedRequest, cookie: UInt64) {
        requests.finished(cookie: cookie)
        handler?(.requestCompleted(completed))
    }

    private func complete(_ request: CaptureRequest, sequence: UInt64, at start: MonotonicTime,
                          parameters p: SimulatedFrameParameters, model: SimulatedSensorModel, scene: SimulatedScene,
                          sync: SimulatedFrameSync.Outcome?) -> CompletedRequest {
        var metadata: ControlList = [
            ControlName.exposureTime: .int32(Int32(clamping: p.exposureMicroseconds)),
            ControlName.analogueGain: .float(Float(p.analogueGain)),
            ControlName.digitalGain: .float(Float(p.digitalGain)),
            ControlName.colourGains: .floatArray([Float(p.redGain), Float(p.blueGain)]),
            ControlName.colourTemperature: .int32(Int32(p.colourTemperatureKelvin.rounded())),
            ControlName.frameDuration: .int64(p.frameDurationMicroseconds),
            ControlName.sensorTimestamp: .int64(start.nanoseconds),
            ControlName.lux: .float(Float(scene.lux)),
            ControlName.scalerCrop: .rectangle(model.scalerCrop),
            "FocusFoM": .int32(Int32(p.focusFigureOfMerit.rounded())),
        ]
        switch libcamera {
        case .debian0_0_3:
            metadata[ControlName.aeLocked] = .bool(p.aeLocked)
        case .raspberryPi0_5:
            let manual = model.fixedExposureMicroseconds != nil && model.fixedGain != nil
            metadata[ControlName.aeState] = .int32(manual ? 0 : p.aeLocked ? 2 : 1)
            metadata[ControlName.exposureTimeMode] = .int32(model.fixedExposureMicroseconds != nil ? 1 : 0)
            metadata[ControlName.analogueGainMode] = .int32(model.fixedGain != nil ? 1 : 0)
            metadata[ControlName.frameWallClock] = .int64(start.nanoseconds + wallClockOffsetNanoseconds)
            if let sync {
                metadata[ControlName.syncReady] = .bool(sync.ready)
                if let timer = sync.timerMicroseconds { metadata[ControlName.syncTimer] = .int64(timer) }
            }
            if SimulatedControlInfo.listsHdrMode(sensor: sensor, libcamera: libcamera) {  // not the whole map per frame
                metadata[ControlName.hdrMode] = .int32(hdr.mode.rawValue)
                // Unmerged: the short and long exposures alternate, each a frame of its own.
                let channel: HdrChannelValue = hdr.mode == .multiExposureUnmerged ? (sequence % 2 == 0 ? .short : .long) : .none
                metadata[ControlName.hdrChannel] = .int32(channel.rawValue)
            }
        }
        if model.hasAutofocus {
            metadata[ControlName.lensPosition] = .float(Float(p.lensPositionDioptres))
            metadata[ControlName.afState] = .int32(p.afState)
        }
        metadata["ColourCorrectionMatrix"] = .floatArray(SimulatedColourResponse.colourCorrectionMatrix.map(Float.init))
        // `sim scene object`: the turntable where it is at the middle of this frame's exposure.
        let scene = objectScene(scene, frameStart: start, exposureMicroseconds: p.exposureMicroseconds, metadata: &metadata)
        var buffers: [StreamRole: FrameBuffer] = [:]
        let readout = (model.mode.readoutMilliseconds ?? 1e3 / max(model.mode.maximumFps, 1)) * 1000
        let motion = SimulatedFrameRenderer.Motion(exposure: attitude.angularMotion(from: start, microseconds: Double(p.exposureMicroseconds)),
                                                   rowAttitudes: attitude.rowAttitudes(start: start, readoutMicroseconds: readout,
                                                                              exposureMicroseconds: Double(p.exposureMicroseconds)),
                                                   readoutRows: (Double(model.mode.crop.y), Double(model.mode.crop.height)))
        let defocus = model.defocusBlurPixels(lens: p.lensPositionDioptres, scene: scene)
        let stripDefocus = scene.depthStripDioptres?.map { model.defocusBlurPixels(lens: p.lensPositionDioptres, subjectDioptres: $0) }
        for role in request.roles {
            guard let stream = streams.first(where: { $0.role == role }) else { continue }
            let roleIndex = UInt64(StreamRole.allCases.firstIndex(of: role) ?? 0)
            let rng = SeededGenerator(seed: seed ^ (sequence &* 0x9E37_79B9_7F4A_7C15) ^ (roleIndex << 56))
            // Raw is drawn as the mode's unpacked samples, then laid out as `rawOutput` says.
            let isRaw = role == .raw
            let size = SimulatedFrameRenderer.renderSize(for: stream.size, maximum: maximumRenderSize)
            buffers[role] = renderer.render(SimulatedFrameRenderer.Request(
                role: role, format: isRaw ? SimulatedControlInfo.rawFormat(sensor: sensor, mode: model.mode) : stream.pixelFormat,
                rawOutput: isRaw ? rawOutput : .unpacked, size: size, streamSize: stream.size, crop: isRaw ? model.mode.crop : model.scalerCrop,
                scene: scene, frame: p, defocusPixels: defocus, motion: motion, bitDepth: model.mode.bitDepth,
                hdr: hdr.rendersHDR, stripDefocusPixels: stripDefocus, crossing: scene.crossing.flatMap { c in c.leftEdge(at: start).map { (c, $0) } }), rng: rng)
        }
        return CompletedRequest(cookie: request.cookie, sequence: sequence, sensorTimestamp: start,
                                metadata: withoutHiddenControls(metadata, hidden: !exposureControl || !reportsExposureMetadata),
                                buffers: buffers)
    }

    /// The scene with the object turned as at the middle of the exposure (wall clock, which the
    /// rigs of a fleet share), and the frame's `SimulationTruth` in `metadata`.
    private func objectScene(_ scene: SimulatedScene, frameStart start: MonotonicTime, exposureMicroseconds: Int,
                             metadata: inout ControlList) -> SimulatedScene {
        guard var object = scene.object else { return scene }
        let middle = start.nanoseconds + wallClockOffsetNanoseconds + Int64(exposureMicroseconds) * 500
        object.rotationDegrees = object.rotationDegrees(atWallClockNanoseconds: middle)
        var turned = scene
        turned.object = object
        let pose = scene.pose
        metadata[SimulationTruth.metadataKey] = SimulationTruth(
            scene: scene.name, positionMetres: [pose.positionMetres.x, pose.positionMetres.y, pose.positionMetres.z],
            lookAtMetres: [pose.lookAtMetres.x, pose.lookAtMetres.y, pose.lookAtMetres.z],
            objectRotationDegrees: object.rotationDegrees, objectSpinDegreesPerSecond: object.spinDegreesPerSecond,
            exposureMiddleWallClockNanoseconds: middle, focalLengthSensorPixels: renderer.focalLengthSensorPixels).metadataValue
        return turned
    }

    /// Takes a request's SyncMode and SyncFrames (the fork's controls; `SimulatedFrameSync`).
    private func takeFrameSync(_ controls: ControlList) {
        if let value = controls[ControlName.syncMode]?.int64Value, let mode = FrameSyncMode(controlValue: value) {
            if frameSync == nil, mode != .off { frameSync = SimulatedFrameSync(channels: frameSyncChannels) }
            frameSync?.setMode(mode)
        }
        if let frames = controls[ControlName.syncFrames]?.int64Value, frames > 0 { frameSync?.readyFrames = frames }
    }

    /// What libcamera 0.5+'s `Camera::patchControlList` does before a request reaches the pipeline:
    /// AeEnable alone sets both exposure modes (auto when true). Debian's 0.0.3 passes it as it is.
    private func patched(_ controls: ControlList) -> ControlList {
        guard libcamera == .raspberryPi0_5, let aeEnabled = controls[ControlName.aeEnable]?.boolValue else { return controls }
        var patched = controls
        for mode in [ControlName.exposureTimeMode, ControlName.analogueGainMode] where patched[mode] == nil {
            patched[mode] = .int32(aeEnabled ? 0 : 1)
        }
        return patched
    }
}

/// The requests a simulated camera was handed: how many, and the controls of the latest ones,
/// kept in a ring so noting one costs the same however many came before.
public struct QueuedRequestLog: Sendable {
    /// How many controls lists are kept (the newest).
    public static let limit = 256
    /// Requests handed to the camera so far.
    public private(set) var count = 0
    /// The kept lists; once full, the oldest is at `count % limit`.
    private var ring: [ControlList] = []

    /// The controls of the latest `limit` requests, oldest first.
    public var recentControls: [ControlList] {
        guard ring.count == Self.limit else { return ring }
        let oldest = count % Self.limit
        return Array(ring[oldest...] + ring[..<oldest])
    }

    mutating func note(_ controls: ControlList) {
        if ring.count < Self.limit { ring.append(controls) } else { ring[count % Self.limit] = controls }
        count += 1
    }
}
