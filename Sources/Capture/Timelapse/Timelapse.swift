import Camera
import Foundation
import Hardware
import Lifecycle
import Media
import Units

/// A running time-lapse as it is kept across restarts (timelapse.json in the state directory):
/// the plan, its start, the next shot number and the ramp, so that a supervisor started again goes
/// on with the same numbering and exposure.
public struct TimelapseState: Hashable, Sendable, Codable {
    public var plan: TimelapsePlan
    /// When shot 1 was due (the start), wall clock.
    public var startTime: Date
    /// The next slot to consider, numbered from 1.
    public var nextShot = 1
    /// Shots saved, missed (late, camera away, busy) and failed (started, not saved).
    public var taken = 0
    public var missed = 0
    public var failed = 0
    /// The exposure ramp, for `ramp auto`.
    public var ramp: ExposureRamp?
    /// The last shot's metering, for `status`.
    public var lastMetering: ExposureRamp.Metering?
    /// Bytes the last saved shot took (its files and sidecar): `status` divides the free space by it.
    public var lastShotBytes: Int64?

    public init(plan: TimelapsePlan, startTime: Date, rampRateEVPerHour: Double) {
        self.plan = plan
        self.startTime = startTime
        ramp = plan.ramp ? ExposureRamp(rateEVPerHour: rampRateEVPerHour) : nil
    }

    /// When shot `k` is due: start + (k − 1) × interval.
    public func due(_ shot: Int) -> Date {
        startTime.addingTimeInterval(Double(shot - 1) * Double(plan.intervalNanoseconds) / 1e9)
    }
}

/// The intervalometer (`timelapse start|stop|status`): takes shot k at start + (k − 1) × interval
/// on the wall clock through the capture service, so every shot is a frame-accurate bracket with
/// its own sidecar. A shot that cannot start on time (late, the camera away, a capture still
/// running) is counted as missed and never taken later: shots are not bunched. With `ramp auto`
/// each shot's raw frame is metered and the next one's exposure ramped (`ExposureRamp`), and each
/// frame gets an XMP sidecar with the correction left. Loop-confined; owns its state, which flows
/// out through `persist` (the supervisor's state writer) and `emit` (the consoles). The ramp's
/// rate is the `timelapse.ramp.rate` in force, read from `settings` whenever the ramp moves or is
/// kept.
public final class Timelapse {
    public let loop: any EventLoop
    /// The capture service, as far as the time-lapse needs it: its camera read, its shots started.
    let capture: any TimelapseCapture
    let wallClock: () -> Date
    let persist: (TimelapseState?) -> Void
    let emit: (TimelapseEvent) -> Void
    /// The action's words as a plan (the supervisor's bracket parser, which knows the presets).
    let resolveAction: ([String]) throws(CaptureError) -> BracketPlan
    /// The settings in force: the ramp's rate (`timelapse.ramp.rate`) and `capture.format`.
    let settings: any CaptureSettingsView
    public private(set) var state: TimelapseState?
    /// The shot in progress and its metering, once its base frame was metered.
    private var shotInProgress: (shot: Int, metering: ExposureRamp.Metering?)?
    private var timer: ScheduledWork?
    /// A due shot is late beyond this and is missed: half the interval, at most a second.
    static func lateness(interval: Duration) -> Duration { min(interval / 2, .seconds(1)) }

    public init(loop: any EventLoop, capture: any TimelapseCapture, settings: any CaptureSettingsView, wallClock: @escaping () -> Date,
                resolveAction: @escaping ([String]) throws(CaptureError) -> BracketPlan,
                persist: @escaping (TimelapseState?) -> Void, emit: @escaping (TimelapseEvent) -> Void) {
        self.loop = loop; self.capture = capture; self.settings = settings; self.wallClock = wallClock; self.resolveAction = resolveAction
        self.persist = persist; self.emit = emit
    }

    /// `state` kept (timelapse.json) with the ramp's rate in force.
    private func save(_ state: TimelapseState?) {
        persist(state.map(withRateInForce))
    }

    /// `state` with its ramp's rate set to the `timelapse.ramp.rate` in force.
    private func withRateInForce(_ state: TimelapseState) -> TimelapseState {
        var ramped = state
        ramped.ramp?.rateEVPerHour = settings.timelapseRampRateEVPerHour
        return ramped
    }

    public var isRunning: Bool { state != nil }

    // MARK: Start, resume, stop

    /// Checks the plan against the camera and starts it: shot 1 now. Returns the state it started with.
    public func start(_ plan: TimelapsePlan) throws(CaptureError) -> TimelapseState {
        if let state { throw CaptureError(.busy, "a time-lapse is running (\(state.plan.summary)); timelapse stop first") }
        let action = try check(plan)
        let started = TimelapseState(plan: plan, startTime: wallClock(), rampRateEVPerHour: settings.timelapseRampRateEVPerHour)
        state = started
        emit(.started(plan, framesPerShot: action.steps.count))
        fire()
        return started
    }

    /// Goes on with a time-lapse kept from before a restart: the shots due meanwhile are missed,
    /// the numbering goes on. A plan the camera no longer takes is dropped, saying why.
    public func resume(_ saved: TimelapseState) {
        guard state == nil else { return }
        do { _ = try check(saved.plan) } catch {
            emit(.notResumed(reason: error.message, taken: saved.taken))
            save(nil)
            return
        }
        state = withRateInForce(saved)
        emit(.resumed(saved))
        fire()
    }

    /// The supervisor stops: no more shots, but the state stays persisted, so the next start resumes.
    public func suspend() {
        timer?.cancel()
        timer = nil
        if let state { save(state) }
        state = nil
    }

    /// Ends the time-lapse (a shot in progress still completes). Returns the state it ended with;
    /// nil when none ran.
    @discardableResult
    public func stop(reason: String) -> TimelapseState? {
        guard let finished = state else { return nil }
        timer?.cancel()
        timer = nil
        state = nil
        save(nil)
        emit(.stopped(finished, reason: reason))
        return finished
    }

    /// The action as a plan, checked against the camera: ramp needs a raw stream and an exposure
    /// it can set; the interval must leave room for the action's frames.
    private func check(_ plan: TimelapsePlan) throws(CaptureError) -> BracketPlan {
        let action = try resolveAction(plan.action)
        guard let camera = capture.bracketCamera else { throw CaptureError(.unsupported, "no camera") }
        if plan.ramp {
            guard action.steps.allSatisfy({ if case .evBias = $0 { return true } else { return false } }), action.focus == nil,
                  action.autoRange == nil else {
                throw CaptureError(.unsupported, "ramp auto sets each shot's exposure: it takes capture or an ev bracket, not \(action.summary)")
            }
            guard camera.activeFormat.format.rawPixelFormat != nil, capture.captureFormat != .jpeg else {
                throw CaptureError(.unsupported, "ramp auto meters each shot's raw frame: "
                                   + (capture.captureFormat == .jpeg ? "\(capture.captureFormatKey) jpeg keeps none (use dng or both)" : "format \(camera.activeFormat.format.label) has no raw stream"))
            }
        }
        var frames = action.steps.count
        if action.focus != nil {
            guard let maximumFrames = capture.maximumBracketFrames else { throw CaptureError(.unsupported, "no camera") }
            do { frames = try action.resolvingFocus(for: camera, maximumFrames: maximumFrames).steps.count }
            catch { throw CaptureError(.outOfRange, "\(error)") }
        }
        let shortest = Self.shortestInterval(frames: frames, camera: camera, action: action)
        if plan.interval < shortest {
            throw CaptureError(.outOfRange, "every \(ValueText.span(plan.interval)) is shorter than \(action.summary) takes "
                               + "(\(frames) frame(s) and the sensor's delay); the shortest interval that works is \(ValueText.span(shortest))")
        }
        return action
    }

    /// The shortest interval for an action of `frames` frames: those frames, the pipeline's delay
    /// and one spare, at the camera's frame interval (or the action's longest manual exposure),
    /// rounded up to a tenth of a second.
    static func shortestInterval(frames: Int, camera: any BracketCamera, action: BracketPlan) -> Duration {
        let frameMicroseconds = camera.observedFrameIntervalMicroseconds ?? camera.activeFormat.minimumFrameDurationMicroseconds
        let longestManual = action.steps.compactMap { step -> Int64? in
            if case .manual(let duration, _) = step { return Int64(duration) } else { return nil }
        }.max() ?? 0
        let delay = max(camera.sensor.exposureDelayFrames, camera.sensor.gainDelayFrames, 0)
        let total = Double(frames + delay + 1) * Double(max(frameMicroseconds, longestManual)) / 1e6
        return .milliseconds(Int64((total * 10).rounded(.up)) * 100)
    }

    /// The longest exposure the ramp gives a shot of `frames` frames: what leaves the interval room
    /// for them and the pipeline's delay, and never beyond the format's maximum.
    static func rampLimits(camera: any BracketCamera, interval: Duration, frames: Int) -> ExposureRamp.Limits {
        let format = camera.activeFormat.format
        let delay = max(camera.sensor.exposureDelayFrames, camera.sensor.gainDelayFrames, 0)
        let room = Int(interval.nanoseconds / 1000) / max(frames + delay + 1, 1)
        return ExposureRamp.Limits(minimumMicroseconds: format.minimumExposureMicroseconds,
                                   maximumMicroseconds: min(format.maximumExposureMicroseconds, room),
                                   minimumGain: camera.sensor.analogueGainMinimum, maximumGain: camera.sensor.analogueGainMaximum)
    }

    // MARK: Shots

    /// Runs the slots due by now: the latest one is taken if it is not late, the ones before it
    /// that were not taken are missed; then waits for the next slot.
    private func fire() {
        timer = nil
        guard var current = state else { return }
        let now = wallClock()
        let intervalSeconds = Double(current.plan.intervalNanoseconds) / 1e9
        let elapsed = now.timeIntervalSince(current.startTime)
        // A microsecond early is on time: the wall clock's Date arithmetic is not exact to the nanosecond.
        let latest = max(Int(((elapsed + 1e-6) / intervalSeconds).rounded(.down)) + 1, 1)
        let last = current.plan.lastShot(startingAt: current.startTime)
        if latest >= current.nextShot {
            let lateBy = now.timeIntervalSince(current.due(latest))
            let onTime = lateBy <= Double(Self.lateness(interval: current.plan.interval).nanoseconds) / 1e9
            let missedUpTo = min(onTime ? latest - 1 : latest, last ?? .max)
            if missedUpTo >= current.nextShot {
                let count = missedUpTo - current.nextShot + 1
                current.missed += count
                emit(.missed(shots: current.nextShot...missedUpTo, reason: "late: due \(String(format: "%.3f", lateBy))s ago"))
            }
            current.nextShot = latest + 1
            state = current
            if onTime, latest <= last ?? .max { take(latest) }
        }
        guard let after = state else { return }  // a shot that could not start may have stopped it
        if let last, after.nextShot > last {
            if shotInProgress == nil { stop(reason: "done") }  // else the last shot's end stops it
            else { save(after) }
            return
        }
        save(after)
        let delay = after.due(after.nextShot).timeIntervalSince(wallClock())
        let bound = LoopBound(self, loop: loop)
        timer = loop.schedule(after: .nanoseconds(Int64((max(delay, 0) * 1e9).rounded(.up)))) { bound.value.fire() }
    }

    /// Starts shot `shot` through the capture service; what stops it from starting is a miss.
    private func take(_ shot: Int) {
        guard let current = state else { return }
        if let bytes = current.lastShotBytes, let free = try? capture.freeStorageBytes(), free < bytes {
            stop(reason: "storage full: \(free) bytes left, the last shot took \(bytes)")
            return
        }
        guard shotInProgress == nil else { return miss(shot, reason: "shot \(shotInProgress?.shot ?? 0) is still running") }
        let plan: BracketPlan
        do { plan = try shotPlan(current) } catch { return miss(shot, reason: error.message) }
        let record = TimelapseShotRecord(shot: shot, dueTime: current.due(shot), triggerTime: wallClock(), intervalSeconds: Double(current.plan.intervalNanoseconds) / 1e9,
                                         missedBefore: current.missed)
        let bound = LoopBound(self, loop: loop)
        shotInProgress = (shot, nil)
        do {
            try capture.startTimelapseShot(plan, record: record, observer: { bound.value.progress($0, shot: shot) })
        } catch {
            shotInProgress = nil
            return miss(shot, reason: error.message)
        }
    }

    private func miss(_ shot: Int, reason: String) {
        state?.missed += 1
        emit(.missed(shots: shot...shot, reason: reason))
    }

    /// The shot's plan: the action as it is, or with `ramp auto` and a metered shot before, its
    /// EV steps made manual around the ramp's exposure.
    private func shotPlan(_ current: TimelapseState) throws(CaptureError) -> BracketPlan {
        let action = try resolveAction(current.plan.action)
        guard let ramp = withRateInForce(current).ramp, let base = ramp.nextEV(after: current.plan.interval), let camera = capture.bracketCamera else { return action }
        let limits = Self.rampLimits(camera: camera, interval: current.plan.interval, frames: action.steps.count)
        let iso = camera.sensor.isoPerGain
        let steps: [BracketStep] = action.steps.map { step in
            let bias: Double
            if case .evBias(let b) = step { bias = b } else { bias = 0 }
            let (microseconds, gain) = limits.split(base + bias)
            return .manual(durationMicroseconds: microseconds, iso: gain * iso)
        }
        let (microseconds, gain) = limits.split(base)
        state?.ramp?.commanded(ExposureRamp.exposureEV(microseconds: microseconds, gain: gain))
        return BracketPlan(kind: action.kind, summary: action.summary + " (ramp \(ValueText.shutter(.microseconds(microseconds))) ISO \(Int((gain * iso).rounded())))",
                           steps: steps)
    }

    /// What the capture service says of the shot as it runs.
    private func progress(_ progress: CaptureProgress, shot: Int) {
        switch progress {
        case .frameKept(let index, let request):
            guard index == 0, state?.ramp != nil, shotInProgress?.shot == shot, shotInProgress?.metering == nil else { return }
            shotInProgress?.metering = meter(request)
        case .finished(let sidecar, let failure):
            let metering = shotInProgress?.metering
            shotInProgress = nil
            guard var current = state else { return }
            if let sidecar, failure == nil {
                current.taken += 1
                current.lastShotBytes = Int64(sidecar.frames.flatMap(\.files).reduce(0) { $0 + $1.bytes }) + 4096
                current.lastMetering = metering ?? current.lastMetering
                state = current
                if let metering { writeCorrections(metering, for: sidecar) }
                emit(.shot(TimelapseShot(shot: shot, lastShot: current.plan.lastShot(startingAt: current.startTime), sidecar: sidecar,
                                         metering: metering, missed: current.missed)))
            } else {
                current.failed += 1
                state = current
                let reason = failure ?? "not saved"
                if reason.contains("room") || reason.contains("No space") {
                    stop(reason: "storage full at shot \(shot): \(reason)")
                    return
                }
            }
            save(state)
            if let last = current.plan.lastShot(startingAt: current.startTime), current.nextShot > last, timer == nil { stop(reason: "done") }
        }
    }

    /// Meters the shot's raw frame and moves the ramp; nil (logged as an event) when it cannot.
    private func meter(_ request: CompletedRequest) -> ExposureRamp.Metering? {
        guard let camera = capture.bracketCamera, let raw = request.buffers[.raw],
              let exposure = request.metadata[ControlName.exposureTime]?.int64Value,
              let gain = request.metadata[ControlName.analogueGain]?.doubleValue else {
            emit(.error(reason: "the shot's raw frame or its exposure metadata is missing: not metered"))
            return nil
        }
        do {
            let measurement = try RawExposureMeter.measure(raw, blackLevel16: camera.sensor.blackLevel16 ?? 0)
            let shotEV = ExposureRamp.exposureEV(microseconds: Int(exposure), gain: gain)
            return state?.ramp?.meter(shotEV: shotEV, measurement: measurement)
        } catch {
            emit(.error(reason: "metering: \(error.message)"))
            return nil
        }
    }

    /// One XMP per frame file, with the shot's correction, written after the frames.
    private func writeCorrections(_ metering: ExposureRamp.Metering, for sidecar: BracketSidecar) {
        let correction = metering.correctionEV
        let me = LoopBound(self, loop: loop)
        for file in sidecar.frames.flatMap(\.files) {
            let path = sidecar.folder + "/" + DevelopSidecar.name(for: file.name)
            capture.writeFile(rendering: { DevelopSidecar.exposureCorrection(correction, creator: "tripod \(TripodVersion.firmware)") }, to: path) { error in
                if let error { me.value.emit(.error(reason: "\(path): \(error)")) }
            }
        }
    }

    // MARK: Status

    /// `timelapse status` and the `status` lines: off, or the plan, the shots and the next one.
    public func statusFields() -> [(String, String)] {
        guard let current = state else { return [("timelapse", "off")] }
        var fields: [(String, String)] = [("timelapse", "running"), ("plan", current.plan.summary),
                                          ("next.shot", String(current.nextShot)),
                                          ("next.in", String(format: "%.1fs", max(current.due(current.nextShot).timeIntervalSince(wallClock()), 0))),
                                          ("taken", String(current.taken)), ("missed", String(current.missed)), ("failed", String(current.failed))]
        if let last = current.plan.lastShot(startingAt: current.startTime) { fields.append(("shots.planned", String(last))) }
        if let bytes = current.lastShotBytes, bytes > 0, let free = try? capture.freeStorageBytes() {
            fields.append(("shots.left", String(free / bytes)))
        }
        if let m = current.lastMetering {
            fields += [("ramp.target.ev", String(format: "%.2f", m.smoothedTargetEV)), ("ramp.correction.ev", String(format: "%+.2f", m.correctionEV))]
        }
        return fields
    }
}
