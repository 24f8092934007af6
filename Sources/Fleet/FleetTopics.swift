/// The fleet's MQTT topics (docs/fleet.md). Other tools rely on these names: keep them.
public struct FleetTopics: Sendable, Equatable {
    public let group: String
    public let rig: String

    public init(group: String, rig: String) { self.group = group; self.rig = rig }

    private var rigPrefix: String { "tripod/\(group)/\(rig)" }
    /// Retained `online` or `offline`; `offline` is the Last Will.
    public var state: String { rigPrefix + "/state" }
    /// Retained: the `status` reply as JSON, on a change and at least every 10 s.
    public var status: String { rigPrefix + "/status" }
    /// Each event, as JSON.
    public var events: String { rigPrefix + "/events" }
    /// Commands to every rig of the group.
    public var groupCommands: String { "tripod/\(group)/cmd" }
    /// Commands to this rig only.
    public var rigCommands: String { rigPrefix + "/cmd" }
    /// `{"id": ..., <the console's JSON-mode reply>}` for each command.
    public var reply: String { rigPrefix + "/reply" }

    /// The broker's client id: stable, so the persistent session survives a restart.
    public var clientID: String { "tripod-\(group)-\(rig)" }
}
