import Foundation
import Hardware

/// Runs one bracket on a streaming camera (`BracketCamera`: the `CameraController`), frame-accurately.
///
/// Every step's request carries its own controls (AeEnable false, ExposureTime, AnalogueGain,
/// FrameDurationLimits wide enough), queued back to back, followed by `pipelineDelayFrames` padding
/// requests holding the last step (the sensor applies exposure and gain that many frames after the
/// request is taken, so the last step's frame arrives on a later request). Completed frames are
/// matched to steps by their METADATA (ExposureTime and AnalogueGain actually used, within
/// `BracketMatching`'s tolerance), never by position: frames still carrying the previous settings
/// are skipped. A frame whose values equal the step clamped to the sensor's limits is matched and
/// flagged `isClamped`. Steps still unmatched when a burst's requests are all back (a dropped frame,
/// a retake) are queued again in a new burst, within the frame and time limits.
///
/// A request that finds no free buffer (busy: the pipeline gave fewer buffers than asked, or viewers
/// hold them) waits: the camera stops replacing its regular requests until the bracket's
/// requests are queued, and the engine retries every frame time (`Statistics.bufferWaits`).
///
/// Zero shutter lag for a single capture with the current settings (`takesRegularFramesFrom`): the
/// regular frame whose exposure began nearest the trigger, filling the bracket's streams and
/// matching the step's settings by its metadata, is the still. The streaming requests already in
/// flight would otherwise come first, several frames after the trigger; with this the still begins
/// within one frame of it. The step's own request still goes in (a frame like any other, and the
/// still when no regular frame serves).
///
/// Focus steps (`BracketStep.focus`) also carry AfMode manual and their LensPosition, and the white
/// balance in force when the bracket starts (ColourGains, AWB off), so exposure and colour are held
/// for the stack. A step's frame is the first whose LensPosition metadata is the step's (within
/// the lens's resolution) and whose exposure matches, so frames taken while the lens travels are
/// skipped. The travel is planned in frames: after a step that moves the lens, requests holding
/// the step are queued for the frames the lens needs (`lensTravelDioptresPerFrame`); before the
/// lens moves on from a position at which the exposure changed (an EV bracket at each position),
/// `pipelineDelayFrames` requests hold it so the last exposure lands there. Nothing waits on a timer.
/// Regular requests are held for the whole of a focus bracket: they carry the focus settings' lens.
///
/// A camera without ExposureTime/AnalogueGain controls (vimc, some USB cameras) cannot vary or
/// confirm exposure: only plans of "the current settings" (bias 0) run on it, each step takes the
/// next complete frame of its own request, and the frame is reported with no actual settings
/// (`confirmsSettings` false), never with assumed ones.
///
/// A shot at a shared instant (`notBefore`): no frame whose exposure starts before the instant is
/// kept, whatever its settings; the frame's metadata decides (`ExposureInstant`), never a timer.
/// The engine waits for the instant on the regular frames: at the first one from which the
/// requests in flight, the pipeline delay and a margin reach the instant, it holds regular requests
/// and queues the first step followed by lead-in requests holding the first step's settings, enough
/// to cover the frames up to the instant and a margin. The frames before the instant are skipped
/// (`Statistics.framesBeforeInstant`); the first lead-in frame at or after it is the first step's.
///
/// Loop-confined, like the camera.
public final class BracketEngine {
    /// The streaming camera whose requests it queues; regular frames reach the engine through
    /// its pipeline's bracket stage.
    public let camera: any BracketCamera
    /// Asked before and after each frame (stabilization; `UngatedFrames` by default).
    public let gate: any BracketFrameGate
    /// Request and time limits.
    public let limits: Limits
    /// Frames between a request being taken and its exposure/gain being used (sensor delays); 0
    /// when the camera has no exposure controls.
    public let pipelineDelayFrames: Int
    /// True when frames are matched to steps by their ExposureTime/AnalogueGain metadata; false on
    /// a camera without those controls (see the type's comment).
    public let confirmsSettings: Bool
    /// Bracket requests outstanding at most: the free buffers of the bracket's streams (libcamera
    /// needs a free buffer per stream to queue a request). More are queued as frames complete.
    public let maximumRequestsInFlight: Int
    /// Steps as resolved at start (auto-range appends).
    public var steps: [ResolvedStep] {
        progress.resolved
    }
    /// Each step and how far it has got (BracketSteps.swift).
    private var progress: BracketSteps
    /// Counters so far.
    public private(set) var statistics = Statistics()
    /// Where the bracket is: before `start`, waiting for a shot's instant, running, or finished.
    private enum Phase { case ready, waitingForInstant, running, finished }
    private var phase = Phase.ready
    /// True once `onFinish` has run.
    public var isFinished: Bool {
        phase == .finished
    }
    /// How far the lens is assumed to move in one frame when travel is planned, dioptres. A
    /// planning estimate, not a property of any lens: every frame is still confirmed from its
    /// LensPosition, and a step whose frame did not arrive is queued again.
    public static let lensTravelDioptresPerFrame = 1.5
    /// LensPositions within this of a step's are the step's (`BracketMatching.lensTolerance`).
    public let lensToleranceDioptres: Double
    /// The white balance focus steps hold (ColourGains); nil for other plans.
    public let heldColourGains: WhiteBalanceGains?
    /// A shot's instant: frames whose exposure starts before it are skipped (see the type's comment).
    public let notBefore: ExposureInstant?
    /// True while a shot waits, on the regular frames, for the point at which it queues.
    public var waitingForInstant: Bool {
        phase == .waitingForInstant
    }
    /// Margin a shot's first request is queued ahead of the instant, beyond what the requests in
    /// flight and the pipeline delay need, and lead-in requests planned beyond the frames up to
    /// the instant: at least `instantMarginFrames`, and at least `instantMargin` of frames, so that
    /// a loop held that long near the queueing point (a status poll, a write) still lands the
    /// first step on the instant. With 2 frames alone, 3 of 12 synced rigs of the spin table
    /// exposed 7 frames late on a quiet machine; with 300 ms, all 12 on the instant.
    public static let instantMarginFrames = 2
    public static let instantMargin: Duration = .milliseconds(300)

    /// The margin in frames of `periodNanoseconds`.
    static func instantMarginFrames(periodNanoseconds: Int64) -> Int {
        let period = max(periodNanoseconds, 1)
        return max(instantMarginFrames, Int((instantMargin.nanoseconds + period - 1) / period))
    }

    private let roles: [StreamRole]?
    /// The trigger, from which regular frames may serve the one step (nil: only the bracket's own).
    private let regularFramesFrom: MonotonicTime?
    /// Called once, on the loop, when the first request is handed to the camera (within `start()`
    /// unless it had to wait for a buffer): the end of shutter lag.
    private let onFirstRequestQueued: (MonotonicTime) -> Void
    private let onFrame: (MatchedFrame) -> Void
    private let onFinish: (Outcome) -> Void
    /// Auto-range's state while the plan auto-ranges; nil otherwise.
    private var autoRange: AutoRangeRun?
    /// The requests planned and outstanding (BracketRequests.swift).
    private var requests: BracketRequests
    /// The time limit, the gate's wait and the buffer retry (BracketTimers.swift).
    private var timers = BracketTimers()
    /// The camera's hold on regular requests while this bracket needs it; nil otherwise.
    private var regularRequestHold: RegularRequestHold?
    /// True when the window is smaller than a burst: regular requests are held for the whole
    /// bracket, so its requests reach the sensor back to back and each step's settings land on a
    /// bracket frame, not on a regular one between them.
    private var holdsForWholeBracket = false

    /// An engine for `plan` on `camera` (streaming). Steps are resolved now from the exposure
    /// settings (custom, locked) or the latest frame's exposure (auto). `onFirstRequestQueued` gets
    /// the time the first request went to the camera, `onFrame` each kept frame, `onFinish` the
    /// outcome, all on the loop.
    /// `roles` are the streams each bracket request fills (nil: the camera's processed + raw).
    /// `takesRegularFramesFrom`: the trigger, for a plan of one step of the current settings (bias
    /// 0, no auto-range) that may take a regular frame exposed from then on (zero shutter lag).
    public init(camera: any BracketCamera, plan: BracketPlan, gate: any BracketFrameGate = UngatedFrames(),
                roles: [StreamRole]? = nil, maximumSteps: Int = 32, maximumRequestsInFlight: Int = .max, limits: Limits = Limits(),
                takesRegularFramesFrom trigger: MonotonicTime? = nil, notBefore: ExposureInstant? = nil,
                onFirstRequestQueued: @escaping (MonotonicTime) -> Void = { _ in },
                onFrame: @escaping (MatchedFrame) -> Void, onFinish: @escaping (Outcome) -> Void) throws {
        guard plan.steps.count <= maximumSteps else {
            throw CameraError(.outOfRange, "bracket: \(plan.steps.count) frames exceed the maximum of \(maximumSteps)")
        }
        self.camera = camera; self.gate = gate; self.limits = limits
        self.onFirstRequestQueued = onFirstRequestQueued
        self.onFrame = onFrame; self.onFinish = onFinish; self.roles = roles
        self.notBefore = notBefore
        // A shot takes its own frames only: regular requests are held from its lead-in on.
        regularFramesFrom = plan.steps == [.evBias(0)] && plan.autoRange == nil && notBefore == nil ? trigger : nil
        self.maximumRequestsInFlight = max(maximumRequestsInFlight, 1)
        confirmsSettings = camera.controlsExposure
        let focuses = plan.steps.contains { if case .focus = $0 { true } else { false } }
        if focuses && camera.afSystem == "none" {
            throw CameraError(.unsupported, "bracket: \(camera.sensor.model) has no lens control (fixed focus), so it cannot take a focus bracket")
        }
        lensToleranceDioptres = BracketMatching.lensTolerance(resolutionDioptres: camera.sensor.lensPositionResolutionDioptres)
        let latestFrame = camera.latestRegular ?? camera.latest
        heldColourGains = focuses ? (camera.lockedGains ?? latestFrame?.colourGains) : nil
        requests = BracketRequests(lensDioptres: latestFrame?.lensPositionDioptres)
        holdsForWholeBracket = focuses
        generation = camera.streamingGeneration
        let format = camera.activeFormat.format
        let range = format.minimumExposureMicroseconds...max(format.maximumExposureMicroseconds, format.minimumExposureMicroseconds)
        let isoPerGain = camera.sensor.isoPerGain
        if confirmsSettings {
            pipelineDelayFrames = max(camera.sensor.exposureDelayFrames, camera.sensor.gainDelayFrames, 0)
            let base = try Self.meteredExposure(camera)
            progress = BracketSteps(plan.steps.map {
                ResolvedStep.resolve($0, meteredMicroseconds: base.microseconds, meteredGain: base.gain, durationRange: range, isoPerGain: isoPerGain)
            })
            autoRange = plan.autoRange.map {
                AutoRangeRun(policy: $0, maximumSteps: maximumSteps, metered: base, durationRange: range, isoPerGain: isoPerGain)
            }
        } else {
            guard plan.autoRange == nil, plan.steps.allSatisfy({ $0 == .evBias(0) }) else {
                throw CameraError(.unsupported, "bracket: camera \(camera.sensor.model) has no ExposureTime/AnalogueGain controls, so it cannot vary exposure; only `capture` (its own settings) works")
            }
            pipelineDelayFrames = 0
            progress = BracketSteps(plan.steps.map { _ in ResolvedStep(exposureMicroseconds: 0, analogueGain: 0, evBias: 0) })
        }
    }

    /// The base exposure EV steps are relative to: the settings themselves in custom and locked
    /// modes (so a capture right after `set` uses the new values), the latest regular frame in auto.
    private static func meteredExposure(_ camera: any BracketCamera) throws -> (microseconds: Int, gain: Double) {
        if case .custom(let duration, let iso) = camera.exposureMode { return (duration, iso / camera.sensor.isoPerGain) }
        if case .locked = camera.exposureMode, let held = camera.lockedExposure { return (held.durationMicroseconds, held.gain) }
        // A regular frame's exposure: the latest frame may be a previous bracket's +N EV step.
        if let latest = (camera.latestRegular ?? camera.latest)?.exposure { return (latest.durationMicroseconds, latest.gain) }
        if camera.latest != nil {
            throw CameraError(.notReady, "bracket: no frame has reported its ExposureTime/AnalogueGain yet, so there is no metered exposure to bracket around")
        }
        throw CameraError(.notReady, "bracket: no frame metered yet; is the camera streaming?")
    }

    /// The camera's streaming generation the bracket was resolved for.
    private let generation: Int

    /// Queues the first burst. Throws when the camera refuses the first request (nothing queued).
    public func start() throws {
        let budgetFrames = progress.count + pipelineDelayFrames + camera.requestsInFlight + 4
        let longest = progress.resolved.map(\.exposureMicroseconds).max() ?? 0
        let frameMicroseconds = max(Int64(longest), camera.frameDurationRangeMicroseconds.minimum,
                                    camera.observedFrameIntervalMicroseconds ?? 0)
        var allowed = Duration.microseconds(frameMicroseconds * Int64(budgetFrames * limits.requestBudgetFactor)) + limits.timeSlack
        if let notBefore {
            // The time until the instant, and the lead-in frames.
            let wait = max(.zero, notBefore.monotonic - camera.loop.now())
            let margin = Self.instantMarginFrames(periodNanoseconds: frameMicroseconds * 1000)
            allowed += wait + .microseconds(frameMicroseconds * Int64(camera.regularRequestLimit + pipelineDelayFrames + 2 * margin + 2))
        }
        armTimeout(at: camera.loop.now() + allowed)
        if notBefore != nil {
            phase = .waitingForInstant
            holdsForWholeBracket = true
            camera.engageBracketStage(.waitingForInstant(self))
            return
        }
        phase = .running
        if confirmsSettings, maximumRequestsInFlight < progress.count + pipelineDelayFrames { holdsForWholeBracket = true }
        if holdsForWholeBracket { holdRegularRequests() }
        if regularFramesFrom != nil { camera.engageBracketStage(.takingRegularFrames(self)) }
        do {
            try queueBurst(from: 0)
        } catch {
            camera.releaseBracketStage(self)
            // The caller hears of it from the throw, not from onFinish.
            phase = .finished
            timers.cancelTimeoutAndRetry()
            releaseRegularRequests()
            throw error
        }
    }

    /// A regular frame while a shot waits: queues the first step and its lead-in once the requests
    /// in flight, the pipeline delay and the margin reach the instant from this frame.
    /// Called by the pipeline's bracket stage while this bracket waits there.
    func regularFrameBeforeInstant(_ request: CompletedRequest) {
        guard waitingForInstant, !isFinished, let notBefore else { return }
        let periodNanoseconds = 1_000 * max(1, camera.observedFrameIntervalMicroseconds
            ?? request.metadata[ControlName.frameDuration]?.int64Value ?? camera.frameDurationRangeMicroseconds.minimum)
        let exposed = notBefore.exposureStart(of: request).wallClockNanoseconds
        let margin = Self.instantMarginFrames(periodNanoseconds: periodNanoseconds)
        let framesAhead = Int64(camera.regularRequestLimit + 1 + pipelineDelayFrames + margin)
        guard exposed + framesAhead * periodNanoseconds >= notBefore.wallClockNanoseconds else { return }
        phase = .running
        camera.releaseBracketStage(self)
        holdRegularRequests()
        let framesToInstant = Int(max(0, (notBefore.wallClockNanoseconds - exposed + periodNanoseconds - 1) / periodNanoseconds))
        let leadIn = framesToInstant + margin
        plan(progress.unmatched(progress.indices))
        requests.leadIn(leadIn, of: progress)
        do { try pump() } catch { fail("camera: \(error)") }
        finishBurstIfIdle()
    }

    /// (Re)arms the time limit at `time`.
    private func armTimeout(at time: MonotonicTime) {
        timers.cancelTimeout()
        let bound = LoopBound(self, loop: camera.loop)
        let started = statistics.firstRequestQueuedAt ?? camera.loop.now()
        let work = camera.loop.schedule(at: time) {
            let engine = bound.value
            let missing = engine.progress.missingCount
            engine.fail("timeout: the bracket did not complete within \(time - started) (\(missing) step(s) missing)")
        }
        timers.armed(work, at: time)
    }

    /// Moves the time limit later by `extra` (time the gate made the bracket wait, or a retake's frames).
    private func extendTimeout(by extra: Duration) {
        guard let deadline = timers.deadline, !isFinished else { return }
        armTimeout(at: deadline + extra)
    }

    /// Ends the bracket now (e.g. storage refused it); frames still in flight are ignored.
    public func cancel(reason: String) { fail(reason) }

    // MARK: Queueing

    private var requestBudget: Int {
        limits.requestBudgetFactor * (progress.count + pipelineDelayFrames) + 8 + requests.extraBudget
    }

    /// Plans the unmatched steps from `start` on, then the padding, and queues what the window allows.
    private func queueBurst(from start: Int) throws {
        guard !isFinished else { return }
        plan(progress.unmatched(start..<progress.count))
        try pump()
    }

    /// Plans `indices` in order, with the lens's travel and settling (see the type's comment), then
    /// the padding that lets the last step's exposure land. Requests planned for the lens get
    /// their own budget and time.
    private func plan(_ indices: [Int]) {
        let travel = requests.plan(indices, of: progress, pipelineDelayFrames: pipelineDelayFrames, lensToleranceDioptres: lensToleranceDioptres,
                                   nearestFocusDioptres: camera.lensPositionRangeDioptres.upperBound)
        guard travel > 0 else { return }
        statistics.lensTravelRequests += travel
        let frameMicroseconds = camera.observedFrameIntervalMicroseconds ?? camera.activeFormat.minimumFrameDurationMicroseconds
        extendTimeout(by: .microseconds(frameMicroseconds * Int64(travel)))
    }

    /// Queues planned requests while fewer than `maximumRequestsInFlight` are outstanding, asking
    /// the gate before each step. A `.wait` pads after the last step queued and resumes later.
    private func pump() throws {
        guard !isFinished, !requests.isQueueing else { return }
        requests.isQueueing = true
        defer { requests.isQueueing = false }
        while requests.hasRoom(window: maximumRequestsInFlight), !isFinished, let item = requests.takeNext() {
            switch item {
            case .pad(let step):
                guard try queueOrWaitForBuffer(step, item: .pad(step)) != nil else { return }
            case .step(let index):
                let step = progress[index]
                if case .wait(let delay) = gate.readiness(index: index, exposure: .microseconds(step.exposureMicroseconds), now: camera.loop.now()) {
                    // The step queued last still needs its padding to reach the sensor.
                    let rest = requests.waitForGate(pipelineDelayFrames: pipelineDelayFrames)
                    let bound = LoopBound(self, loop: camera.loop)
                    let resumeAt = [index] + rest
                    timers.resume = camera.loop.schedule(after: delay) { bound.value.resume(resumeAt) }
                    extendTimeout(by: delay)
                    continue
                }
                guard statistics.requestsQueued < requestBudget else {
                    fail("timeout: \(statistics.requestsQueued) requests used and step \(index + 1) never matched")
                    return
                }
                guard let cookie = try queueOrWaitForBuffer(step, item: .step(index)) else { return }
                progress.queued(index, cookie: cookie)
                requests.stepQueued(step)
            }
        }
        // Released once all is queued, or while the gate makes the bracket wait (the viewfinder
        // goes on meanwhile; `resume` holds again).
        if requests.planned.isEmpty && (!holdsForWholeBracket || timers.resume != nil) { releaseRegularRequests() }
    }

    /// Queues `step`; when the camera has no free buffer (busy), puts `item` back first in line,
    /// holds the camera's regular requests so their buffers come free, and tries again after a
    /// frame time or at the next completion. Returns nil while waiting.
    private func queueOrWaitForBuffer(_ step: ResolvedStep, item: BracketRequests.Planned) throws -> UInt64? {
        do {
            return try queue(step)
        } catch let error as HardwareError where error.kind == .busy {
            requests.putBack(item)
            statistics.bufferWaits += 1
            // Held regular requests free processed-stream buffers; a raw-only bracket gains nothing.
            if roles?.contains(camera.processedRole) ?? true { holdRegularRequests() }
            guard timers.bufferRetry == nil else { return nil }
            let bound = LoopBound(self, loop: camera.loop)
            timers.bufferRetry = camera.loop.schedule(after: .microseconds(camera.activeFormat.minimumFrameDurationMicroseconds)) {
                let engine = bound.value
                engine.timers.bufferRetry = nil
                do { try engine.pump() } catch { engine.fail("camera: \(error)") }
                engine.finishBurstIfIdle()
            }
            return nil
        }
    }

    private func holdRegularRequests() {
        if regularRequestHold == nil { regularRequestHold = camera.holdRegularRequests() }
    }

    private func releaseRegularRequests() {
        if let hold = regularRequestHold { camera.releaseRegularRequests(hold) }
        regularRequestHold = nil
    }

    private func resume(_ indices: [Int]) {
        timers.resume = nil
        if holdsForWholeBracket { holdRegularRequests() }
        plan(progress.unmatched(indices))
        do { try pump() } catch { fail("camera: \(error)") }
        finishBurstIfIdle()
    }

    private func queue(_ step: ResolvedStep) throws -> UInt64 {
        guard camera.isStreaming, camera.streamingGeneration == generation else {
            throw CameraError(.notReady, "the camera stopped or restarted (a format change?) mid-bracket")
        }
        let bound = LoopBound(self, loop: camera.loop)
        let controls = confirmsSettings ? stepControls(step) : [:]
        let cookie = try camera.queueRequest(controls: controls, roles: roles) { completed in bound.value.completed(completed) }
        requests.sent(cookie)
        statistics.requestsQueued += 1
        statistics.maximumOutstanding = max(statistics.maximumOutstanding, requests.outstanding.count)
        if statistics.firstRequestQueuedAt == nil {
            let now = camera.loop.now()
            statistics.firstRequestQueuedAt = now
            onFirstRequestQueued(now)
        }
        return cookie
    }

    /// A step's own controls: AE off (and both exposure modes manual where the camera has them), its
    /// ExposureTime and AnalogueGain, frame durations that fit it.
    private func stepControls(_ step: ResolvedStep) -> ControlList {
        var controls = camera.manualExposureControls
        controls[ControlName.exposureTime] = .int32(Int32(clamping: step.exposureMicroseconds))
        controls[ControlName.analogueGain] = .float(Float(step.analogueGain))
        // The format's range, or a recording's fixed rate (its frames keep their rhythm unless
        // the exposure is longer).
        let frames = camera.frameDurationRangeMicroseconds
        controls[ControlName.frameDurationLimits] = .int64Array([frames.minimum, max(frames.maximum, Int64(step.exposureMicroseconds))])
        if let lens = step.lensDioptres {
            controls[ControlName.afMode] = .int32(0)
            controls[ControlName.lensPosition] = .float(Float(lens))
        }
        if let gains = heldColourGains {
            controls[ControlName.awbEnable] = .bool(false)
            controls[ControlName.colourGains] = .floatArray([Float(gains.red), Float(gains.blue)])
        }
        return controls
    }

    // MARK: Matching

    private func completed(_ request: CompletedRequest) {
        requests.returned(request.cookie)
        guard !isFinished else { return }
        defer { if !isFinished { do { try pump() } catch { fail("camera: \(error)") }; finishBurstIfIdle() } }
        guard request.isComplete else {
            fail("camera stopped or disconnected mid-bracket (request \(request.cookie) cancelled)")
            return
        }
        if let notBefore, !notBefore.admits(request) {
            statistics.framesSkipped += 1
            statistics.framesBeforeInstant += 1
            return
        }
        if statistics.firstSequence == nil { statistics.firstSequence = request.sequence }
        guard confirmsSettings else {
            // No exposure to match: the frame of a step's own request is that step's frame.
            if let index = progress.pending(upTo: request.cookie).first {
                accept(index: index, clamped: false, actual: nil, request: request)
            } else {
                statistics.framesSkipped += 1
            }
            return
        }
        guard let actual = Self.reportedExposure(request) else {
            statistics.framesSkipped += 1
            statistics.framesWithoutSettings += 1
            return
        }
        let lens = request.metadata[ControlName.lensPosition]?.doubleValue
        if let (index, clamped) = match(actual, lens: lens, pending: progress.pending(upTo: request.cookie)) {
            accept(index: index, clamped: clamped, actual: actual, lens: lens, request: request)
        } else {
            statistics.framesSkipped += 1
        }
    }

    /// The ExposureTime (µs) and AnalogueGain a frame's metadata reports; nil when it reports none.
    private static func reportedExposure(_ request: CompletedRequest) -> (microseconds: Int, gain: Double)? {
        guard let exposure = request.metadata[ControlName.exposureTime]?.int64Value,
              let gain = request.metadata[ControlName.analogueGain]?.doubleValue else { return nil }
        return (Int(exposure), gain)
    }

    /// The pending step whose settings `actual` are (`BracketMatching`), and whether clamped.
    private func match(_ actual: (microseconds: Int, gain: Double), lens: Double? = nil, pending: [Int]) -> (index: Int, clamped: Bool)? {
        BracketMatching.match(actualExposureMicroseconds: actual.microseconds, actualGain: actual.gain, actualLensDioptres: lens,
                              lensTolerance: lensToleranceDioptres, steps: progress.resolved, pending: pending, controlInfo: camera.controlInfo)
    }

    /// A regular frame, while the one step may take one: kept when its exposure began nearest the
    /// trigger (no more than half a frame before it; frames come one frame time apart, so the first
    /// such frame is within half a frame either side), it fills the bracket's streams, the gate let
    /// the step go (its own request is queued) and, on a camera that reports them, its ExposureTime
    /// and AnalogueGain match the step. Called by the pipeline's bracket stage.
    func regularFrameCompleted(_ request: CompletedRequest) {
        let frameMicroseconds = camera.observedFrameIntervalMicroseconds ?? camera.frameDurationRangeMicroseconds.minimum
        guard !isFinished, let trigger = regularFramesFrom,
              request.sensorTimestamp >= trigger - .microseconds(frameMicroseconds / 2),
              let index = progress.firstQueuedUnmatched else { return }
        // Regular requests may carry the viewfinder's stabilization crop, which a capture's own do
        // not; and a frame whose request went in before a change of settings is not the capture's.
        guard camera.streamingGeneration == generation, camera.streamingControls.isEmpty,
              camera.regularRequestHadCurrentControls(request.cookie) else { return }
        guard (roles ?? camera.captureRoles).allSatisfy({ request.buffers[$0] != nil }) else { return }
        var actual: (microseconds: Int, gain: Double)?
        var clamped = false
        if confirmsSettings {
            guard let reported = Self.reportedExposure(request), let matched = match(reported, pending: [index]) else { return }
            actual = reported
            clamped = matched.clamped
        }
        if statistics.firstSequence == nil { statistics.firstSequence = request.sequence }
        accept(index: index, clamped: clamped, actual: actual.map { ($0.microseconds, $0.gain) }, request: request)
        finishBurstIfIdle()
    }

    /// Keeps (or, on the gate's word, retakes) a step's frame. `actual` is nil when the camera
    /// reports no exposure: the gate then judges the whole frame duration.
    private func accept(index: Int, clamped: Bool, actual: (Int, Double)?, lens: Double? = nil, request: CompletedRequest) {
        let frameMicroseconds = request.metadata[ControlName.frameDuration]?.int64Value
            ?? camera.activeFormat.minimumFrameDurationMicroseconds
        let verdict = gate.judge(index: index, attempt: progress.attempts(index), exposureStart: request.sensorTimestamp,
                                 exposure: .microseconds(actual.map { Int64($0.0) } ?? frameMicroseconds))
        if verdict.retake && progress.attempts(index) < limits.maximumAttempts {
            statistics.retakes += 1
            progress.retake(index)
            // A retake is the gate's choice: it gets its own requests and frame time.
            requests.grant(1 + pipelineDelayFrames)
            extendTimeout(by: .microseconds(frameMicroseconds * Int64(1 + pipelineDelayFrames + camera.requestsInFlight)))
            return
        }
        progress.matched(index)
        statistics.lastSequence = request.sequence
        if autoRange != nil, let bias = progress[index].evBias, let buffer = request.buffers[camera.processedRole] {
            autoRange?.measure(bias: bias, buffer: buffer)
        }
        onFrame(MatchedFrame(index: index, attempts: progress.attempts(index), requested: progress[index], actualExposureMicroseconds: actual?.0,
                             actualGain: actual?.1, actualLensDioptres: lens, isClamped: clamped, verdict: verdict, request: request))
    }

    /// Done as soon as every step is matched (padding still planned is dropped; requests still in
    /// flight are ignored), else extend (auto-range); steps still missing when every request of the
    /// burst is back are queued again.
    private func finishBurstIfIdle() {
        guard !isFinished, !requests.isQueueing, !waitingForInstant, timers.resume == nil else { return }
        if progress.allMatched {
            requests.dropPlanned()
            if extendRange() { return }
            finish(.complete(statistics))
            return
        }
        guard requests.isIdle else { return }
        let first = progress.firstUnmatched ?? 0
        do { try queueBurst(from: first) } catch { fail("camera: \(error)") }
    }

    /// Adds auto-range's next steps and queues them; false when there are none (the range is
    /// covered, or the plan does not auto-range).
    private func extendRange() -> Bool {
        guard let more = autoRange?.moreSteps(stepCount: progress.count), !more.isEmpty else { return false }
        let start = progress.count
        for step in more { progress.append(step) }
        do { try queueBurst(from: start) } catch { fail("camera: \(error)") }
        return true
    }

    private func fail(_ reason: String) {
        var reason = reason
        if statistics.framesWithoutSettings > 0 {
            reason += "; \(statistics.framesWithoutSettings) frame(s) reported no ExposureTime/AnalogueGain, so their settings could not be confirmed"
        }
        finish(.failed(reason: reason, statistics))
    }

    private func finish(_ outcome: Outcome) {
        guard !isFinished else { return }
        let wasWaitingForInstant = waitingForInstant
        phase = .finished
        if regularFramesFrom != nil || wasWaitingForInstant { camera.releaseBracketStage(self) }
        timers.cancelAll()
        releaseRegularRequests()
        onFinish(outcome)
    }
}
