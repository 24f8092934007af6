import Foundation
import TestSupport
import Testing
import Console
import Settings
import LinuxHardware
@testable import Fleet
@testable import FleetConsole

/// The fleet's settings, command messages and credentials, without a broker.
@Suite struct FleetUnitTests {
    @Test func fleetSettingsParseAndRefuseWhatIsNotAnAddressOrAName() throws {
        let store = SettingsStore()
        #expect(store.current.fleet.broker == nil)
        #expect(SettingsTable.fleetBroker.text(in: store.current) == "off")
        #expect(SettingsTable.fleetRig.text(in: store.current) == FleetSettings.hostName())
        try store.set("fleet.broker", "mqtt://broker.local:1883")
        #expect(store.current.fleet.broker == BrokerAddress(scheme: .mqtt, host: "broker.local", port: 1883))
        try store.set("fleet.broker", "mqtts://10.0.0.2:8883")
        #expect(SettingsTable.fleetBroker.text(in: store.current) == "mqtts://10.0.0.2:8883")
        for bad in ["http://x:1", "mqtt://x", "mqtt://x:0", "mqtt://:1883", "mqtt://a/b:1"] {
            #expect(throws: ConsoleError.self, "\(bad)") { try store.set("fleet.broker", bad) }
        }
        for bad in ["a/b", "+", "#", "", String(repeating: "x", count: 65)] {
            #expect(throws: ConsoleError.self, "\(bad)") { try store.set("fleet.rig", bad) }
        }
        #expect(throws: ConsoleError.self) { try store.set("fleet.ca", "relative.pem") }
        try store.set("fleet.broker", "off")
        #expect(store.current.fleet.broker == nil)
    }

    @Test func theCredentialsFileIsRefusedUnlessMode0600() throws {
        let directory = NSTemporaryDirectory() + "tripod-fleet-unit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/credentials"
        try "rig\npass word\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let store = SettingsStore()
        store.participate(.init(name: "fleet") { change throws(ConsoleError) in try FleetClient.check(change) })
        do {
            try store.set("fleet.credentials", path)
            Issue.record("a mode 0644 credentials file was accepted")
        } catch {
            #expect(error.message.contains("mode 644") && error.message.contains("chmod 600"), "\(error.message)")
        }
        #expect(store.current.fleet.credentialsFile == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        try store.set("fleet.credentials", path)
        #expect(store.current.fleet.credentialsFile == path)
        #expect(try FleetCredentials.load(path: path) == FleetCredentials(user: "rig", password: "pass word"))
        try "only-a-user".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: ConsoleError.self) { try FleetCredentials.load(path: path) }
        #expect(throws: ConsoleError.self) { try FleetCredentials.load(path: directory + "/missing") }
    }

    @Test func commandMessagesAreCheckedBeforeTheyRun() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func parse(_ text: String, retained: Bool = false) -> FleetCommandMessage {
            FleetCommandMessage.parse(Array(text.utf8), retained: retained, now: now)
        }
        func code(_ m: FleetCommandMessage) -> ConsoleError.Code? {
            if case .failure(let e) = m.result { return e.code } else { return nil }
        }
        let ok = parse("{\"id\":\"a\",\"line\":\"status\"}")
        #expect(ok.id == "a")
        #expect(try ok.result.get() == FleetCommand(id: "a", line: "status"))
        #expect(parse("[1]").id == nil && code(parse("[1]")) == .badInput)
        #expect(code(parse("{\"line\":\"status\"}")) == .badInput)
        #expect(code(parse("{\"id\":7,\"line\":\"status\"}")) == .badInput)
        #expect(code(parse("{\"id\":\"a\"}")) == .badInput)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"status\\nquit\"}")) == .badInput)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"   \"}")) == .usage)
        // Parsed as any line: the origin policy refuses these when they run (FleetOriginPolicyTests).
        #expect(code(parse("{\"id\":\"a\",\"line\":\"QUIT\"}")) == nil)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"set fleet.broker off\"}")) == nil)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"status\"}", retained: true)) == .badInput)
        let soon = parse("{\"id\":\"a\",\"line\":\"capture\",\"at\":\"2027-01-15T08:00:00.050Z\"}")
        #expect(code(soon) == .outOfRange)
        if case .failure(let e) = soon.result { #expect(e.message.contains("earliest that would have worked is 2027-01-15T08:00:00.100Z"), "\(e.message)") }
        #expect(code(parse("{\"id\":\"a\",\"line\":\"capture\",\"at\":\"2027-01-15T07:00:00.000Z\"}")) == .outOfRange)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"capture\",\"at\":\"tomorrow\"}")) == .badValue)
        let later = parse("{\"id\":\"a\",\"line\":\"capture\",\"at\":\"2027-01-15T08:00:02.000Z\"}")
        #expect(try later.result.get().at == now.addingTimeInterval(2))
        #expect(code(parse("{\"id\":\"a\",\"line\":\"capture\",\"at\":\"2027-01-15T08:00:02.000Z\",\"notAfter\":\"2027-01-15T08:00:01.000Z\"}")) == .outOfRange)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"capture\",\"at\":\"2027-01-16T09:00:00.000Z\"}")) == .outOfRange)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"capture\",\"notAfter\":\"2027-01-15T07:59:59.999Z\"}")) == .outOfRange)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"capture\",\"notAfter\":\"2027-01-15T07:59:59Z\"}")) == .outOfRange)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"capture\",\"notAfter\":\"2030-01-15T08:00:00.250Z\"}")) == nil)
        #expect(code(parse("{\"id\":\"a\",\"line\":\"capture\",\"notAfter\":\"soon\"}")) == .badValue)
        #expect(code(parse(String(repeating: " ", count: FleetCommandMessage.maximumBytes + 1))) == .badInput)
    }

    @Test func theSeenIdsAreBoundedAndSurviveARestart() throws {
        let directory = NSTemporaryDirectory() + "tripod-fleet-ids-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = StateStore(storage: try PosixStorage(root: directory))
        let seen = SeenCommandIDs(capacity: 3)
        for id in ["a", "b", "c", "d"] { seen.insert(id) }
        let remembered = seen.remembered
        #expect(remembered == ["b", "c", "d"])
        #expect(!seen.contains("a") && seen.contains("b") && seen.contains("d"))
        try state.save(remembered, as: StateStore.File.fleetCommandIDs)
        let again = SeenCommandIDs(capacity: 3, remembered: try state.load([String].self, from: StateStore.File.fleetCommandIDs) ?? [])
        #expect(!again.contains("a") && again.contains("b") && again.contains("c") && again.contains("d"))
    }

    /// Beyond its capacity a lane drops its oldest message: what comes after a flood is kept.
    @Test func theInboxAsksForOneHopPerBurstAndDropsMessagesBeyondItsCapacity() {
        let inbox = FleetInbox(commandCapacity: 3, groupCapacity: 3, maximumGroupPayloadBytes: 16)
        let message = MosquittoEvent.message(topic: "t", payload: [1], retained: false)
        #expect(inbox.push(.init(connection: 1, event: .connected(code: 0)), lane: .commands))
        for _ in 0..<4 { #expect(!inbox.push(.init(connection: 1, event: message), lane: .commands)) }
        // Connection events are kept even when the inbox is full of messages.
        #expect(!inbox.push(.init(connection: 1, event: .disconnected(code: 7)), lane: .commands))
        let taken = inbox.drain()
        #expect(taken.commands.map(\.event) == [.connected(code: 0), message, message, message, .disconnected(code: 7)])
        #expect(taken.droppedCommands == 1)
        #expect(inbox.push(.init(connection: 2, event: message), lane: .commands), "after a drain the next push asks for a hop again")
        _ = inbox.drain()
        for n in 0..<10 { _ = inbox.push(.init(connection: 1, event: .message(topic: "t", payload: [UInt8(n)], retained: false)), lane: .commands) }
        let latest = inbox.drain()
        #expect(latest.commands.map(\.event) == (7..<10).map { MosquittoEvent.message(topic: "t", payload: [UInt8($0)], retained: false) })
        #expect(latest.droppedCommands == 7)
    }

    /// Finding (issue 37): the group's status shared one inbox with the commands. A flood of status
    /// fills only the group's lane; the commands behind it are all kept and handed over first, and a
    /// payload over the limit is dropped and counted.
    @Test func groupTrafficCannotCrowdOutCommands() {
        let inbox = FleetInbox(commandCapacity: 4, groupCapacity: 8, maximumGroupPayloadBytes: 16)
        let status = MosquittoEvent.message(topic: "tripod/g/x/status", payload: [1], retained: false)
        for _ in 0..<100 { _ = inbox.push(.init(connection: 1, event: status), lane: .group) }
        _ = inbox.push(.init(connection: 1, event: .message(topic: "tripod/g/x/status", payload: Array(repeating: 1, count: 17), retained: false)), lane: .group)
        let command = MosquittoEvent.message(topic: "tripod/g/cmd", payload: [2], retained: false)
        for _ in 0..<4 { _ = inbox.push(.init(connection: 1, event: command), lane: .commands) }
        let taken = inbox.drain()
        #expect(taken.commands.count == 4 && taken.droppedCommands == 0)
        #expect(taken.group.count == 8 && taken.droppedGroup == 92 && taken.droppedOversize == 1)
        let topics = FleetTopics(group: "g", rig: "r1")
        #expect(topics.lane(of: "tripod/g/cmd") == .commands && topics.lane(of: "tripod/g/r1/cmd") == .commands)
        #expect(topics.lane(of: "tripod/g/r2/cancel") == .commands)
        #expect(topics.lane(of: "tripod/g/r2/status") == .group && topics.lane(of: "tripod/g/r2/reply") == .group)
    }

    /// A long flood of status through a small group lane: the newest are kept, in order, however many
    /// times the lane dropped its oldest (and cut what it dropped); a connection event pushed on the
    /// group lane waits with the commands, never dropped.
    @Test func theGroupLaneKeepsTheNewestThroughALongFlood() {
        let inbox = FleetInbox(commandCapacity: 4, groupCapacity: 8, maximumGroupPayloadBytes: 16)
        func status(_ n: Int) -> MosquittoEvent { .message(topic: "tripod/g/x\(n)/status", payload: [1], retained: false) }
        for n in 0..<1000 { _ = inbox.push(.init(connection: 1, event: status(n)), lane: .group) }
        _ = inbox.push(.init(connection: 1, event: .disconnected(code: 7)), lane: .group)
        #expect(inbox.waiting.group == 8 && inbox.waiting.commands == 1)
        let taken = inbox.drain()
        #expect(taken.group.map(\.event) == (992..<1000).map(status))
        #expect(taken.droppedGroup == 992)
        #expect(taken.commands.map(\.event) == [.disconnected(code: 7)])
        for n in 0..<3 { _ = inbox.push(.init(connection: 1, event: status(n)), lane: .group) }
        #expect(inbox.drain().group.map(\.event) == (0..<3).map(status), "after a drain the lane starts empty")
    }

    /// A rig's state goes the way of its status and replies: the group lane, whose size bound drops
    /// and counts a payload over the limit (the broker tests send oversized status and replies).
    @Test func anOversizedStateIsDroppedAndCounted() {
        let topics = FleetTopics(group: "g", rig: "r1")
        #expect(topics.lane(of: "tripod/g/r2/state") == .group)
        let inbox = FleetInbox(commandCapacity: 4, groupCapacity: 8, maximumGroupPayloadBytes: 16)
        _ = inbox.push(.init(connection: 1, event: .message(topic: "tripod/g/r2/state", payload: Array(repeating: 0x6F, count: 17), retained: true)), lane: .group)
        _ = inbox.push(.init(connection: 1, event: .message(topic: "tripod/g/r2/state", payload: Array("online".utf8), retained: true)), lane: .group)
        let taken = inbox.drain()
        #expect(taken.droppedOversize == 1 && taken.group.count == 1)
    }

    /// A shot's id names its sender; no other rig's name fits it, even one that extends it.
    @Test func aShotIdNamesItsSenderOnly() {
        let id = ShotRequest.makeID(rig: "cam-1", instant: Date(timeIntervalSince1970: 1_764_950_400.123), serial: 0)
        #expect(ShotRequest.isSent(by: "cam-1", id: id))
        #expect(!ShotRequest.isSent(by: "cam", id: id))
        #expect(!ShotRequest.isSent(by: "cam-1", id: "cam-1-x"))
        let serial = ShotRequest.makeID(rig: "a", instant: Date(timeIntervalSince1970: 1_764_950_400), serial: 3)
        #expect(ShotRequest.isSent(by: "a", id: serial))
        #expect(!ShotRequest.isSent(by: "a", id: ShotRequest.makeID(rig: "a-1764950400000", instant: Date(timeIntervalSince1970: 1_764_950_400), serial: 0)))
    }

    /// The payloads' strings are JSON that any parser reads back as they were; nil is null.
    @Test func jsonStringsReadBackAsTheyWere() throws {
        for text in ["cam01-1777636805250", "a \"quoted\" \\ back/slash", "tab\there", "é ✓", ""] {
            let literal = FleetClient.jsonString(text)
            #expect(try JSONSerialization.jsonObject(with: Data(literal.utf8), options: [.fragmentsAllowed]) as? String == text, "\(literal)")
        }
        #expect(FleetClient.jsonString(nil) == "null")
    }

    @Test func topicsAreTheIssuesNames() {
        let t = FleetTopics(group: "studio", rig: "cam07")
        #expect(t.state == "tripod/studio/cam07/state")
        #expect(t.status == "tripod/studio/cam07/status")
        #expect(t.events == "tripod/studio/cam07/events")
        #expect(t.groupCommands == "tripod/studio/cmd")
        #expect(t.rigCommands == "tripod/studio/cam07/cmd")
        #expect(t.reply == "tripod/studio/cam07/reply")
    }
}

/// The clock's sync state (adjtimex) in the published status.
@Suite struct FleetClockTests {
    /// adjtimex's answer read as the kernel means it: TIME_ERROR or STA_UNSYNC is unsynchronised.
    @Test func adjtimexStateIsReadFromItsReturnValueAndStatusBit() {
        let synced = KernelClockSync.state(returned: 0, status: 0x2001, estimatedError: 120, maximumError: 4000)
        #expect(synced == ClockSyncState(synchronised: true, estimatedErrorMicroseconds: 120, maximumErrorMicroseconds: 4000))
        #expect(!KernelClockSync.state(returned: 5, status: 0, estimatedError: 0, maximumError: 16_000_000).synchronised)
        #expect(!KernelClockSync.state(returned: 0, status: 0x0041, estimatedError: 0, maximumError: 16_000_000).synchronised)
        // The real call, with modes 0 (reads only): it answers on Linux without privilege.
        #expect(KernelClockSync().read() != nil)
    }

    /// The status published on .../status carries `clock` and `clock.error.us` first in its values,
    /// from an injected state; the reply stays valid JSON with its other values.
    @Test func statusCarriesTheInjectedClockState() throws {
        let reply = "{\"type\":\"reply\",\"ok\":true,\"values\":{\"state\":\"ready\"}}"
        let line = FleetClient.addingClock(ClockSyncState(synchronised: false, estimatedErrorMicroseconds: 16000, maximumErrorMicroseconds: 16_000_000), to: reply)
        #expect(line.hasPrefix("{\"type\":\"reply\",\"ok\":true,\"values\":{\"clock\":\"unsynchronised\",\"clock.error.us\":\"16000\",\"state\""), "\(line)")
        let values = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["values"] as? [String: String])
        #expect(values == ["clock": "unsynchronised", "clock.error.us": "16000", "state": "ready"])
        let empty = FleetClient.addingClock(ClockSyncState(synchronised: true, estimatedErrorMicroseconds: 5, maximumErrorMicroseconds: 9), to: "{\"type\":\"reply\",\"ok\":true,\"values\":{}}")
        #expect((try JSONSerialization.jsonObject(with: Data(empty.utf8)) as? [String: Any])?["values"] as? [String: String] == ["clock": "synchronised", "clock.error.us": "5"])
        #expect(FleetClient.addingClock(nil, to: reply).contains("\"clock\":\"unknown\",\"state\""))
        #expect(FleetClient.addingClock(nil, to: "{\"type\":\"reply\",\"ok\":false}") == "{\"type\":\"reply\",\"ok\":false}")
    }
}
