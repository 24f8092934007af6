import Console

/// Who may do what: the one table of what each origin of a console line may run and change
/// (docs/security.md has the threat model behind it).
///
/// - The owner's ways in, the serial console (or the terminal `tripod run` runs on) and
///   `tripod ctl` (local root), may do everything.
/// - The network's, the browser remote (whoever holds its token) and MQTT (any user of the
///   group's broker), may operate the camera but never take the rig: they cannot read the
///   remote's token, change how the rig is reached (`remote.*`, `fleet.*`) or name a file the
///   service would read.
///
/// The command table asks `refusal(command:arguments:origin:)` before a handler runs; the settings
/// store asks `check(_:)` first in every commit a line asked for, so `set`, `format`, `wb gray` and
/// `reset` are judged alike, and a line held behind a deferred reply keeps its session's origin.
public struct OriginPolicy: CommandPolicy {
    /// A command, or one form of it (its first argument), that only some origins may run.
    struct CommandRule: Sendable {
        let command: String
        /// The first argument this rule is about; nil: every form of the command.
        let form: String?
        let origins: Set<CommandOrigin>
        /// Why the others may not, and where to do it instead.
        let reason: String
    }

    static let owner: Set<CommandOrigin> = [.serial, .socket]

    /// The lines not every origin may run.
    static let commandRules: [CommandRule] = [
        CommandRule(command: "remote", form: "token", origins: owner,
                    reason: "the token opens the browser remote: read it at the rig's own console (tripod ctl remote token)"),
        CommandRule(command: "fleet", form: "cancel", origins: owner.union([.remote]),
                    reason: "anyone may publish on the group's cmd topic; over MQTT only a shot's sender cancels it, on its own tripod/<group>/<rig>/cancel"),
        CommandRule(command: "sim", form: "hang", origins: owner,
                    reason: "it stops the supervisor's loop (a watchdog test), which only the rig's owner may do"),
        CommandRule(command: "quit", form: nil, origins: owner,
                    reason: "a network session ends with its request or connection; quit is for the rig's own consoles"),
        CommandRule(command: "json", form: nil, origins: owner,
                    reason: "the remote and MQTT always answer in JSON; json is for the rig's own consoles"),
    ]

    public init() {}

    public func refusal(command: String, arguments: [String], origin: CommandOrigin) -> ConsoleError? {
        let form = arguments.first?.lowercased()
        guard let rule = Self.commandRules.first(where: { $0.command == command && ($0.form == nil || $0.form == form) }),
              !rule.origins.contains(origin) else { return nil }
        let line = rule.form.map { "\(command) \($0)" } ?? command
        return ConsoleError(.denied, "\(line) cannot run \(Self.over(origin)): \(rule.reason)")
    }

    public func origins(of command: String) -> String? {
        let rules = Self.commandRules.filter { $0.command == command }
        guard !rules.isEmpty else { return nil }
        return rules.map { rule in (rule.form.map { "\($0): " } ?? "") + CommandOrigin.list(rule.origins) }.joined(separator: "; ")
    }

    // MARK: Settings

    /// True when `origin` may change `setting`: the network origins never change the ways in
    /// (`remote.*`, `fleet.*`, `stream.*`) nor a setting that names a file.
    public static func mayChange(_ setting: AnySetting, from origin: CommandOrigin) -> Bool {
        guard origin.isNetwork else { return true }
        return !(setting.key.hasPrefix("remote.") || setting.key.hasPrefix("fleet.") || setting.key.hasPrefix("stream.")
                 || setting.kind.namesFile)
    }

    /// Where a setting the network may not change is changed instead (the page shows it).
    public static let ownerOnlyWhere = "set at the rig's own console (serial, or tripod ctl set ...) or in its config file"

    /// Refuses, whole, a change a line asked for that touches a key its origin may not change.
    /// The rig's own changes (config file, start-up, the button; `requestedBy` nil) are not judged.
    public static func check(_ change: SettingsChange) throws(ConsoleError) {
        guard let origin = change.requestedBy else { return }
        let refused = SettingsTable.all.filter { change.keys.contains($0.key) && !mayChange($0, from: origin) }.map(\.key)
        guard !refused.isEmpty else { return }
        let keys = refused.joined(separator: ", ")
        if change.origin == .reset {
            throw ConsoleError(.denied, "reset refused whole \(over(origin)): it would change \(keys), which only the rig's owner may change (\(ownerOnlyWhere))")
        }
        throw ConsoleError(.denied, "\(keys) cannot change \(over(origin)): the remote.*, fleet.* and stream.* settings and settings that name a file are \(ownerOnlyWhere)")
    }

    /// "over MQTT", "over the browser remote", ...: the origin in a refusal.
    static func over(_ origin: CommandOrigin) -> String {
        switch origin {
        case .serial: return "at the serial console"
        case .socket: return "over tripod ctl"
        case .remote: return "over the browser remote"
        case .mqtt: return "over MQTT"
        }
    }
}

// MARK: The browser remote's requests

/// Which credential an HTTP request to the browser remote showed: the owner's token (`remote
/// token`), or the group's read-only collection key (`remote.collect`, `tripod collect --key`).
public enum RemoteCredential: String, Sendable, CaseIterable {
    case token
    case collectionKey = "collect"
}

/// What a request to the browser remote asks for; the router names it, the policy judges it.
public enum RemoteResource: String, Sendable, CaseIterable {
    /// `POST /login` (sets the token's cookie) and the page `/`.
    case login, page
    /// `POST /api/command`: any console line.
    case command
    /// `GET /api/status`, `/api/formats`, `/api/settings`.
    case status, formats, settings
    /// `GET /api/events`, `GET /stream.mjpg`.
    case events, preview
    /// `GET /api/captures`, `GET /captures/<path>`, `GET /api/shots/<id>` (this rig's part of a shot).
    case captureList, download, shotPart
}

extension OriginPolicy {
    /// The collection key may list and download captures, and ask for this rig's part of a shot;
    /// nothing else (docs/security.md, the `collect` column).
    static let collectionKeyMay: Set<RemoteResource> = [.captureList, .download, .shotPart]

    /// True when a request showing `credential` may ask for `resource`.
    public static func mayRequest(_ resource: RemoteResource, with credential: RemoteCredential) -> Bool {
        switch credential {
        case .token: return true
        case .collectionKey: return collectionKeyMay.contains(resource)
        }
    }

    /// The refusal's words for a request the collection key may not make (the token may make any).
    public static func requestRefusal(_ resource: RemoteResource) -> String {
        "the collection key may only list and download captures (\(resource.rawValue) needs the remote's token)"
    }
}

extension SettingKind {
    /// True for the kinds whose value names a file the service reads.
    public var namesFile: Bool {
        switch self {
        case .file, .certificateAndKey: return true
        default: return false
        }
    }
}
