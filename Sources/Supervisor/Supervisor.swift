import Camera
import Console
import Foundation
import Hardware
import Lifecycle
import Logging
import Motion
import Stabilization
import Capture
import Recording
import Remote
import Settings
import Stream
import Transports
import Viewfinder

/// The one process that owns the board: camera, IMU, button, LED, display, consoles and captures.
///
/// Loop-confined: every method runs on `loop`. Hardware callbacks hop onto the loop through
/// `LoopBound`, so state changes are serialised without locks.
public final class Supervisor {
    public enum State: String, Sendable {
        case created, starting, ready, stopping, stopped
    }

    public let loop: any EventLoop
    public let devices: BoardDevices
    public let services: SupervisorServices
    public let log: Logger
    public private(set) var state: State = .created
    /// The settings: one typed store with one commit path (module Settings), made in `init` with
    /// its participants (SettingsWiring.swift). Every writer (console, config file, saved state,
    /// reset, gray-world, the half press, a forced lens-off) commits through it.
    public let settings: SettingsStore
    /// The settings in force, typed: what acts on settings reads these.
    var typed: TypedSettings { settings.current }
    /// The half press's hold on focus and exposure: what a release puts back.
    var halfPressLock = HalfPressLock()
    /// Something at start that did not go as configured, shown by `status` until the next start.
    var startupWarning: String?
    let startedAt: MonotonicTime
    /// The console's commands, judged by the origin policy (OriginPolicy.swift) before each runs.
    var commands = CommandTable<CommandContext>(policy: OriginPolicy())
    private var sessions = ConsoleSessions()
    /// Work in progress (a running bracket, a state write); stop waits until there is none.
    let work: WorkTracker
    /// The stop asked for, once: when (a button press from before it still captures) and the exit status.
    private var stopRequest: (at: MonotonicTime, exitCode: Int32)?
    /// When the stop began.
    var stopRequestedAt: MonotonicTime? { stopRequest?.at }
    /// Device state that commands and `status` read.
    var runtime = DeviceRuntime()
    /// The camera's one owner, made with the services (Composition.swift): `attachCamera` and
    /// `releaseCamera` change it, for every service at once.
    var cameraSlot: CameraSlot { composed.camera }
    /// The camera, while one is attached (started, and not released for a reopen).
    public var camera: CameraController? { composed.camera.controller }
    /// Bias-corrected IMU samples, orientation and blur predictions: the IMU's; when the board has
    /// none (`hasIMU` false), a tracker that nothing feeds (DeviceLifecycle.swift).
    public let motion: MotionTracker
    var watchdogTicks: WatchdogTicks?
    /// Lens, still and video stabilization, once the camera runs (made for its sensor, StabilizationWiring.swift).
    public var stabilization: Stabilization? { composed.stabilization.service }
    /// The display's viewfinder: showing from start to stop when the board has a display it could take.
    var viewfinderState = ViewfinderState.notStarted
    /// The services made once, in `init`, and wired to each other there (Composition.swift).
    let composed: ComposedServices
    /// Captures (console and shutter button).
    var captureService: CaptureService { composed.capture }
    /// The intervalometer (`timelapse`).
    var timelapse: Timelapse { composed.timelapse }
    /// Video recording.
    var recorder: VideoRecorder { composed.recorder }
    /// Video stabilization of the streaming frames: its crop planner and ScalerCrop (VideoStabilizationService.swift).
    var videoStabilizer: VideoStabilizationService { composed.videoStabilizer }
    /// Video HDR: `video.hdr`, auto's choice, and switching it (VideoHDRService.swift).
    var videoHDR: VideoHDRService { composed.videoHDR }
    /// Motion detection and the trigger policy (TriggerWiring.swift).
    var triggers: TriggerState { composed.triggers }
    /// The browser remote: its token, its server or why it could not listen, and the collection
    /// signatures' nonces (RemoteWiring.swift).
    var remoteEdge = RemoteEdge()
    /// The remote's server while `remote.listen` names an address it listens on.
    var remote: RemoteServer? { remoteEdge.listening }
    /// The live stream: serving through its RTSP server while `stream.rtsp` names an address (StreamWiring.swift).
    var liveStream = LiveStream.off
    /// Where saved settings, presets, the time-lapse and the gyro bias are written (made with the services).
    var stateKeeping: StateKeeping { composed.stateKeeping }
    /// The `fleet` command's work: the fleet client's, given by Startup (FleetWiring.swift), or
    /// `Supervisor.noFleetClient`'s refusal in a process that runs none.
    let fleetCommands: FleetCommandHandler
    /// Called once, on the loop, when the supervisor has stopped; gets the exit status.
    private let onStopped: (Int32) -> Void

    /// `onStopped`: called once, on the loop, when the supervisor has stopped, with the exit status.
    /// `fleetCommands`: the `fleet` command's work (the fleet client's); by default none runs.
    /// `settingsFollowers`: who else takes part in the settings (the fleet client's check and
    /// connection); they come after the supervisor's own.
    public init(devices: BoardDevices, loop: any EventLoop,
                services: SupervisorServices = SupervisorServices(), log: Logger,
                onStopped: @escaping (_ exitStatus: Int32) -> Void = { _ in }, fleetCommands: @escaping FleetCommandHandler = Supervisor.noFleetClient,
                settingsFollowers: SettingsStore.Followers = SettingsStore.Followers()) {
        self.devices = devices
        self.onStopped = onStopped
        self.fleetCommands = fleetCommands
        self.loop = loop
        self.services = services
        self.log = log
        self.startedAt = loop.now()
        let link = SupervisorLink(loop: loop)
        settings = SettingsStore(followers: Self.ownSettingsFollowers(link).followed(by: settingsFollowers))
        let work = WorkTracker(onIdle: { link.value?.finishStopIfIdle() })  // a stop waits for work in progress
        self.work = work
        let (motion, savedCalibrations) = Self.makeMotionTracker(devices: devices, state: services.state, log: log) { calibration in
            link.value?.saveCalibration(calibration)
        }
        self.motion = motion
        composed = ComposedServices(link: link, devices: devices, work: work, services: services, motion: motion, settings: settings)
        link.attach(self)
        runtime.savedGyroBias = savedCalibrations[motion.deviceName]?.bias
        runtime.savedCalibrations = savedCalibrations
        if hasIMU { attachMotion(motion) }
        registerCoreCommands()
        registerCameraCommands()
        registerPersistenceCommands()
        registerSimulationCommands()
        registerCaptureCommands()
        registerTimelapseCommands()
        registerIMUCommands()
        registerRecordingCommands()
        registerRemoteCommands()
        registerFleetCommands()
    }

    /// A handle for callbacks from other threads. Weak: the services, camera and devices the
    /// supervisor owns keep these callbacks, so a strong handle would keep a stopped supervisor,
    /// its camera and its frame buffers alive for good.
    /// The same link the composed services' callbacks hold (one handle on the supervisor).
    var bound: SupervisorLink { composed.link }

    // MARK: Lifecycle

    /// Brings devices up and becomes ready. Throws only for what makes running pointless (no camera
    /// on a real board); everything optional that fails is logged and reported in `status`.
    public func start() throws(StartupError) {
        loop.preconditionInEventLoop()
        state = .starting
        for note in devices.notes { log.warning(note) }
        settings.adoptCurrentAsBase()  // defaults, then the config file: where reset returns
        restoreSavedSettings()
        try startDevices()
        startRemote()
        state = .ready
        captureService.acceptsCaptures = true
        resumeTimelapse()
        log.notice("ready: \(bannerLine())")
        notifyServiceManager([.ready, .status("ready: \(devices.board.name), camera \(camera?.device.info.model ?? "none")")])
        let log = self.log
        watchdogTicks = services.watchdog.scheduleTicks(on: loop) { log.warning("watchdog ping failed: \($0)") }
    }

    /// The start-up banner: board and devices.
    public func bannerLine() -> String {
        "board \(devices.board.name) (\(devices.board.summary)); " + deviceSummary().map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }

    /// Stops after work in progress finishes: streaming stops, files in progress complete or are
    /// discarded atomically, then `onStopped` runs.
    public func requestStop(reason: String, exitCode: Int32 = 0) {
        loop.preconditionInEventLoop()
        guard state != .stopping && state != .stopped else { return }
        stopRequest = (loop.now(), exitCode)
        state = .stopping
        captureService.acceptsCaptures = false
        captureService.stopRequestedAt = stopRequestedAt
        timelapse.suspend()  // kept in timelapse.json: the next start resumes it
        captureService.cancelShotWaitingForInstant(reason: "the rig is stopping (\(reason)) before the shot's instant")
        recorder.cancelArmedShot(reason: "the rig is stopping (\(reason)) before the shot's instant")
        // A recording is finalised first: its work mark holds the stop until record.stopped.
        if recorder.isRecording == true { _ = try? recorder.stop() }
        log.notice("stopping: \(reason)")
        notifyServiceManager([.stopping, .status("stopping: \(reason)")])
        finishStopIfIdle()
    }

    /// Marks work in progress (a bracket); a stop requested meanwhile waits for `endWork`.
    func beginWork(_ reason: String) { work.begin(reason) }

    func endWork(_ reason: String) { work.end(reason) }

    public var isBusy: Bool { !work.isEmpty }

    /// True when the board has an IMU (its samples feed `motion` once it runs).
    var hasIMU: Bool { devices.imu != nil }

    /// The exit status once stopped (what `onStopped` got); nil before.
    public var exitStatus: Int32? { state == .stopped ? stopRequest?.exitCode ?? 0 : nil }

    /// True while work of this kind is in progress.
    func isWorking(on reason: String) -> Bool { work.contains(reason) }

    private func finishStopIfIdle() {
        guard state == .stopping, work.isEmpty else { return }
        stopRemote()
        stopStream()
        stopDevices()
        watchdogTicks?.cancel()
        state = .stopped
        log.notice("stopped")
        for session in sessions.all where session.kind != .stdio { session.output.close() }
        onStopped(stopRequest?.exitCode ?? 0)
    }

    // MARK: Consoles

    /// Connects a console client; returns its session.
    @discardableResult
    public func attach(name: String, kind: ConsoleSession.Kind, output: any ConsoleOutput, echoes: Bool = false) -> ConsoleSession {
        sessions.open(name: name, kind: kind, output: output, echoes: echoes)
    }

    public func detach(_ session: ConsoleSession) {
        sessions.close(session)
    }

    /// Bytes from a client: edited into lines, each line run and answered.
    public func receive<S: Sequence>(bytes: S, from session: ConsoleSession) where S.Element == UInt8 {
        loop.preconditionInEventLoop()
        guard !session.isClosed else { return }
        consume(session.assembler.feed(bytes), from: session)  // ConsoleInput.swift
    }

    /// The end of a client's input: on stdio this stops the supervisor, like `quit`.
    public func endOfInput(from session: ConsoleSession) {
        loop.preconditionInEventLoop()
        // Lines still waiting for a reply that comes later run first (`save` then end of input).
        if session.endInputWhileWaiting() { return }
        if session.kind == .stdio { requestStop(reason: "end of console input") }
        detach(session)
    }

    /// Runs one console line for a session and sends the reply. While the session waits for a
    /// reply that comes later (`CommandContext.answerLater`), the line waits its turn.
    public func run(line: String, from session: ConsoleSession) {
        if session.isAwaitingReply {
            if !session.hold(line, limit: ConsoleInputLimits.linesPerRead) {
                session.send(.err(.flood, "dropped a line sent while the previous one was still running (wait for each reply)"))
            }
            return
        }
        var context = CommandContext(supervisor: self, session: session)
        let reply = commands.dispatch(line, origin: session.origin, context: &context)
        // What the origin policy refused is the owner's to know: the command and key names (the
        // message), never the line's values, which may hold a path or a secret.
        if case .error(let error)? = reply, error.code == .denied { log.notice("denied \(session.origin.rawValue) (\(session.name)): \(error.message)") }
        if context.answersLater { session.awaitReply(); return }
        // A command that closed its session (quit) has already answered.
        if let reply, !session.isClosed { session.send(reply) }
    }

    /// Sends a reply that came later, then runs the lines that waited for it.
    func answer(_ reply: Reply, to session: ConsoleSession) {
        guard !session.isClosed else { return }
        var (held, inputEnded) = session.replyArrived()
        session.send(reply)
        while !held.isEmpty, !session.isClosed {
            run(line: held.removeFirst(), from: session)
            if session.isAwaitingReply {
                session.holdAgain(held, inputEnded: inputEnded)
                return
            }
        }
        if inputEnded, !session.isClosed { endOfInput(from: session) }
    }

    /// Blocks until every state write asked for so far has run (tests; the results still hop to the loop).
    func waitForStateWrites() {
        if case .stateDirectory(let writer) = stateKeeping { writer.drain() }
    }

    /// Sends an event to every console, each in its own mode, on its own line.
    /// Events are rare (brackets, button, device state) and are also what a headless user reads in
    /// the journal afterwards, so each is logged too (failures and errors as warnings), unless a
    /// console on stdio already shows them on the same terminal.
    public func broadcast(_ event: ConsoleEvent) {
        if !sessions.open.contains(where: { $0.kind == .stdio }) {
            let line = ReplyFormatter.format(event, mode: .human)
            if event.name.hasSuffix(".failed") || event.name.hasSuffix(".error") { log.warning(line) } else { log.info(line) }
        }
        for session in sessions.open { session.send(event) }
    }

    var uptime: Duration { loop.now() - startedAt }

    /// Tells the service manager; a failure is logged, never fatal.
    func notifyServiceManager(_ notifications: [ServiceNotification]) {
        do { try services.notifier.notify(notifications) } catch { log.warning("sd_notify: \(error)") }
    }
}

/// What a command handler sees: the supervisor and the client that sent the line.
public struct CommandContext {
    public let supervisor: Supervisor
    public let session: ConsoleSession
    /// Where the line came from: what the settings commit is judged on (OriginPolicy).
    public var origin: CommandOrigin { session.origin }
    /// True once the handler said it answers later; what it returns is then ignored.
    private(set) var answersLater = false

    init(supervisor: Supervisor, session: ConsoleSession) {
        self.supervisor = supervisor
        self.session = session
    }

    /// For a command whose work runs off the loop: the session's next lines wait until `send` on
    /// the handle gives the reply (on the loop).
    mutating func answerLater() -> DeferredReply {
        answersLater = true
        return DeferredReply(target: LoopBound((supervisor, session), loop: supervisor.loop))
    }
}

/// The reply of a command that answers later (see `CommandContext.answerLater`).
struct DeferredReply: Sendable {
    let target: LoopBound<(Supervisor, ConsoleSession)>

    /// Sends the reply; call on the loop.
    func send(_ reply: Reply) {
        let (supervisor, session) = target.value
        supervisor.answer(reply, to: session)
    }
}

/// The services around the supervisor: the service manager (sd_notify + watchdog) and persisted state.
public struct SupervisorServices {
    public var notifier: any ServiceNotifier
    public var watchdog: Watchdog
    /// Where `save` writes settings; nil when no state directory is usable.
    public var state: StateStore?
    /// The state directory's path (the remote's token file); nil: none usable.
    public var stateDirectory: String?
    /// The wall clock (CLOCK_REALTIME) that time-lapse shots are due on; a test's follows its manual clock.
    public let wallClock: @Sendable () -> Date

    public init(notifier: any ServiceNotifier = NullServiceNotifier(), state: StateStore? = nil, stateDirectory: String? = nil,
                wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.notifier = notifier
        self.watchdog = Watchdog(notifier: notifier)
        self.state = state
        self.stateDirectory = stateDirectory
        self.wallClock = wallClock
    }
}

/// The supervisor serves the console transports: sessions are its, the transports only move bytes.
extension Supervisor: ConsoleHost {
    public var consoleBaud: Int? { devices.board.console?.baud }
    public var isServingConsoles: Bool { state != .stopping && state != .stopped }
}
