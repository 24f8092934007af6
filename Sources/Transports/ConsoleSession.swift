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
    /// Where the session's input stands; the host moves it through the methods below only.
    public enum InputState: Sendable, Equatable {
        /// Each line runs as it arrives.
        case running
        /// A command answers later (a write off the loop): lines that arrive meanwhile wait in
        /// `held`, so replies keep the order of the lines; `inputEnded`: the client's input ended
        /// meanwhile, acted on after the held lines.
        case waiting(held: [String], inputEnded: Bool)
        /// Detached: transports hand on nothing more.
        case closed
    }

    public private(set) var input: InputState = .running
    public var isClosed: Bool { input == .closed }
    /// True while a command of this session answers later.
    public var isAwaitingReply: Bool { if case .waiting = input { return true } else { return false } }

    /// The host detaches the session.
    public func close() { input = .closed }

    /// A command said it answers later: the next lines wait.
    public func awaitReply() {
        guard input == .running else { return }
        input = .waiting(held: [], inputEnded: false)
    }

    /// Keeps `line` until the reply comes; false when `limit` lines already wait (the line is dropped).
    public func hold(_ line: String, limit: Int) -> Bool {
        guard case .waiting(let held, let ended) = input, held.count < limit else { return false }
        input = .waiting(held: held + [line], inputEnded: ended)
        return true
    }

    /// The client's input ended; true when it waits for the reply (the host acts on it later).
    public func endInputWhileWaiting() -> Bool {
        guard case .waiting(let held, _) = input else { return false }
        input = .waiting(held: held, inputEnded: true)
        return true
    }

    /// The reply came: the session runs again and is handed what waited.
    public func replyArrived() -> (held: [String], inputEnded: Bool) {
        guard case .waiting(let held, let ended) = input else { return ([], false) }
        input = .running
        return (held, ended)
    }

    /// A line run from `replyArrived`'s held lines answers later too: the rest wait again, before
    /// anything that arrived since.
    public func holdAgain(_ lines: [String], inputEnded: Bool) {
        guard case .waiting(let held, let ended) = input else { return }
        input = .waiting(held: lines + held, inputEnded: inputEnded || ended)
    }

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
