import Foundation
import Hardware
import Lifecycle
import Logging
import Syscalls

/// The console transports as the supervisor's owner starts them (TripodMain, benchmarks).
public enum ConsoleTransports {
    /// A started control socket; `shutdown()` stops accepting and removes the socket file.
    public struct ControlSocket: Sendable {
        fileprivate let server: ControlSocketServer
        public var path: String { server.path }
        public func shutdown() { server.shutdown() }
    }

    /// Binds the control socket at `path` and serves `tripod ctl` clients on the supervisor's loop.
    /// Call on the loop, after `start()`.
    public static func serveControlSocket(path: String, supervisor: any ConsoleHost,
                                          syscalls: any SystemCalls = SystemSyscalls()) throws(StartupError) -> ControlSocket {
        let server = try ControlSocketServer(path: path, syscalls: syscalls)
        server.serve(supervisor: LoopBound(supervisor, loop: supervisor.loop))
        return ControlSocket(server: server)
    }

    /// Serves a console on the serial device at `path` (termios raw 8N1 at `baud`), reopening it
    /// every `retry` while it is missing. Call on the loop, after `start()`.
    public static func serveSerial(path: String, baud: Int = 115200, supervisor: any ConsoleHost, retry: Duration = .seconds(1),
                                   syscalls: any SystemCalls = SystemSyscalls()) {
        SerialConsole(path: path, baud: baud, supervisor: LoopBound(supervisor, loop: supervisor.loop), syscalls: syscalls)
            .connect(retry: retry)
    }

    /// The consoles of `tripod run`, made before the supervisor starts: `attach` serves them (call
    /// on the loop after `start()`), `flush` sends what is queued and closes the control socket.
    public struct PreparedConsoles {
        public let attach: (any ConsoleHost) -> Void
        public let flush: () -> Void
    }

    /// Binds the control socket at `socket` (a failure is logged: `tripod ctl` will not reach this
    /// supervisor) and prepares the console: "stdio" or a serial device path. Every descriptor call
    /// goes through `syscalls`.
    public static func prepare(console: String, socket: String, loop: any EventLoop, log: Logger,
                               syscalls: any SystemCalls = SystemSyscalls()) -> PreparedConsoles {
        // The control socket, or why it could not be bound: then consoles are served without it.
        let control = Result { () throws(StartupError) in try ControlSocketServer(path: socket, syscalls: syscalls) }
        if case .failure(let error) = control { log.warning("\(error.message); tripod ctl will not reach this supervisor") }
        var writers: [DescriptorWriter] = []
        let stdout = DescriptorWriter(descriptor: STDOUT_FILENO, syscalls: syscalls)
        writers.append(stdout)
        let attach: (any ConsoleHost) -> Void = { supervisor in
            if case .success(let server) = control { server.serve(supervisor: LoopBound(supervisor, loop: loop)) }
            guard console == "stdio" else {
                SerialConsole(path: console, baud: supervisor.consoleBaud ?? 115200,
                              supervisor: LoopBound(supervisor, loop: loop), syscalls: syscalls).connect()
                return
            }
            let session = supervisor.attach(name: "stdio", kind: .stdio, output: stdout)
            stdout.write(lines: supervisor.bannerLines())
            DescriptorReader.feeding(session, of: supervisor, loop: loop, ended: { s, c in s.endOfInput(from: c) }) {
                DescriptorReader(descriptor: STDIN_FILENO, syscalls: syscalls, loop: loop, onBytes: $0, onEnd: $1)
            }
        }
        return PreparedConsoles(attach: attach, flush: {
            if case .success(let server) = control { server.shutdown() }
            writers.forEach { $0.flush() }
        })
    }

    /// `tripod ctl`: sends one line to the control socket and prints the reply; returns the exit status.
    public static func sendControlLine(_ line: String, socketPath: String) -> Int32 {
        ControlClient.send(line: line, socketPath: socketPath)
    }
}
