// The harness reaches the supervisor's writers to drain them (`@testable`), which only a debug
// build allows; release builds (the benchmarks link TestSupport) leave it out.
#if DEBUG
import Boards
import Foundation
import Hardware
import Lifecycle
import Logging
import ManualLoop
import SimulatedHardware
@testable import Startup
@testable import Supervisor
@testable import Transports

/// The one harness that starts a supervisor on the simulated board, on the manual clock, with its
/// files in a fresh temporary directory, and talks to it through console sessions.
///
/// Two ways to start it: `init(kind:board:configure:)` as `tripod run` does (command line, state
/// directory, config file, control socket, fleet), with a console attached; `devices(renderSize:adjust:)`
/// from the board's devices alone (small frames, devices swapped by the test), where sessions are
/// attached as the test needs them (`attach`), the default one on the first `send(_:)`.
public final class SimulatedBoardHarness {
    public let loop = ManualEventLoop()
    /// The temporary directory holding `captures` (and, started as `tripod run`, the state and the socket).
    public let directory: URL
    public let supervisor: Supervisor
    /// What the default session (`session`) received.
    public let output = RecordingConsoleOutput()
    /// The exit code the supervisor stopped with, once it stopped.
    public var stoppedWith: Int32? { supervisor.exitStatus }
    public var logLines: [String] { logged.current }
    /// The captures directory, inside `sandbox`.
    public var captures: String { directory.appendingPathComponent("captures").path }
    /// The path of a file in the captures directory: `captured("<date>/<id>.mp4")`.
    public func captured(_ relative: String) -> String { captures + "/" + relative }
    /// The temporary directory (`directory`) as a path: nothing outside it should be touched.
    public var sandbox: String { directory.path }
    private let logged = LockedValue<[String]>([])
    private let defaultKind: ConsoleSession.Kind
    private var defaultSession: ConsoleSession?

    /// Builds the simulated board from the repository's board/ directory as `tripod run` does,
    /// starts it, attaches a console of `kind`.
    public init(kind: ConsoleSession.Kind = .stdio, board: String = "sim", configure: ((inout RunArguments) -> Void)? = nil) throws {
        directory = try Self.makeDirectory()
        defaultKind = kind
        var arguments = RunArguments()
        arguments.board = board
        arguments.captures = directory.appendingPathComponent("captures").path
        arguments.state = directory.appendingPathComponent("state").path
        arguments.socket = directory.appendingPathComponent("ctl.sock").path
        configure?(&arguments)
        let loop = self.loop
        let log = Self.logger(into: logged)
        let prepared = try loop.perform { () throws(StartupError) -> TripodMain.PreparedRun in
            try TripodMain.prepare(arguments, loop: loop, log: log, notifier: NullServiceNotifier())
        }
        supervisor = prepared.supervisor
        let output = self.output
        defaultSession = try loop.perform { [supervisor] () throws(StartupError) -> ConsoleSession in
            try supervisor.start()
            return supervisor.attach(name: "test", kind: kind, output: output)
        }
        prepared.flush()
    }

    /// From the board's devices alone (`startSimulatedSupervisor`): frames rendered at most at
    /// `renderSize` (small by default: no pixels needed), `adjust` may change the devices before the
    /// start (the simulated camera's libcamera, a storage with faults).
    private init(renderSize: PixelSize, adjust: (inout BoardDevices) -> Void) throws {
        directory = try Self.makeDirectory()
        defaultKind = .stdio
        let captures = directory.appendingPathComponent("captures").path
        try FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
        supervisor = try startSimulatedSupervisor(on: loop, renderSize: renderSize, capturesDirectory: captures,
                                                  log: Self.logger(into: logged), adjust: adjust)
    }

    /// A supervisor from the board's devices alone, with no console attached (see `init(renderSize:adjust:)`).
    public static func devices(renderSize: PixelSize = PixelSize(width: 96, height: 54),
                               adjust: (inout BoardDevices) -> Void = { _ in }) throws -> SimulatedBoardHarness {
        try SimulatedBoardHarness(renderSize: renderSize, adjust: adjust)
    }

    /// Stops the supervisor as the process does at exit (streaming ends, devices close and let go of
    /// their handlers), so the board, its camera and its frames go with the harness.
    deinit {
        loop.perform { [supervisor] in supervisor.requestStop(reason: "test over") }
        advance(.milliseconds(50))  // writes finish and their completions run: none is left queued on the loop
        try? FileManager.default.removeItem(at: directory)
    }

    /// The default console session (attached at the start, or on first use for `devices`).
    public var session: ConsoleSession {
        if let defaultSession { return defaultSession }
        let (kind, output) = (defaultKind, self.output)
        let attached = onLoop { $0.attach(name: "test", kind: kind, output: output) }
        defaultSession = attached
        return attached
    }

    /// Sends one line on the default session, runs the loop until it is answered, and returns the reply lines.
    @discardableResult
    public func send(_ line: String) -> [String] {
        let session = self.session
        _ = output.take()
        loop.perform { supervisor.receive(bytes: Array((line + "\n").utf8), from: session) }
        supervisor.waitForStateWrites()  // `save` and presets answer once written, off the loop
        loop.run()
        return output.take()
    }

    /// The last line of the reply to `line` (the ok/err line).
    public func reply(_ line: String) -> String { send(line).last ?? "" }

    /// Attaches another in-memory client.
    public func attach(kind: ConsoleSession.Kind = .local, name: String = "test") -> (ConsoleSession, RecordingConsoleOutput) {
        let output = RecordingConsoleOutput()
        let session = onLoop { $0.attach(name: name, kind: kind, output: output) }
        return (session, output)
    }

    /// Sends bytes as one read from `session`'s client, lets the clock run `settle`, returns what the client got.
    @discardableResult
    public func send(_ bytes: [UInt8], from session: ConsoleSession, output: RecordingConsoleOutput,
                     settle: Duration = .milliseconds(50)) -> [String] {
        let box = LoopBound((supervisor, session), loop: loop)
        loop.execute { let (s, c) = box.value; s.receive(bytes: bytes, from: c) }
        advance(settle)
        return output.take()
    }

    /// Sends one line from `session`'s client (see `send(_:from:output:settle:)`).
    @discardableResult
    public func send(_ text: String, from session: ConsoleSession, output: RecordingConsoleOutput) -> [String] {
        send(Array((text + "\n").utf8), from: session, output: output)
    }

    /// Runs the simulated world forward in 10 ms steps, letting the capture and state writers (real
    /// queues) finish what each step gave them, so events land at the same simulated time on every run.
    public func advance(_ duration: Duration) {
        loop.advance(by: duration, inStepsOf: .milliseconds(10), draining: supervisor)
    }

    /// Runs `body` on the loop and returns its result.
    public func onLoop<T>(_ body: @escaping (Supervisor) -> T) -> T {
        nonisolated(unsafe) var result: T?
        nonisolated(unsafe) let work = body
        let bound = LoopBound(supervisor, loop: loop)
        loop.execute { result = work(bound.value) }
        loop.run()
        guard let result else { preconditionFailure("loop did not run the work") }
        return result
    }

    /// The value of `key=` in an `ok` line.
    public static func field(_ key: String, in line: String) -> String? {
        fields(line)[key]
    }

    /// Parses `ok k=v k="quoted \"value\"" ...` into a dictionary.
    public static func fields(_ line: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(line)
        while let eq = rest.firstIndex(of: "=") {
            let key = String(rest[..<eq].split(separator: " ").last ?? "")
            rest = rest[rest.index(after: eq)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaping = false
                while let c = rest.first {
                    rest = rest.dropFirst()
                    if escaping { value.append(c); escaping = false }
                    else if c == "\\" { escaping = true }
                    else if c == "\"" { break }
                    else { value.append(c) }
                }
            } else {
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                value = String(rest[..<end])
                rest = rest[end...]
            }
            result[key] = value
        }
        return result
    }

    private static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-harness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private static func logger(into logged: LockedValue<[String]>) -> Logger {
        Logger(withPriorityPrefix: false) { line in logged.withLock { $0.append(line) } }
    }
}
#endif
