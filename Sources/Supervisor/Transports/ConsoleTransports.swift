import Hardware

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
    public static func serveControlSocket(path: String, supervisor: Supervisor) throws(StartupError) -> ControlSocket {
        let server = try ControlSocketServer(path: path)
        server.serve(supervisor: LoopBound(supervisor, loop: supervisor.loop))
        return ControlSocket(server: server)
    }

    /// Serves a console on the serial device at `path` (termios raw 8N1 at `baud`), reopening it
    /// every `retry` while it is missing. Call on the loop, after `start()`.
    public static func serveSerial(path: String, baud: Int = 115200, supervisor: Supervisor, retry: Duration = .seconds(1)) {
        SerialConsole(path: path, baud: baud, supervisor: LoopBound(supervisor, loop: supervisor.loop)).connect(retry: retry)
    }
}
