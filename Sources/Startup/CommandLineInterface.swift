import Collect
import Foundation
import Remote
import Settings

/// `tripod`'s subcommands and options, parsed without an argument-parsing package.
public enum TripodInvocation: Equatable, Sendable {
    case collect(CollectOptions)
    case run(RunArguments)
    case formats(board: String?, json: Bool)
    case ctl(socket: String, line: String)
    case checkConfig(path: String)
    /// Help for the whole tool (nil) or one subcommand.
    case help(String?)
    case version
}

/// Options of `tripod run`.
public struct RunArguments: Equatable, Sendable {
    /// Board name or file; nil means auto-detect from /proc/device-tree/model, else the simulated board.
    public var board: String?
    /// "stdio" or a TTY path ("/dev/ttyAMA0").
    public var console: String = "stdio"
    public var captures: String = "/var/lib/tripod/captures"
    public var config: String?
    /// Where persisted state goes (last settings, presets, calibration, counters).
    public var state: String = "/var/lib/tripod"
    public var socket: String = defaultSocketPath
    public init() {}
}

public let defaultSocketPath = "/run/tripod/control.sock"

/// A command line that does not parse; printed with the usage of the subcommand.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var subcommand: String?
    public var description: String { message }
}

/// The help text of each subcommand, written once.
public enum TripodHelp {
    public static let subcommands: [(name: String, synopsis: String, summary: String, options: [(String, String)])] = [
        ("run", "[--board NAME|FILE] [--console stdio|/dev/ttyX] [--captures DIR] [--config FILE] [--state DIR] [--socket PATH]",
         "start the supervisor and serve its console",
         [("--board NAME|FILE", "board description (default: detected from the device tree, else sim)"),
          ("--console stdio|TTY", "where the console is served (default: stdio)"),
          ("--captures DIR", "where captures are written (default: /var/lib/tripod/captures)"),
          ("--config FILE", "settings file, key = value lines (default: /etc/tripod/tripod.conf if present)"),
          ("--state DIR", "persisted settings, presets, calibration and counters (default: /var/lib/tripod)"),
          ("--socket PATH", "control socket for tripod ctl (default: \(defaultSocketPath))")]),
        ("formats", "[--board NAME|FILE] [--json]", "print the camera's format table",
         [("--board NAME|FILE", "board description (default: sim)"), ("--json", "print JSON instead of a table")]),
        ("ctl", "[--socket PATH] <console line...>", "send one console line to a running supervisor and print the reply",
         [("--socket PATH", "control socket (default: \(defaultSocketPath))")]),
        ("check-config", "FILE", "validate a settings file and exit", []),
        ("collect", "--broker mqtt://HOST:PORT --group G --into DIR --key FILE [--shot ID | --last | --follow] [--layout rigs|colmap] [--parallel N] [--credentials FILE] [--ca FILE] [--remote-ca FILE] [--deadline SECONDS] [--rate-limit KB/S] [--then COMMAND]",
         "collect a fleet's shot onto this machine, every file checked (docs/collect.md)",
         [("--broker URL", "the group's MQTT broker: mqtt://HOST:PORT or mqtts://HOST:PORT"),
          ("--group G", "the fleet's group"),
          ("--into DIR", "where the shots go"),
          ("--key FILE", "the group's read-only collection key (\(SettingsTable.remoteCollect.key) on the rigs), mode 0600"),
          ("--shot ID | --last | --follow", "one shot, the last one (default), or every shot as it comes (resumes from DIR's journal)"),
          ("--layout rigs|colmap", "DIR/<shot>/<rig>/<file> (default), or DIR/images/<rig>/<shot>.jpg and DIR/raw/<rig>/<shot>.dng"),
          ("--parallel N", "transfers at once across the fleet, 1 to 64 (default 8; at most 2 per rig)"),
          ("--credentials FILE", "the broker's user and password, as \(SettingsTable.fleetCredentials.key) (mode 0600)"),
          ("--ca FILE", "the CAs of an mqtts:// broker, as \(SettingsTable.fleetCA.key)"),
          ("--remote-ca FILE", "the CAs of the rigs' HTTPS remotes (default: the system's)"),
          ("--deadline SECONDS", "a shot's files not checked by then are named missing (default 120)"),
          ("--rate-limit KB/S", "cap each transfer at this many kilobytes a second (default: none)"),
          ("--then COMMAND", "run once per shot when every file is checked, with the shot's folder as its last argument (no shell)")]),
        ("help", "[SUBCOMMAND]", "describe tripod or one subcommand", []),
        ("version", "", "print the version", []),
    ]

    public static func overview() -> String {
        var lines = ["usage: tripod <subcommand> [options]", "", "Headless manual-camera firmware.", "", "subcommands:"]
        for s in subcommands { lines.append("  " + s.name.padding(toLength: 14, withPad: " ", startingAt: 0) + s.summary) }
        lines.append("")
        lines.append("tripod <subcommand> --help describes each one.")
        return lines.joined(separator: "\n")
    }

    public static func help(for name: String) -> String? {
        guard let s = subcommands.first(where: { $0.name == name }) else { return nil }
        var lines = ["usage: tripod \(s.name) \(s.synopsis)", "", s.summary]
        if !s.options.isEmpty {
            lines.append("")
            lines.append("options:")
            let width = s.options.map(\.0.count).max() ?? 0
            for (option, text) in s.options { lines.append("  " + option.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + text) }
        }
        return lines.joined(separator: "\n")
    }
}

/// Parses `tripod`'s arguments (without the program name).
public func parseTripodArguments(_ arguments: [String]) throws(UsageError) -> TripodInvocation {
    guard let sub = arguments.first else { return .help(nil) }
    var rest = Array(arguments.dropFirst())
    if ["-h", "--help", "help"].contains(sub) {
        guard let topic = rest.first else { return .help(nil) }
        guard TripodHelp.help(for: topic) != nil else { throw UsageError(message: "unknown subcommand \"\(topic)\"", subcommand: nil) }
        return .help(topic)
    }
    if sub == "--version" || sub == "version" { return .version }
    guard TripodHelp.help(for: sub) != nil else {
        throw UsageError(message: "unknown subcommand \"\(sub)\"", subcommand: nil)
    }
    if rest.contains("--help") || rest.contains("-h") { return .help(sub) }

    /// Takes the value after an option, or throws naming the option.
    func value(_ option: String, _ i: inout Int) throws(UsageError) -> String {
        guard i + 1 < rest.count, !rest[i + 1].hasPrefix("--") else {
            throw UsageError(message: "\(option) needs a value", subcommand: sub)
        }
        i += 1
        return rest[i]
    }

    switch sub {
    case "run":
        var run = RunArguments()
        var i = 0
        while i < rest.count {
            switch rest[i] {
            case "--board": run.board = try value("--board", &i)
            case "--console": run.console = try value("--console", &i)
            case "--captures": run.captures = try value("--captures", &i)
            case "--config": run.config = try value("--config", &i)
            case "--socket": run.socket = try value("--socket", &i)
            case "--state": run.state = try value("--state", &i)
            default: throw UsageError(message: "unknown option \"\(rest[i])\" for run", subcommand: sub)
            }
            i += 1
        }
        return .run(run)
    case "formats":
        var board: String? = nil
        var json = false
        var i = 0
        while i < rest.count {
            switch rest[i] {
            case "--board": board = try value("--board", &i)
            case "--json": json = true
            default: throw UsageError(message: "unknown option \"\(rest[i])\" for formats", subcommand: sub)
            }
            i += 1
        }
        return .formats(board: board, json: json)
    case "ctl":
        var socket = defaultSocketPath
        if rest.first == "--socket" {
            var i = 0
            socket = try value("--socket", &i)
            rest.removeFirst(2)
        }
        guard !rest.isEmpty else { throw UsageError(message: "ctl needs a console line, e.g. tripod ctl status", subcommand: sub) }
        return .ctl(socket: socket, line: rest.joined(separator: " "))
    case "collect":
        return .collect(try parseCollect(rest, value: value))
    case "check-config":
        guard rest.count == 1 else { throw UsageError(message: "check-config needs exactly one FILE", subcommand: sub) }
        return .checkConfig(path: rest[0])
    default:
        guard rest.isEmpty else { throw UsageError(message: "\(sub) takes no arguments", subcommand: sub) }
        return .version
    }
}

/// `tripod collect`'s options; every one that names a file or a folder is made absolute.
func parseCollect(_ rest: [String], value: (String, inout Int) throws(UsageError) -> String) throws(UsageError) -> CollectOptions {
    func usage(_ message: String) -> UsageError { UsageError(message: message, subcommand: "collect") }
    func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
    var broker: BrokerAddress?, group: String?, into: String?, key: String?
    var selection: CollectOptions.Selection?
    var layout = CollectLayout.rigs, parallel = 8, deadline = 120.0
    var credentials: String?, ca: String?, remoteCA: String?, then: String?, rate: Int?
    var i = 0
    while i < rest.count {
        let option = rest[i]
        switch option {
        case "--broker":
            let text = try value(option, &i)
            guard let parsed = BrokerAddress(parsing: text) else { throw usage("--broker \"\(text)\" is not mqtt://HOST:PORT or mqtts://HOST:PORT") }
            broker = parsed
        case "--group":
            let text = try value(option, &i)
            guard SafeName.isValid(text, maximumLength: 64) else { throw usage("--group \"\(text)\" is not a group name (1 to 64 letters, digits, - _ .)") }
            group = text
        case "--into": into = absolute(try value(option, &i))
        case "--key": key = absolute(try value(option, &i))
        case "--credentials": credentials = absolute(try value(option, &i))
        case "--ca": ca = absolute(try value(option, &i))
        case "--remote-ca": remoteCA = absolute(try value(option, &i))
        case "--then": then = try value(option, &i)
        case "--shot", "--last", "--follow":
            guard selection == nil else { throw usage("give one of --shot ID, --last, --follow") }
            if option == "--shot" {
                let id = try value(option, &i)
                guard SafeName.isValid(id) else { throw usage("--shot \"\(id)\" is not a shot id (letters, digits, - _ .)") }
                selection = .shot(id)
            } else {
                selection = option == "--last" ? .last : .follow
            }
        case "--layout":
            let text = try value(option, &i)
            guard let parsed = CollectLayout(rawValue: text) else { throw usage("--layout is rigs or colmap, not \"\(text)\"") }
            layout = parsed
        case "--parallel":
            let text = try value(option, &i)
            guard let n = Int(text), (1...64).contains(n) else { throw usage("--parallel is 1 to 64, not \"\(text)\"") }
            parallel = n
        case "--rate-limit":
            let text = try value(option, &i)
            guard let n = Int(text), (1...10_000_000).contains(n) else { throw usage("--rate-limit is kilobytes a second, 1 to 10000000, not \"\(text)\"") }
            rate = n
        case "--deadline":
            let text = try value(option, &i)
            guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else { throw usage("--deadline is seconds, 0 to 86400, not \"\(text)\"") }
            deadline = seconds
        default:
            throw usage("unknown option \"\(option)\"")
        }
        i += 1
    }
    guard let broker else { throw usage("collect needs --broker mqtt://HOST:PORT") }
    guard let group else { throw usage("collect needs --group G") }
    guard let into else { throw usage("collect needs --into DIR") }
    guard let key else { throw usage("collect needs --key FILE (the group's collection key; docs/collect.md)") }
    var options = CollectOptions(broker: broker, group: group, into: into, keyFile: key)
    options.selection = selection ?? .last
    options.layout = layout
    options.parallel = parallel
    options.deadlineSeconds = deadline
    options.credentialsFile = credentials
    options.caFile = ca
    options.remoteCA = remoteCA
    options.then = then
    options.rateLimitKilobytesPerSecond = rate
    return options
}
