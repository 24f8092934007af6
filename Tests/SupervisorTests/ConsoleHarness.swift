import Boards
import Console
import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
import TestSupport
@testable import Startup
@testable import Supervisor
@testable import Transports

/// A supervisor on the simulated board, on a ManualEventLoop, with captures in a fresh temporary
/// directory: what the console tests, transcripts and path checks talk to.
final class ConsoleHarness {
    let loop = ManualEventLoop()
    let supervisor: Supervisor
    /// The captures directory, inside `sandbox`.
    let captures: String
    /// A temporary directory holding `captures` and nothing else the supervisor should touch.
    let sandbox: String

    /// `renderSize`: small frames by default (no pixels needed); `adjust` may change the devices
    /// before the start (the simulated camera's libcamera).
    init(renderSize: PixelSize = PixelSize(width: 96, height: 54), adjust: (inout BoardDevices) -> Void = { _ in }) throws {
        sandbox = NSTemporaryDirectory() + "tripod-console-\(UUID().uuidString)"
        captures = sandbox + "/captures"
        try FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
        supervisor = try startSimulatedSupervisor(on: loop, renderSize: renderSize, capturesDirectory: captures, adjust: adjust)
    }

    deinit { try? FileManager.default.removeItem(atPath: sandbox) }

    /// Attaches an in-memory client.
    func attach(kind: ConsoleSession.Kind = .local, name: String = "test") -> (ConsoleSession, RecordingConsoleOutput) {
        let output = RecordingConsoleOutput()
        let session = onLoop { $0.attach(name: name, kind: kind, output: output) }
        return (session, output)
    }

    /// Sends bytes as one read from the client, lets the loop run, returns what the client got.
    @discardableResult
    func send(_ bytes: [UInt8], from session: ConsoleSession, output: RecordingConsoleOutput,
              settle: Duration = .milliseconds(50)) -> [String] {
        let box = LoopBound((supervisor, session), loop: loop)
        loop.execute { let (s, c) = box.value; s.receive(bytes: bytes, from: c) }
        advance(by: settle)
        return output.take()
    }

    /// Moves the clock in 10 ms steps, letting the capture writer (a real queue) finish what each
    /// step gave it before the next, so events land at the same simulated time on every run.
    func advance(by duration: Duration) {
        loop.advance(by: duration, inStepsOf: .milliseconds(10), draining: supervisor)
    }

    @discardableResult
    func send(_ text: String, from session: ConsoleSession, output: RecordingConsoleOutput) -> [String] {
        send(Array((text + "\n").utf8), from: session, output: output)
    }

    /// Runs `body` on the loop and returns its result.
    func onLoop<T>(_ body: @escaping (Supervisor) -> T) -> T {
        nonisolated(unsafe) var result: T?
        nonisolated(unsafe) let work = body
        let bound = LoopBound(supervisor, loop: loop)
        loop.execute { result = work(bound.value) }
        loop.run()
        guard let result else { preconditionFailure("loop did not run the work") }
        return result
    }
}
