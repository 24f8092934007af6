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
    /// `{"shot": "<id>"}`: the shot's sender cancels its shot; only the rig the id names is obeyed
    /// (docs/fleet.md: the broker's ACL lets only that rig's user publish here).
    public var cancel: String { rigPrefix + "/cancel" }
    /// Retained: the report of the last shot this rig sent (its `SHOT_<id>.json`), for a collector
    /// started later (docs/collect.md). Rigs do not subscribe to it.
    public var report: String { rigPrefix + "/report" }
    /// Every rig's retained last shot report (a collector subscribes).
    public var everyRigReport: String { "tripod/\(group)/+/report" }

    /// Every rig's state, status and replies in the group (subscriptions: a shot's sender collects
    /// the replies; `fleet status` lists the rigs).
    public var everyRigState: String { "tripod/\(group)/+/state" }
    public var everyRigStatus: String { "tripod/\(group)/+/status" }
    public var everyRigReply: String { "tripod/\(group)/+/reply" }
    public var everyRigCancel: String { "tripod/\(group)/+/cancel" }

    /// What a rig's topic of this group is: `(rig, "state" | "status" | "reply" | "cancel" | "report")`;
    /// nil for any other.
    public func rigAndKind(of topic: String) -> (rig: String, kind: String)? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 4, levels[0] == "tripod", levels[1] == group, ["state", "status", "reply", "cancel", "report"].contains(levels[3]),
              !levels[2].isEmpty else { return nil }
        return (String(levels[2]), String(levels[3]))
    }

    /// The inbox lane a message on `topic` waits in: commands and cancels first, the group's view after.
    public func lane(of topic: String) -> FleetInbox.Lane {
        if topic == groupCommands || topic == rigCommands || rigAndKind(of: topic)?.kind == "cancel" { return .commands }
        return .group
    }

    /// The broker's client id: stable, so the persistent session survives a restart.
    public var clientID: String { "tripod-\(group)-\(rig)" }
}
