import Hardware
import Logging

/// What the console transports serve: the one owner of sessions and their command dispatch (the
/// supervisor). Transports read and write descriptors and hand bytes to the host on its loop; they
/// never see what the lines mean. Loop-confined: call on `loop`.
public protocol ConsoleHost: AnyObject {
    var loop: any EventLoop { get }
    var log: Logger { get }
    /// False once the host is stopping: a console that went away is not opened again.
    var isServingConsoles: Bool { get }
    /// The serial console's rate from the board description, bits per second; nil: the default.
    var consoleBaud: Int? { get }
    /// Connects a client; returns its session. `echoes`: the line editor echoes what is typed.
    func attach(name: String, kind: ConsoleSession.Kind, output: any ConsoleOutput, echoes: Bool) -> ConsoleSession
    func detach(_ session: ConsoleSession)
    /// Bytes from a client: edited into lines, each line run and answered.
    func receive(bytes: [UInt8], from session: ConsoleSession)
    /// The end of a client's input.
    func endOfInput(from session: ConsoleSession)
    /// The banner a new interactive console shows.
    func bannerLines() -> [String]
}

extension ConsoleHost {
    /// Connects a client that does not echo.
    public func attach(name: String, kind: ConsoleSession.Kind, output: any ConsoleOutput) -> ConsoleSession {
        attach(name: name, kind: kind, output: output, echoes: false)
    }
}
