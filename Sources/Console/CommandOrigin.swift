/// Where a console line came from. Every line carries its origin through the command table and
/// into the settings commit; one policy (module Settings, `OriginPolicy.swift`) decides what each
/// origin may do (docs/security.md).
public enum CommandOrigin: String, Sendable, CaseIterable {
    /// The rig's own console: a serial TTY, or the terminal `tripod run` was started on.
    case serial
    /// `tripod ctl` on the control socket: local root.
    case socket
    /// The browser remote: whoever holds its token.
    case remote
    /// The fleet's MQTT commands: any user of the group's broker.
    case mqtt

    /// True for the ways in over a network (the remote and MQTT).
    public var isNetwork: Bool { self == .remote || self == .mqtt }

    /// The origins in the order `help` names them, as one word: `serial/socket`.
    public static func list(_ origins: Set<CommandOrigin>) -> String {
        allCases.filter(origins.contains).map(\.rawValue).joined(separator: "/")
    }
}

/// What the command table asks before a handler runs: may this origin run this line?
public protocol CommandPolicy: Sendable {
    /// Nil when `origin` may run `command` (lower-case) with `arguments`; else the refusal, in words.
    func refusal(command: String, arguments: [String], origin: CommandOrigin) -> ConsoleError?
    /// The origins that may run `command`, as `help` shows them: `serial/socket`, or per form
    /// (`token: serial/socket`; the other forms run from every origin). Nil: every origin.
    func origins(of command: String) -> String?
}

/// A policy that lets every origin run every line: a table of one's own (tests, tools).
public struct EveryOriginPolicy: CommandPolicy {
    public init() {}
    public func refusal(command: String, arguments: [String], origin: CommandOrigin) -> ConsoleError? { nil }
    public func origins(of command: String) -> String? { nil }
}
