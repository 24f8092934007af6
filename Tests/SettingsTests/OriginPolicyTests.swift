import Console
import Testing
@testable import Settings

/// The one table of what each origin may do (OriginPolicy.swift, docs/security.md).
@Suite struct OriginPolicyTests {
    let policy = OriginPolicy()

    @Test func onlyTheOwnersConsolesReadTheTokenQuitOrSwitchToJSON() {
        for origin in CommandOrigin.allCases {
            let owner = origin == .serial || origin == .socket
            for (command, arguments) in [("remote", ["token"]), ("remote", ["TOKEN"]), ("quit", []), ("json", ["off"]), ("sim", ["hang", "3"])] {
                let refusal = policy.refusal(command: command, arguments: arguments, origin: origin)
                #expect((refusal == nil) == owner, "\(origin) \(command) \(arguments)")
                #expect(refusal.map { $0.code == .denied } ?? true)
            }
            #expect(policy.refusal(command: "remote", arguments: ["preview"], origin: origin) == nil)
            #expect(policy.refusal(command: "sim", arguments: ["motion", "handheld"], origin: origin) == nil)
            #expect(policy.refusal(command: "set", arguments: ["zoom", "2"], origin: origin) == nil)
        }
    }

    @Test func theNetworkNeverChangesTheWaysInOrAFile() {
        for setting in SettingsTable.all {
            let ownerOnly = setting.key.hasPrefix("remote.") || setting.key.hasPrefix("fleet.") || setting.key.hasPrefix("stream.")
                || setting.key == "fleet.credentials" || setting.key == "fleet.ca" || setting.key == "remote.tls" || setting.key == "remote.collect"
            for origin in CommandOrigin.allCases {
                #expect(OriginPolicy.mayChange(setting, from: origin) == (!origin.isNetwork || !ownerOnly), "\(origin) \(setting.key)")
            }
        }
        #expect(SettingsTable.all.filter(\.kind.namesFile).map(\.key).sorted() == ["fleet.ca", "fleet.credentials", "remote.collect", "remote.tls", "stream.rtsp.credentials"])
    }

    /// The store judges the origin before any participant: a refused change touches no service.
    @Test func theStoreRefusesBeforeAnyParticipant() throws {
        final class Witness { var applied: [Set<String>] = [] }
        let witness = Witness()
        let store = SettingsStore(followers: .init(participants: [.init(name: "witness") { change throws(ConsoleError) in witness.applied.append(change.keys) }]))
        for origin in [CommandOrigin.remote, .mqtt] {
            for (key, value) in [("fleet.broker", "mqtt://127.0.0.9:1883"), ("fleet.rig", "someone-else"),
                                 ("remote.listen", "off"), ("fleet.ca", "/etc/hostname"), ("stream.rtsp", "127.0.0.1:8554"),
                                 ("stream.bitrate", "1M"), ("stream.rtsp.credentials", "/etc/hostname")] {
                #expect(throws: ConsoleError.self) { try store.set(key, value, requestedBy: origin) }
                do { try store.set(key, value, requestedBy: origin) } catch { #expect(error.code == .denied && error.message.contains(key), "\(error)") }
            }
        }
        #expect(witness.applied.isEmpty)
        #expect(store.current == .defaults)
        // Triggers operate the camera, as the button's actions do: the network may set them.
        try store.set("trigger.action", "capture", requestedBy: .mqtt)
        try store.set("trigger.motion", "on", requestedBy: .remote)
        #expect(witness.applied == [["trigger.action"], ["trigger.motion"]])
        witness.applied = []
        try store.set("fleet.rig", "mine", requestedBy: .socket)
        try store.set("fleet.group", "studio", requestedBy: nil)  // the config file
        #expect(witness.applied == [["fleet.rig"], ["fleet.group"]])
    }

    /// A reset that would move a key its origin may not change is refused whole.
    @Test func aResetThatWouldMoveAnOwnersKeyIsRefusedWhole() throws {
        let store = SettingsStore()
        try store.set("fleet.rig", "owner-set", requestedBy: .serial)
        try store.set("zoom", "2", requestedBy: .remote)
        for origin in [CommandOrigin.remote, .mqtt] {
            do {
                try store.reset(requestedBy: origin)
                Issue.record("reset over \(origin) went through")
            } catch {
                #expect(error.code == .denied && error.message.contains("reset refused whole") && error.message.contains("fleet.rig"), "\(error)")
            }
            #expect(store.current.fleet.rig == "owner-set")
            #expect(store.current.zoomFactor == 2)
        }
        try store.reset(requestedBy: .socket)
        #expect(store.current == .defaults)
    }
}
