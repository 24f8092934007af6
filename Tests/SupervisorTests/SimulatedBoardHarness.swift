import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
@testable import Startup
@testable import Supervisor
import Syscalls
@testable import Transports

/// A supervisor on the simulated board with the manual clock, and a console to talk to it.
final class SimulatedBoardHarness {
    let loop = ManualEventLoop()
    let directory: URL
    let supervisor: Supervisor
    let output = RecordingConsoleOutput()
    let session: ConsoleSession
    /// The supervisor's exit status once it has stopped.
    var stoppedWith: Int32? { supervisor.exitStatus }
    var logLines: [String] { logged.current }
    private let logged = LockedValue<[String]>([])

    /// Builds the simulated board from the repository's board/ directory, starts it, attaches a console.
    init(kind: ConsoleSession.Kind = .stdio, board: String = "sim", configure: ((inout RunArguments) -> Void)? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = RunArguments()
        arguments.board = board
        arguments.captures = directory.appendingPathComponent("captures").path
        arguments.state = directory.appendingPathComponent("state").path
        arguments.socket = directory.appendingPathComponent("ctl.sock").path
        configure?(&arguments)
        let logged = self.logged
        let loop = self.loop
        let log = Logger(withPriorityPrefix: false) { line in logged.withLock { $0.append(line) } }
        let prepared = try loop.perform { () throws(StartupError) -> TripodMain.PreparedRun in
            try TripodMain.prepare(arguments, loop: loop, log: log, notifier: NullServiceNotifier())
        }
        supervisor = prepared.supervisor
        let output = self.output
        session = try loop.perform { [supervisor] () throws(StartupError) -> ConsoleSession in
            try supervisor.start()
            return supervisor.attach(name: "test", kind: kind, output: output)
        }
        prepared.flush()
    }

    /// Stops the supervisor as the process does at exit (streaming ends, devices close and let go of
    /// their handlers), so the board, its camera and its frames go with the harness.
    deinit {
        loop.perform { [supervisor] in supervisor.requestStop(reason: "test over") }
        advance(.milliseconds(50))  // writes finish and their completions run: none is left queued on the loop
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends one line, runs the loop until it is answered, and returns the reply lines.
    @discardableResult
    func send(_ line: String) -> [String] {
        _ = output.take()
        loop.perform { supervisor.receive(bytes: Array((line + "\n").utf8), from: session) }
        supervisor.waitForStateWrites()  // `save` and presets answer once written, off the loop
        loop.run()
        return output.take()
    }

    /// The last line of the reply to `line` (the ok/err line).
    func reply(_ line: String) -> String { send(line).last ?? "" }

    /// Runs the simulated world forward in 10 ms steps, letting the capture and state writers (real
    /// queues) finish what each step gave them, so events land at the same simulated time on every run.
    func advance(_ duration: Duration) {
        loop.advance(by: duration, inStepsOf: .milliseconds(10), draining: supervisor)
    }

    /// The value of `key=` in an `ok` line.
    static func field(_ key: String, in line: String) -> String? {
        fields(line)[key]
    }

    /// Parses `ok k=v k="quoted \"value\"" ...` into a dictionary.
    static func fields(_ line: String) -> [String: String] {
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
}
