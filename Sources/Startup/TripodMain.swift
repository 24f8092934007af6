import Console
import Foundation
import Boards
import Fleet
import FleetConsole
import Hardware
import Lifecycle
import LinuxHardware
import Logging
import Supervisor
import Settings
import Transports

/// The `tripod` executable's body: parses arguments, runs a subcommand, returns the exit status.
public enum TripodMain {
    public static let version = Supervisor.firmwareVersion

    public static func main(_ arguments: [String]) -> Int32 {
        let invocation: TripodInvocation
        do {
            invocation = try parseTripodArguments(arguments)
        } catch {
            printError(error.message)
            if let sub = error.subcommand, let help = TripodHelp.help(for: sub) { printError(help, prefix: false) }
            else { printError("run tripod --help for the list of subcommands", prefix: false) }
            return 2
        }
        switch invocation {
        case .help(nil):
            print(TripodHelp.overview())
            return 0
        case .help(let topic?):
            print(TripodHelp.help(for: topic) ?? TripodHelp.overview())
            return 0
        case .version:
            print("tripod \(version)")
            print("libcamera \(LibcameraProvider.libcameraVersion) (compiled against \(LibcameraProvider.libcameraHeaderVersion))")
            guard LibcameraProvider.runsCompiledLibcamera else {
                printError("the libcamera loaded is not the one tripod was compiled against (rebuild, or fix the library path)")
                return 1
            }
            return 0
        case .run(let run):
            return runSupervisor(run)
        case .formats(let board, let json):
            return printFormats(board: board, json: json)
        case .ctl(let socket, let line):
            return ConsoleTransports.sendControlLine(line, socketPath: socket)
        case .collect(let options):
            return runCollect(options)
        case .checkConfig(let path):
            let result = ConfigFile.check(path: path, schema: settingsSchema)
            print(result.report)
            return result.exitStatus
        }
    }

    static func printError(_ message: String, prefix: Bool = true) {
        Logger.writeIgnoringErrors(STDERR_FILENO, (prefix ? "tripod: error: " : "") + message + "\n")
    }

    /// Starts the supervisor on this thread's loop and serves the console until it stops.
    static func runSupervisor(_ arguments: RunArguments) -> Int32 {
        // A console or control client that hangs up turns the next write into EPIPE (handled by its
        // writer), not into a signal that kills the supervisor (exit status 141).
        signal(SIGPIPE, SIG_IGN)
        let log = Logger.standardError()
        let loop = PosixEventLoop()
        let prepared: PreparedRun
        let finished = LockedValue<Int32?>(nil)
        do {
            prepared = try prepare(arguments, loop: loop, log: log) { code in
                finished.withLock { $0 = code }
                loop.stop()
            }
        } catch {
            printError(error.message)
            return 1
        }
        let supervisor = prepared.supervisor
        var status: Int32 = 0
        let signalSources = installSignalHandlers(loop: loop, supervisor: LoopBound(supervisor, loop: loop))
        defer { signalSources.forEach { $0.cancel() } }
        let failure = LockedValue<StartupError?>(nil)
        let bound = LoopBound(prepared, loop: loop)
        loop.execute {
            let prepared = bound.value
            do throws(StartupError) {
                try prepared.supervisor.start()
                prepared.attachConsoles()
            } catch {
                failure.withLock { $0 = error }
                loop.stop()
            }
        }
        loop.run()
        prepared.flush()
        discardUnsentTerminalOutput()
        if let startFailure = failure.current {
            printError(startFailure.message)
            return 1
        }
        status = finished.current ?? 0
        return status
    }

    /// Drops console output still queued in serial ports (`tcflush(TCOFLUSH)`): when nobody reads
    /// the line (cable unplugged, host gone), the kernel would otherwise hold the process's exit in
    /// `close` for the tty's closing_wait (30 s), long past systemd's patience.
    static func discardUnsentTerminalOutput() {
        for descriptor in Int32(3)..<Int32(1024) where isatty(descriptor) == 1 {
            tcflush(descriptor, TCOFLUSH)
        }
    }

    /// Everything `tripod run` needs before its loop starts; each failure is a one-line StartupError.
    public struct PreparedRun {
        public let supervisor: Supervisor
        let consoles: ConsoleTransports.PreparedConsoles
        let fleet: FleetClient

        /// Attaches the consoles and starts the fleet client; call on the loop once the supervisor started.
        public func attachConsoles() {
            consoles.attach(supervisor)
            fleet.start()
        }

        /// Stops the fleet client and flushes the consoles; call once the loop ended.
        public func flush() {
            fleet.shutdown()
            consoles.flush()
        }
    }

    /// `onStopped`: the supervisor's, called once on the loop when it has stopped, with the exit status.
    public static func prepare(_ arguments: RunArguments, loop: any EventLoop, log: Logger,
                               notifier: any ServiceNotifier = SystemdNotifier(),
                               onStopped: @escaping (_ exitStatus: Int32) -> Void = { _ in }) throws(StartupError) -> PreparedRun {
        let catalog = BoardCatalog.standard()
        let boardName: String
        if let named = arguments.board { boardName = named } else { boardName = try detectBoardName(catalog: catalog) }
        let board = try catalog.board(boardName)
        var config: ConfigFile? = nil
        if let path = arguments.config ?? (FileManager.default.fileExists(atPath: defaultConfigPath) ? defaultConfigPath : nil) {
            do { config = try ConfigFile.load(path: path, schema: settingsSchema) }
            catch { throw StartupError("\(error)") }
        }
        let console = arguments.console
        if console != "stdio" && !FileManager.default.fileExists(atPath: console) {
            throw StartupError("console device \(console) does not exist")
        }
        var devices = try BoardFactory.build(board: board, catalog: catalog, loop: loop,
                                             capturesDirectory: arguments.captures, log: log)
        try SimulationConfig.apply(config, to: devices.simulation)
        devices.measuresEncoderSpeed = true  // the real loop: a recording's start may time libx264
        devices.serialNumber = BodySerial.read(simulated: board.camera.backend == "sim", stateDirectory: arguments.state, cameraIndex: 0)
        var state: StateStore? = nil
        var stateDirectory: String? = nil
        do {
            let storage = try PosixStorage(root: arguments.state)
            _ = try storage.removeStaleTemporaryFiles(in: "")
            state = StateStore(storage: storage)
            stateDirectory = arguments.state
        } catch {
            log.warning("state directory \(arguments.state): \(error); save and calibration will not persist")
        }
        let services = SupervisorServices(notifier: notifier, state: state, stateDirectory: stateDirectory)
        let fleetLink = LateBound<FleetClient>(loop: loop)
        let supervisor = Supervisor(devices: devices, loop: loop, services: services, log: log, onStopped: onStopped,
                                    fleetCommands: FleetShotWiring.fleetCommands(fleetLink),
                                    settingsFollowers: FleetClient.settingsFollowers(fleetLink))
        // The fleet's MQTT front end: its part in the settings (checks, reconnecting) is the store's
        // from the start; it connects with the fleet.* in force when it starts.
        let fleet = FleetClient(host: supervisor, shotRig: SupervisorShotRig(supervisor), settings: supervisor.settings, link: fleetLink,
                                state: state, log: log)
        for entry in config?.entries ?? [] where !SimulationConfig.owns(entry.key) {
            do throws(ConsoleError) { _ = try supervisor.change(key: entry.key, value: entry.value, origin: .configFile, requestedBy: nil) }
            catch { throw StartupError("\(config?.file ?? "config"):\(entry.line): \(error.message)") }
        }
        let consoles = ConsoleTransports.prepare(console: console, socket: arguments.socket, loop: loop, log: log)
        return PreparedRun(supervisor: supervisor, consoles: consoles, fleet: fleet)
    }

    static let defaultConfigPath = "/etc/tripod/tripod.conf"

    /// The settings schema as the config file sees it: the same validation as console `set`.
    static let settingsSchema = ClosureConfigSchema { key, value in
        if SimulationConfig.owns(key) { return try SimulationConfig.validate(key: key, value: value) }
        do throws(ConsoleError) { return try SettingsTable.validate(key: key, value: value) }
        catch where error.code == .unknownKey { throw ConfigSchemaError.unknownKey(key) }
        catch { throw ConfigSchemaError.invalidValue(key: key, reason: error.message) }
    }

    /// The board named by /proc/device-tree/model, when this is a known board (`BoardDetection.detect`);
    /// nil when there is no device tree, no board matches, or a description does not decode.
    static func detectBoardName(catalog: BoardCatalog, modelPath: String = BoardDetection.deviceTreeModelPath) throws(StartupError) -> String {
        // No device tree (a PC, CI): the simulated board, the embedded default.
        guard BoardDetection.readModel(path: modelPath) != nil else { return "sim" }
        // A device tree that names no known board is an error, never a silent switch to the simulation.
        do { return try BoardDetection.detect(catalog: catalog, modelPath: modelPath).name }
        catch { throw StartupError("board detection: \(error); name the board with --board NAME|FILE") }
    }

    /// The lines a person sees first on the console.
    static func banner(_ supervisor: Supervisor) -> [String] { supervisor.bannerLines() }

    /// SIGINT and SIGTERM stop the supervisor cleanly, after work in progress.
    static func installSignalHandlers(loop: PosixEventLoop, supervisor: LoopBound<Supervisor>) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            let name = sig == SIGINT ? "SIGINT" : "SIGTERM"
            source.setEventHandler {
                loop.execute { supervisor.value.requestStop(reason: name) }
            }
            source.resume()
            return source
        }
    }
}
