import Console
import Hardware
import Syscalls

/// Where a console's lines go. Implementations buffer and never block the loop: a slow or stuck
/// client loses output (and is told so), it never stalls the supervisor.
public protocol ConsoleOutput: AnyObject {
    /// Queues lines (without newlines) for the client.
    func write(lines: [String])
    /// Closes the client's side (after `quit` on a non-stdio console).
    func close()
    /// Raw bytes echoed while the client types (serial consoles with echo on).
    func echo(_ bytes: [UInt8])
}

extension ConsoleOutput {
    public func echo(_ bytes: [UInt8]) {}
}

/// One connected console client: its transport, its reply mode and its line editor state.
public final class ConsoleSession {
    public enum Kind: Sendable, Equatable {
        /// The development console on stdin/stdout: `quit` or end of input stops the supervisor.
        case stdio
        /// A serial TTY: `quit` ends the session only.
        case serial
        /// A `tripod ctl` client on the control socket.
        case control
        /// A test or in-process client: the owner, as at the serial console.
        case local
        /// The fleet's MQTT commands (module Fleet): one session per command, always JSON.
        case mqtt
        /// A browser remote's request or event stream (one session each, in JSON mode).
        case remote

        /// The origin its lines carry (what the origin policy decides on).
        public var origin: CommandOrigin {
            switch self {
            case .stdio, .serial, .local: return .serial
            case .control: return .socket
            case .mqtt: return .mqtt
            case .remote: return .remote
            }
        }
    }

    public let id: Int
    public let name: String
    public let kind: Kind
    /// The origin of every line this session runs, held lines included: fixed with the session.
    public var origin: CommandOrigin { kind.origin }
    public var mode: ReplyMode = .human
    public var assembler: LineAssembler
    public let output: any ConsoleOutput
    /// Set by the host when it detaches the session; transports check it before handing on input.
    public var isClosed = false
    /// True while a command of this session answers later (a write off the loop); lines that
    /// arrive meanwhile wait in `heldLines`, so replies keep the order of the lines.
    public var awaitingReply = false
    public var heldLines: [String] = []
    /// The client's input ended while a reply was awaited: the end is acted on after the held lines.
    public var inputEndedWhileAwaiting = false

    public init(id: Int, name: String, kind: Kind, output: any ConsoleOutput, echoes: Bool) {
        self.id = id; self.name = name; self.kind = kind; self.output = output
        self.assembler = LineAssembler(echoes: echoes)
    }

    public func send(_ reply: Reply) { output.write(lines: ReplyFormatter.lines(reply, mode: mode)) }
    public func send(_ event: ConsoleEvent) { output.write(lines: [ReplyFormatter.format(event, mode: mode)]) }
}

/// An in-memory console output: collects lines. Used by tests, `tripod ctl`'s server side and benchmarks.
public final class RecordingConsoleOutput: ConsoleOutput {
    public private(set) var lines: [String] = []
    public private(set) var closed = false
    public init() {}
    public func write(lines new: [String]) { lines += new }
    public func close() { closed = true }
    /// Removes and returns everything collected so far.
    public func take() -> [String] { defer { lines.removeAll() }; return lines }
}
