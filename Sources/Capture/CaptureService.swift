import Camera
import Foundation
import Controls
import Hardware
import Lifecycle
import Media

/// Who asked for a bracket.
public enum CaptureTrigger: Equatable {
    /// A console command (`capture`, `bracket ...`).
    case console
    /// The shutter button; `edge` is the press edge's kernel time, `queued` true when it waited
    /// for the previous bracket (the button's queue-one policy).
    case button(edge: MonotonicTime, queued: Bool)
    /// A time-lapse's shot (`timelapse start`), recorded in the sidecar.
    case timelapse(TimelapseShotRecord)
}

/// What a capture's starter hears of it as it runs (`CaptureService.start(observer:)`): each
/// frame kept, with its buffers (a time-lapse meters the raw one), then how it ended.
public enum CaptureProgress {
    /// A frame was matched and goes to the writer: 0-based index in the plan, the request.
    case frameKept(index: Int, request: CompletedRequest)
    /// The capture ended: its sidecar when saved, or why it failed.
    case finished(sidecar: BracketSidecar?, failure: String?)
}

/// A capture armed for a shot at a shared instant (docs/fleet.md): its first frame is the first
/// whose exposure starts at or after `instant`; the sidecar records `record`; `ended` hears of the
/// end, with the final sidecar (nil when none was saved) and the failure, if any.
public struct ShotArming {
    public var record: ShotRecord
    public var instant: ExposureInstant
    public let ended: (_ sidecar: BracketSidecar?, _ failure: String?) -> Void

    public init(record: ShotRecord, instant: ExposureInstant, ended: @escaping (_ sidecar: BracketSidecar?, _ failure: String?) -> Void) {
        self.record = record; self.instant = instant; self.ended = ended
    }
}

/// The one entry point for captures (console `capture`/`bracket` and the shutter button): runs a
/// `BracketEngine` on the camera and saves its frames through a `FrameWriter` (the store on its
/// own queue). One bracket at a time. Loop-confined.
///
/// It owns its state and never calls back into the supervisor: it reads the camera from the
/// camera's one owner (`CameraSlot`) and the settings in force from the view it was given
/// (`capture.format`, `media.dng.compression`, `button.*`), the supervisor pushes whether captures
/// are accepted, and what happens flows out as events (`emit`) and as work marks (`work`), which a
/// stop waits for. It owns the shutter button (`NoShutterButton` on a board without one) and the
/// status LED.
public final class CaptureService {
    public let loop: any EventLoop
    /// Where captures are saved (the writer's).
    public var storage: any Storage { writers.storage }
    /// The camera's one owner (the composition's), read only.
    private let attachedCamera: any AttachedCamera
    /// The camera, while one is attached.
    public var camera: CameraController? { attachedCamera.controller }
    /// The settings in force, read when used (the settings store's view).
    private let settings: any CaptureSettingsView
    /// Files written per frame (`capture.format`), as in force.
    public var captureFormat: CaptureFormat { settings.captureFormat }
    /// False before start and once a stop began: no new bracket starts.
    public var acceptsCaptures = false
    /// When the stop began (pushed by the supervisor): a button press from before it still captures.
    public var stopRequestedAt: MonotonicTime?
    /// Work in progress: a running bracket is marked here, and a stop waits for it.
    public let work: WorkTracker
    /// Where events go (the console layer words them for the consoles and the journal).
    public let emit: (CaptureEvent) -> Void
    /// Reads a preset's bracket arguments as a plan (the console's bracket parser).
    let readBracket: BracketArgumentsReader
    /// The console's key of `captureFormat` (`capture.format`), given by the edge: messages that
    /// name the setting use it (the domain never spells a key).
    public let captureFormatKey: String
    /// The gyro logs, frame gates and frame-kept handler (the `attach…` calls below).
    private var attached = CaptureAttachments()
    /// The store's writer, made on first use (`writer(for:)`).
    private let writers: FrameWriterSlot
    /// What a button gesture asks that is not a capture (CaptureService+Button.swift).
    public let onButtonEvent: (ButtonEvent) -> Void
    /// The shutter button: the board's, or `NoShutterButton`. Made with the service; the
    /// supervisor starts and stops it with the devices.
    public let button: any ShutterButton
    /// The status LED: the board's, or `NoStatusLED`.
    public let led: any StatusLight
    /// The LED pattern between brackets: ready, or recording while a video records (pushed by the
    /// supervisor's recording wiring).
    public var restingPattern: StatusLEDPattern = .ready {
        didSet { if running == nil, led.pattern != .error { led.show(restingPattern) } }
    }
    /// Bracket presets: name → `bracket` arguments (see BracketPresets.swift).
    public var presets: [String: [String]] = [:]
    /// Buffer, memory and wait limits (CaptureServiceState.swift).
    private var limits = CaptureLimits()
    /// Extra buffers per stream `prepare` allocates for bracket requests; the engine keeps at most
    /// this many minus 2 (frames being copied out) outstanding.
    public var bracketBuffersPerStream: Int { get { limits.bracketBuffersPerStream } set { limits.bracketBuffersPerStream = newValue } }
    /// True on a board with a shutter button: the camera streams stills from the start, so the
    /// first press reconfigures nothing.
    public var wantsStillsFromStart: Bool { !(button is NoShutterButton) }
    /// What the camera's streams are for when it starts: stills once prepared (or with a button).
    public var streamingConfiguration: StreamingConfiguration {
        isPrepared || wantsStillsFromStart ? .stills(bracketBuffersPerStream: bracketBuffersPerStream) : StreamingConfiguration()
    }
    /// Memory for frames awaiting write, bytes (a quarter of physical memory by default).
    public var memoryBudgetBytes: Int64 { get { limits.memoryBudgetBytes } set { limits.memoryBudgetBytes = newValue } }
    /// Brackets saved and failed, and shutter lags (CaptureServiceState.swift).
    private var counters = CaptureCounters()
    /// Recent shutter lags (trigger → first bracket request queued).
    public var lags: ShutterLagStatistics { counters.lags }
    public var bracketsSaved: Int { counters.bracketsSaved }
    public var bracketsFailed: Int { counters.bracketsFailed }
    public private(set) var isPrepared = false
    public private(set) var running: Running?
    private var waitingButton: (BracketPlan, CaptureTrigger)?
    /// A capture asked for before the camera's first frame (just after start), and its time limit.
    private var waitingForFirstFrame: (plan: BracketPlan, trigger: CaptureTrigger, at: MonotonicTime, timeout: ScheduledWork,
                                       observer: ((CaptureProgress) -> Void)?)?
    /// How long a capture waits for the camera's first frame before it fails.
    public var firstFrameWait: Duration { get { limits.firstFrameWait } set { limits.firstFrameWait = newValue } }

    // MARK: Attachments: what comes up after the service is made, each set in one call from the
    // composition (Supervisor's Composition.swift), never field by field.

    /// The gyro logs of saved brackets, once the IMU runs.
    public func attachGyroLogs(_ maker: GyroLogMaker?) { attached.gyroLogs = maker }

    /// The stabilization gate each capture asks before and after every frame (true: a bracket).
    public func attachFrameGates(_ make: @escaping (_ bracket: Bool) -> any BracketFrameGate) { attached.makeFrameGate = make }

    /// Who hears of each frame a capture keeps (the recorder, for the stills of a recording).
    public func attachFrameKept(_ handler: @escaping (_ bracketID: String, _ frame: Int, _ request: CompletedRequest) -> Void) {
        attached.onFrameKept = handler
    }

    /// One bracket in progress.
    public final class Running {
        public let plan: BracketPlan
        let trigger: CaptureTrigger
        /// The bracket's engine; let go once the bracket ended (it and its callbacks hold each other).
        var engine = EngineState.notYetMade
        public internal(set) var id: String?
        public internal(set) var framesSaved = 0
        var storageFailure: String?
        var engineFailure: String?
        var statistics: BracketEngine.Statistics?
        var lag: Duration?
        /// The streams `capture.format` writes; a frame may carry more (a regular frame during a
        /// recording fills raw and the still stream), and only these are written.
        var roles: Set<StreamRole> = []
        /// Who started it and hears how it goes (a time-lapse); nil for the console and the button.
        let observer: ((CaptureProgress) -> Void)?
        /// The shot this bracket is, if any.
        var shot: ShotArming?
        init(plan: BracketPlan, trigger: CaptureTrigger, observer: ((CaptureProgress) -> Void)? = nil) {
            self.plan = plan; self.trigger = trigger; self.observer = observer
        }

        /// Where the bracket's engine is in its life.
        enum EngineState {
            /// The bracket was planned; its engine (whose callbacks name this bracket) comes next.
            case notYetMade
            /// The engine runs the bracket.
            case running(BracketEngine)
            /// The bracket ended: the engine was let go.
            case released
        }

        /// Cancels the bracket's engine while it runs (its frames already kept stay).
        func cancelEngine(reason: String) {
            if case .running(let engine) = engine { engine.cancel(reason: reason) }
        }
    }

    /// `emit` and `onButtonEvent` are where what happens flows out; `readBracket` reads a preset's
    /// words; `settings`: the settings in force. `controls`: the board's shutter, half-press and
    /// LED lines (a board with a shutter button streams stills from the start); `ledFailed` hears
    /// of an LED that stopped working. `serialNumber`: the camera's serial in every file's EXIF
    /// (BodySerialNumber, CameraSerialNumber). `camera`: the camera's owner, which the composition
    /// attaches the controller to.
    public init(loop: any EventLoop, camera: any AttachedCamera, storage: any Storage, work: WorkTracker, settings: any CaptureSettingsView,
                controls: CaptureControls = CaptureControls(), serialNumber: String? = nil,
                readBracket: @escaping BracketArgumentsReader, captureFormatKey: String,
                emit: @escaping (CaptureEvent) -> Void = { _ in }, onButtonEvent: @escaping (ButtonEvent) -> Void = { _ in },
                ledFailed: @escaping (HardwareError) -> Void = { _ in }) {
        self.loop = loop
        self.attachedCamera = camera
        self.writers = FrameWriterSlot(storage: storage, serialNumber: serialNumber, loop: loop)
        self.work = work
        self.settings = settings
        self.readBracket = readBracket
        self.captureFormatKey = captureFormatKey
        self.emit = emit
        self.onButtonEvent = onButtonEvent
        // The button's decisions come back here, on the loop (weak: the service owns the button).
        let service = LateBound<CaptureService>(loop: loop)
        if let shutter = controls.shutter {
            self.button = ButtonController(configuration: settings.buttonConfiguration, loop: loop, shutter: shutter, halfPress: controls.halfPress) { output in
                service.value?.handle(buttonOutput: output)
            }
        } else {
            self.button = NoShutterButton()
        }
        self.led = controls.led.map { StatusLEDPlayer(line: $0, loop: loop, onError: ledFailed) } ?? NoStatusLED()
        service.attach(self)
    }

    /// The writer, made on first use with the camera's sensor (identity, black level, ISO convention)
    /// and the camera's serial number.
    public func writer(for camera: CameraController) -> FrameWriter { writers.writer(for: camera) }

    /// Blocks until every write submitted so far has run (tests; shutdown after the last bracket).
    public func drainWrites() { if case .made(let writer) = writers.state { writer.drain() } }

    // MARK: Prepare

    /// Configures the camera's processed stream as a still stream (plus raw, as always), opens the
    /// store, and reports the maximum bracket. Restarting the stream is the only set-up cost; after
    /// this, a press only queues requests.
    public func prepare() throws(CaptureError) -> PreparedStills {
        guard let camera else { throw CaptureError(.unsupported, "no camera") }
        let clock = ContinuousClock()
        let began = clock.now
        // A camera that is not streaming (stopped, disconnected) gets the still stream when it
        // starts again: `streamingConfiguration` says stills once prepared.
        let stills = StreamingConfiguration.stills(bracketBuffersPerStream: bracketBuffersPerStream)
        if camera.isStreaming, camera.streaming != stills {
            camera.stopStreaming()
            do { try camera.startStreaming(stills) } catch {
                throw CaptureError(.device, "prepare: cannot restart the camera with a still stream: \(error)")
            }
        }
        if !isPrepared {
            let bound = LoopBound(self, loop: loop)
            writer(for: camera).open { error in
                if let error { bound.value.emit(.storeFailed(reason: "\(error)")) }
            }
        }
        isPrepared = true
        let elapsed = clock.now - began
        let format = camera.activeFormat.format
        let still = camera.processedStreamSize ?? camera.preferredProcessedSize(for: format)
        return PreparedStills(still: still, raw: format.rawPixelFormat == nil ? nil : format.sensorModeSize,
                              maximumFrames: capacity(camera).maximumFrames, buffersPerStream: bracketBuffersPerStream, setup: elapsed)
    }

    /// The largest bracket for the camera's active format and the memory budget.
    public func capacity(_ camera: CameraController) -> BracketCapacity {
        let (raw, still) = outputs(camera)
        let format = camera.activeFormat.format
        let rgbSize = camera.processedStreamSize ?? camera.preferredProcessedSize(for: format)
        return BracketCapacity(rawSize: raw ? format.sensorModeSize : nil, rgbSize: still ? rgbSize : nil,
                               memoryBudgetBytes: memoryBudgetBytes)
    }

    /// Which files each frame writes, from `capture.format` and the streams the format has.
    private func outputs(_ camera: CameraController) -> (raw: Bool, still: Bool) {
        let wanted = captureFormat
        let hasRaw = camera.activeFormat.format.rawPixelFormat != nil
        return (wanted != .jpeg && hasRaw, wanted != .dng)
    }

    // MARK: Start

    /// Starts `plan`. Refused with `busy` while a bracket runs, except a queued button press, which
    /// starts when the running one ends. Before the camera's first frame it waits for that frame
    /// (at most `firstFrameWait`). `admitted`: triggered before a stop began (still runs while
    /// stopping); `triggeredAt`: when a console command asked for it, if earlier than now. Returns
    /// what it did. `observer` hears of each frame kept and of the end (`CaptureProgress`),
    /// when the capture started (not when this throws). `shot`: a shot at a shared instant (its
    /// frames start at or after the instant; refused before the camera's first frame).
    @discardableResult
    public func start(_ plan: BracketPlan, trigger: CaptureTrigger, admitted: Bool = false,
               triggeredAt: MonotonicTime? = nil, observer: ((CaptureProgress) -> Void)? = nil,
               shot: ShotArming? = nil) throws(CaptureError) -> CaptureStart {
        var plan = plan
        if running != nil {
            if case .button(_, true) = trigger, waitingButton == nil {
                waitingButton = (plan, trigger)
                return .queued
            }
            throw CaptureError(.busy, "a bracket is running (\(running?.id ?? running?.plan.summary ?? "")); wait for bracket.done")
        }
        guard let camera else { throw CaptureError(.unsupported, "no camera") }
        guard acceptsCaptures || admitted else { throw CaptureError(.busy, "stopping: no new brackets") }
        guard camera.isStreaming else { throw CaptureError(.device, "the camera is not streaming (disconnected?)") }
        if waitingForFirstFrame != nil {
            throw CaptureError(.busy, "a capture is waiting for the camera's first frame; wait for bracket.started")
        }
        if shot != nil && camera.latest == nil {
            throw CaptureError(.busy, "the camera has not delivered a frame yet; a shot needs a streaming camera to arm")
        }
        if camera.latest == nil {
            // Just started: nothing metered yet. The capture starts with the first frame.
            let bound = LoopBound(self, loop: loop)
            let limit = firstFrameWait
            let timeout = loop.schedule(after: limit) { bound.value.firstFrameNeverCame(after: limit) }
            waitingForFirstFrame = (plan, trigger, loop.now(), timeout, observer)
            work.begin("bracket")
            return .waitingForFirstFrame
        }
        let triggerTime: MonotonicTime
        if case .button(let edge, _) = trigger { triggerTime = edge } else { triggerTime = triggeredAt ?? loop.now() }
        let (raw, still) = outputs(camera)
        if captureFormat == .dng && !raw {
            throw CaptureError(.unsupported, "\(captureFormatKey) dng needs a raw stream; format \(camera.activeFormat.format.label) has none")
        }
        if !isPrepared { _ = try prepare() }  // first capture without `prepare`: pays the set-up here
        var roles: [StreamRole] = []
        if still || plan.autoRange != nil { roles.append(camera.processedRole) }
        if raw { roles.append(.raw) }
        let maximum = capacity(camera).maximumFrames
        do { plan = try plan.resolvingFocus(for: camera, maximumFrames: maximum) } catch let error as CameraError {
            throw CaptureError(error.kind == .unsupported ? .unsupported : .outOfRange, error.message)
        } catch { throw CaptureError(.device, "bracket: \(error)") }
        let current = Running(plan: plan, trigger: trigger, observer: observer)
        current.shot = shot
        current.roles = Set(roles.filter { $0 == .raw ? raw : still })
        let bound = LoopBound(self, loop: loop)
        let engine: BracketEngine
        let isButton: Bool
        if case .button = trigger { isButton = true } else { isButton = false }
        do {
            engine = try BracketEngine(camera: camera, plan: plan, gate: attached.makeFrameGate(plan.kind != BracketPlan.single.kind), roles: roles, maximumSteps: maximum,
                                       maximumRequestsInFlight: max(camera.bracketBuffersAvailable - 2, 1),
                                       takesRegularFramesFrom: triggerTime, notBefore: shot?.instant,
                                       onFirstRequestQueued: { queuedAt in
                                           // Usually within start(); later when the first request waited for a free buffer.
                                           let lag = ShutterLag(edge: triggerTime, firstRequestQueued: queuedAt)
                                           current.lag = lag.duration
                                           if isButton { bound.value.counters.lags.record(lag) }
                                       },
                                       onFrame: { bound.value.matched($0, in: current) },
                                       onFinish: { bound.value.engineFinished($0, in: current) })
            running = current
            current.engine = .running(engine)
            try engine.start()
        } catch let error as CameraError {
            running = nil
            throw CaptureError(error.kind == .outOfRange ? .outOfRange : error.kind == .unsupported ? .unsupported : .device, error.message)
        } catch {
            running = nil
            throw CaptureError(.device, "bracket: \(error)")
        }
        // nil while the first request waits for a buffer: the sidecar then counts to the first frame.
        let lagAtStart = current.lag
        work.begin("bracket")
        showPattern(.busy)
        if case .console = trigger { button.captureDidStart() }
        let frames = plan.autoRange.map { plan.steps.count + 2 * $0.maximumExtraSteps } ?? plan.steps.count
        let record = BracketPlanRecord(kind: plan.kind, summary: plan.summary, frameCount: min(frames, maximum))
        var start = BracketStart(plan: record, outputs: BracketOutputs(rawSize: raw ? camera.activeFormat.format.sensorModeSize : nil,
                                                                      rgbSize: still ? camera.processedStreamSize ?? camera.activeFormat.format.size : nil,
                                                                      rawBitDepth: raw ? camera.activeFormat.format.rawBitDepth : nil,
                                                                      rawImagedArea: raw ? camera.activeFormat.format.sensorModeCrop : nil),
                                 startTime: Date(), startMonotonic: triggerTime, shutterLag: current.lag,
                                 dngCompression: settings.dngCompression, timelapse: { if case .timelapse(let shot) = trigger { return shot } else { return nil } }())
        start.shot = shot?.record
        let run = LoopBound(current, loop: loop)
        writer(for: camera).begin(start) { result in bound.value.began(result, in: run.value) }
        let started = BracketStarted(planSummary: plan.summary, frames: plan.steps.count, lag: lagAtStart, shot: shot?.record, trigger: trigger)
        emit(.bracketStarted(started))
        return .started(started)
    }

    /// Called for every streaming frame: starts a capture that was waiting for the first one.
    public func frameArrived() {
        guard let (plan, trigger, askedAt, timeout, observer) = waitingForFirstFrame else { return }
        timeout.cancel()
        waitingForFirstFrame = nil
        defer { work.end("bracket") }
        do { try start(plan, trigger: trigger, admitted: true, triggeredAt: askedAt, observer: observer) } catch {
            observer?(.finished(sidecar: nil, failure: error.message))
            emit(.bracketFailed(BracketFailure(bracketID: nil, reason: error.message, framesKept: 0, trigger: trigger)))
            showPattern(.error)
        }
    }

    /// A stop began: a shot still waiting for its instant (nothing queued yet) fails now instead of
    /// holding the stop until then; a shot whose frames are coming completes.
    public func cancelShotWaitingForInstant(reason: String) {
        guard let running, running.shot != nil, case .running(let engine) = running.engine, engine.waitingForInstant else { return }
        engine.cancel(reason: reason)
    }

    /// The camera went away: a running bracket fails now (its frames already kept stay), and a
    /// capture waiting for the first frame fails too.
    public func cameraDisconnected() {
        running?.cancelEngine(reason: "camera disconnected mid-bracket")
        failWaitingForFirstFrame("camera disconnected before its first frame")
    }

    private func firstFrameNeverCame(after limit: Duration) {
        failWaitingForFirstFrame("no frame from the camera within \(limit) of the trigger")
    }

    /// Ends a capture that waited for the camera's first frame, saying why (nothing was kept).
    private func failWaitingForFirstFrame(_ reason: String) {
        guard let (_, trigger, _, timeout, observer) = waitingForFirstFrame else { return }
        timeout.cancel()
        waitingForFirstFrame = nil
        observer?(.finished(sidecar: nil, failure: reason))
        counters.bracketsFailed += 1
        emit(.bracketFailed(BracketFailure(bracketID: nil, reason: reason, framesKept: 0, trigger: trigger)))
        showPattern(.error)
        work.end("bracket")
    }

    // MARK: Progress

    private func began(_ result: Result<String, MediaError>, in current: Running) {
        switch result {
        case .success(let id): current.id = id
        case .failure(let error):
            current.storageFailure = error.message
            current.cancelEngine(reason: error.message)
        }
    }

    private func matched(_ frame: BracketEngine.MatchedFrame, in current: Running) {
        guard current.storageFailure == nil, let camera else { return }
        let requested = FrameSettings(exposureTimeMicroseconds: frame.requested.exposureMicroseconds, analogueGain: frame.requested.analogueGain,
                                      isoPerGain: camera.sensor.isoPerGain, evBiasEV: frame.requested.evBias,
                                      lensPositionDioptres: frame.requested.lensDioptres)
        var focus: FocusRecord?
        if frame.requested.lensDioptres != nil, let lens = frame.actualLensDioptres {
            let optics = FocusOptics(sensor: camera.sensor)
            let limits = optics?.sharpLimits(lensDioptres: lens)
            focus = FocusRecord(lensPositionDioptres: lens, nearLimitDioptres: limits?.nearDioptres, farLimitDioptres: limits?.farDioptres,
                                circleOfConfusionPixels: optics?.circleOfConfusionPixels)
        }
        let verdict = frame.verdict
        let stabilization = StabilizationRecord(status: StabilizationRecord.Status(rawValue: verdict.status.rawValue) ?? .off,
                                                measuredBlurPixels: verdict.measuredBlurPixels,
                                                rotationQuaternion: verdict.alignment, attempts: frame.attempts)
        let bound = LoopBound(self, loop: loop)
        let total = current.plan.steps.count, index = frame.index
        attached.onFrameKept(current.id ?? "?", index + 1, frame.request)
        current.observer?(.frameKept(index: index, request: frame.request))
        let run = LoopBound(current, loop: loop)
        var request = frame.request
        request.buffers = request.buffers.filter { current.roles.contains($0.key) }
        writer(for: camera).add(request, requested: requested, index: index, clamped: frame.isClamped,
                   stabilization: stabilization, sensorHDR: camera.sensorHDROn, focus: focus) { result in bound.value.written(result, index: index, total: total, in: run.value) }
    }

    private func written(_ result: Result<FrameRecord?, MediaError>, index: Int, total: Int, in current: Running) {
        switch result {
        case .success(let record?):
            current.framesSaved += 1
            emit(.frameSaved(BracketFrameSaved(bracketID: current.id, frame: index + 1, total: total, record: record)))
        case .success(nil):
            break
        case .failure(let error):
            if current.storageFailure == nil { current.storageFailure = error.message }
            current.cancelEngine(reason: error.message)
        }
    }

    private func engineFinished(_ outcome: BracketEngine.Outcome, in current: Running) {
        switch outcome {
        case .complete(let s): current.statistics = s
        case .failed(let reason, let s): current.statistics = s; current.engineFailure = reason
        }
        let bound = LoopBound(self, loop: loop), run = LoopBound(current, loop: loop)
        guard case .made(let writer) = writers.state else { ended(.success(nil), in: current); return }
        writer.end(failure: current.storageFailure ?? current.engineFailure) { result in bound.value.ended(result, in: run.value) }
    }

    private func ended(_ result: Result<BracketSidecar?, MediaError>, in current: Running) {
        var failure = current.storageFailure ?? current.engineFailure
        var sidecar: BracketSidecar?
        switch result {
        case .success(let s):
            sidecar = s
            if failure == nil, s?.result.status == .failed { failure = s?.result.reason ?? "storage failure" }
            if failure == nil, s == nil { failure = "the bracket was not saved" }
        case .failure(let error):
            failure = (failure.map { $0 + "; " } ?? "") + error.message
        }
        let stats = current.statistics ?? BracketEngine.Statistics()
        current.shot?.ended(sidecar, failure)
        let id = sidecar?.id ?? current.id
        if let failure {
            counters.bracketsFailed += 1
            emit(.bracketFailed(BracketFailure(bracketID: id, reason: failure, framesKept: current.framesSaved, trigger: nil)))
            showPattern(.error)
        } else {
            counters.bracketsSaved += 1
            if let s = sidecar, let (path, render) = attached.gyroLogs?.make(for: s, camera: camera), case .made(let writer) = writers.state {
                let me = LoopBound(self, loop: loop)
                writer.writeFile(rendering: render, to: path) { error in
                    if let error { me.value.emit(.gyroLogFailed(path: path, reason: "\(error)")) }
                }
            }
            emit(.bracketDone(BracketDone(bracketID: id ?? "none", framesSaved: current.framesSaved, statistics: stats, lag: current.lag ?? .zero,
                                          shot: sidecar?.shot, sidecarPath: sidecar.map { $0.folder + "/" + $0.id + ".json" })))
            showPattern(restingPattern)
        }
        current.engine = .released  // breaks the engine ↔ callbacks cycle
        running = nil
        current.observer?(.finished(sidecar: failure == nil ? sidecar : nil, failure: failure))
        work.end("bracket")
        if let (plan, trigger) = waitingButton {
            waitingButton = nil
            do { try start(plan, trigger: trigger) } catch {
                emit(.bracketFailed(BracketFailure(bracketID: nil, reason: error.message, framesKept: 0, trigger: nil)))
            }
            if running != nil { return }
        }
        button.captureDidFinish()
    }

    /// Shows a pattern on the status LED; an error shows for 3 s, then ready unless a bracket runs
    /// again.
    public func showPattern(_ pattern: StatusLEDPattern) {
        led.show(pattern)
        guard pattern == .error else { return }
        let me = LoopBound(self, loop: loop)
        _ = loop.schedule(after: .seconds(3)) {
            let service = me.value
            if service.running == nil, service.led.pattern == .error { service.led.show(service.restingPattern) }
        }
    }

    // MARK: Status

    /// Fields for `status`: capture state, maximum bracket, shutter lag p50/last.
    public func statusFields() -> [(String, String)] {
        var fields: [(String, String)] = [("capture", running.map { "running \($0.id ?? $0.plan.summary)" } ?? "idle"),
                                          ("brackets", "\(bracketsSaved) saved, \(bracketsFailed) failed")]
        if let camera { fields.append(("bracket.max", String(capacity(camera).maximumFrames))) }
        if let last = lags.last {
            fields.append(("shutter.lag.last", String(format: "%.3fms", last.milliseconds)))
            if let p50 = lags.percentileMilliseconds(50) { fields.append(("shutter.lag.p50", String(format: "%.3fms", p50))) }
        }
        return fields
    }
}
