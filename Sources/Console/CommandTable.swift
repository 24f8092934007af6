/// One console command: its name, how to call it, what it does, and its handler.
///
/// Commands are described once here; `help` and docs/console.md are generated from this table.
public struct Command<Context>: Sendable {
    public var name: String
    /// Argument synopsis, e.g. "<key> <value>".
    public var synopsis: String
    /// One line for the `help` list.
    public var summary: String
    /// Longer help with examples, shown by `help <command>`.
    public var detail: [String]
    /// Allowed argument counts.
    public var arguments: ClosedRange<Int>
    public let run: @Sendable (inout Context, [String]) -> Reply

    public init(_ name: String, synopsis: String = "", summary: String, detail: [String] = [],
                arguments: ClosedRange<Int> = 0...0, run: @escaping @Sendable (inout Context, [String]) -> Reply) {
        self.name = name; self.synopsis = synopsis; self.summary = summary; self.detail = detail
        self.arguments = arguments; self.run = run
    }

    public var usage: String { synopsis.isEmpty ? name : "\(name) \(synopsis)" }
}

/// The command table: looks commands up, checks argument counts and the line's origin against
/// its policy, and answers `help`.
public struct CommandTable<Context>: Sendable {
    public private(set) var commands: [Command<Context>] = []
    /// What each origin may run; asked before every handler.
    public let policy: any CommandPolicy

    public init(_ commands: [Command<Context>] = [], policy: any CommandPolicy = EveryOriginPolicy()) {
        self.policy = policy
        for c in commands { add(c) }
    }

    /// Adds a command; a later command with the same name replaces the earlier one.
    public mutating func add(_ command: Command<Context>) {
        commands.removeAll { $0.name == command.name }
        commands.append(command)
    }

    public func command(named name: String) -> Command<Context>? {
        commands.first { $0.name == name }
    }

    /// Runs one line from `origin`: tokenizes, finds the command, checks the argument count and
    /// the policy, runs it. An empty or comment-only line gives nil (nothing to answer).
    public func dispatch(_ line: String, origin: CommandOrigin, context: inout Context) -> Reply? {
        let words: [String]
        do { words = try tokenize(line) } catch { return .error(error) }
        guard let name = words.first else { return nil }
        if name == "help" { return help(Array(words.dropFirst())) }
        guard let command = command(named: name.lowercased()) else {
            return .err(.unknownCommand, "unknown command \"\(truncated(name))\"; type help for the list")
        }
        let arguments = Array(words.dropFirst())
        guard command.arguments.contains(arguments.count) else {
            return .err(.usage, "usage: \(command.usage)")
        }
        if let refusal = policy.refusal(command: command.name, arguments: arguments, origin: origin) { return .error(refusal) }
        return command.run(&context, arguments)
    }

    /// `help` lists every command; `help <command>` describes one. A command that not every
    /// origin may run says which may, in brackets.
    public func help(_ arguments: [String]) -> Reply {
        if arguments.isEmpty {
            // Fits an 80-column terminal: the summary starts at a fixed column, under a usage too
            // long for it, and wraps there.
            let all = [("help", "[command]", "list commands, or describe one")]
                + commands.map { ($0.name, $0.synopsis, $0.summary + (policy.origins(of: $0.name).map { " [\($0)]" } ?? "")) }
            let body = all.flatMap { name, synopsis, summary in
                TerminalWidth.twoColumns(name + " " + synopsis, summary, column: TerminalWidth.helpColumn)
            }
            let every = CommandOrigin.list(Set(CommandOrigin.allCases))
            return .ok([("commands", String(all.count))], body: body + TerminalWidth.wrap("origins: every command runs from \(every) unless [brackets] say otherwise"))
        }
        guard arguments.count == 1 else { return .err(.usage, "usage: help [command]") }
        if arguments[0] == "help" { return .ok([("command", "help")], body: ["help [command]", "list commands, or describe one"]) }
        guard let command = command(named: arguments[0].lowercased()) else {
            return .err(.unknownCommand, "unknown command \"\(truncated(arguments[0]))\"; type help for the list")
        }
        let origins = "origins: " + (policy.origins(of: command.name) ?? CommandOrigin.list(Set(CommandOrigin.allCases)))
        let lines = [command.usage, command.summary] + command.detail + [origins]
        return .ok([("command", command.name)], body: lines.flatMap { TerminalWidth.wrap($0) })
    }

    private func truncated(_ s: String) -> String { s.count > 32 ? String(s.prefix(32)) + "…" : s }
}
