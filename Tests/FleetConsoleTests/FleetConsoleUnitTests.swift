import Foundation
import Testing
import Console
import Fleet
import Settings
import LinuxHardware
@testable import FleetConsole

/// The fleet client's command messages, credentials file, ids already run, shot ids, JSON strings
/// and the clock in its status, without a broker.
@Suite struct FleetConsoleUnitTests {
    @Test func theCredentialsFileIsRefusedUnlessMode0600() throws {
        let directory = NSTemporaryDirectory() + "tripod-fleet-unit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/credentials"
        try "rig\npass word\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let store = SettingsStore(followers: .init(participants: [.init(name: "fleet") { change throws(ConsoleError) in try FleetClient.check(change) }]))
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
