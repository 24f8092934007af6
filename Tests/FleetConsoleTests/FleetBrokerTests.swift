import Foundation
import TestSupport
import Hardware
import Testing
@testable import Fleet
@testable import FleetConsole

/// The fleet against a real mosquitto on 127.0.0.1 and `tripod run --board sim` as its own process.
@Suite(.serialized) struct FleetBrokerTests {
    /// The Last Will: a rig killed with SIGKILL sends no DISCONNECT, so the broker publishes its
    /// retained `offline`.
    @Test func stateIsOnlineThenTheLastWillSaysOfflineAfterKill9() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let rig = try FleetRig(broker: broker.port)
        defer { rig.removeWork() }
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
        let status = try #require(observer.messages(on: rig.topics.status).last)
        #expect(status.payload.contains("\"state\":\"ready\""), "\(status.payload)")
        #expect(status.payload.hasPrefix("{\"type\":\"reply\",\"ok\":true"), "\(status.payload)")
        // The clock's state from adjtimex, as this machine's kernel reports it.
        let clock = try #require(KernelClockSync().read())
        #expect(status.payload.contains("\"clock\":\"\(clock.word)\",\"clock.error.us\":"), "\(status.payload)")
        // Once the rig is quiet (its first frames change the status), the status still goes out
        // again: a gap of more than half the interval between two publishes is one without a change.
        var gaps: [Double] = []
        #expect(waitUntil(seconds: 90) {
            let times = observer.messages(on: rig.topics.status).map(\.receivedAt)
            gaps = zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
            return gaps.contains { $0 > FleetClient.statusInterval.secondsValue / 2 }
        })
        let quiet = gaps.max() ?? 0
        #expect(quiet < FleetClient.statusInterval.secondsValue * 3, "status went out after \(quiet) s without a change")
        print("fleet: unchanged status published again after \(String(format: "%.1f", quiet)) s")
        let killedAt = Date()
        rig.kill9()
        #expect(waitUntil(seconds: Double(FleetClient.keepaliveSeconds) * 1.5 + 30) {
            observer.messages(on: rig.topics.state).last?.payload == "offline"
        })
        let seconds = Date().timeIntervalSince(killedAt)
        #expect(seconds <= Double(FleetClient.keepaliveSeconds) * 1.5, "offline after \(seconds) s")
        print("fleet: Last Will offline \(String(format: "%.3f", seconds)) s after kill -9")
        // A late subscriber sees the retained offline.
        let late = try MQTTObserver(broker: broker)
        #expect(waitUntil(seconds: 30) { late.messages(on: rig.topics.state).contains { $0.payload == "offline" && $0.retained } })
    }

    /// A command on the rig's topic and one on the group's, each answered with its id and the
    /// console's JSON reply; a clean stop publishes offline.
    @Test func commandsOnTheRigAndGroupTopicsAreAnsweredWithTheirIds() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let rig = try FleetRig(broker: broker.port)
        defer { rig.removeWork() }
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
        var milliseconds: [Double] = []
        for n in 0..<10 {
            let asked = Date()
            _ = try observer.ask(rig.topics, id: "t\(n)", line: "get zoom")
            milliseconds.append(Date().timeIntervalSince(asked) * 1000)
        }
        milliseconds.sort()
        print("fleet: command to reply, 10 asks: median \(String(format: "%.1f", milliseconds[5])) ms, max \(String(format: "%.1f", milliseconds[9])) ms")
        let reply = try observer.ask(rig.topics, id: "c1", line: "get capture.format")
        #expect(reply["type"] as? String == "reply")
        #expect(reply["ok"] as? Bool == true)
        #expect((reply["values"] as? [String: String])?["capture.format"] == "both", "\(reply)")
        let group = try observer.ask(rig.topics, id: "c2", line: "set zoom 2", toGroup: true)
        #expect(group["ok"] as? Bool == true, "\(group)")
        #expect(rig.ctl("get zoom") == "ok zoom=2")
        // A capture's events go out on .../events as the console's JSON events.
        #expect(try observer.ask(rig.topics, id: "c3", line: "capture")["ok"] as? Bool == true)
        #expect(waitUntil { observer.messages(on: rig.topics.events).contains { $0.payload.hasPrefix("{\"type\":\"event\",\"event\":\"bracket.done\"") } },
                "\(observer.messages(on: rig.topics.events).map(\.payload))")
        // A change of status (the count of brackets saved) is published: at the next poll, 1 s (measured).
        let captured = Date()
        #expect(waitUntil { observer.messages(on: rig.topics.status).last?.payload.contains("\"brackets\":\"1 saved") == true },
                "\(observer.messages(on: rig.topics.status).last?.payload ?? "")")
        print("fleet: a changed status published \(String(format: "%.1f", Date().timeIntervalSince(captured))) s after the capture's reply")
        // "at": the line runs at that instant of the rig's clock (the same machine's clock here).
        let at = Date().addingTimeInterval(1.5)
        let atText = FleetCommandMessage.formatTime(at)
        let scheduled = try observer.ask(rig.topics, id: "at1", line: "get zoom", extra: ",\"at\":\"\(atText)\"")
        #expect(scheduled["ok"] as? Bool == true, "\(scheduled)")
        let answeredAt = try #require(observer.messages(on: rig.topics.reply).first { $0.payload.contains("\"id\":\"at1\"") }?.receivedAt)
        #expect(answeredAt >= at, "answered \(answeredAt.timeIntervalSince(at)) s before its at")
        print("fleet: an at command answered \(String(format: "%.1f", answeredAt.timeIntervalSince(at) * 1000)) ms after its instant")
        rig.stop()
        #expect(waitUntil { observer.messages(on: rig.topics.state).last?.payload == "offline" })
    }

    /// QoS 1 may deliver twice: an id runs once, also after the rig restarts (the ids are persisted).
    @Test func aDuplicatedIdRunsOnceEvenAcrossARestart() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let rig = try FleetRig(broker: broker.port)
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
        let capture = "{\"id\":\"d1\",\"line\":\"capture\"}"
        try observer.publish(rig.topics.rigCommands, capture)
        try observer.publish(rig.topics.rigCommands, capture)
        // Commands run in order: once the next one is answered, the duplicate has been seen.
        _ = try observer.ask(rig.topics, id: "after-duplicate", line: "status")
        #expect(observer.replies(rig.topics, id: "d1").count == 1)
        #expect(observer.replies(rig.topics, id: "d1").first?["ok"] as? Bool == true, "\(observer.replies(rig.topics, id: "d1"))")
        // The files are written after the reply: wait for the sidecar.
        #expect(waitUntil { captureFiles(rig.captures).contains { $0.hasSuffix(".json") } })
        let captured = captureFiles(rig.captures)
        rig.stop()
        let count = observer.messages.count
        let again = try FleetRig(broker: broker.port, work: rig.work)
        defer { again.removeWork() }
        #expect(waitUntil { observer.sawOnlineThenStatus(again.topics, after: count) }, "\(again.log)")
        try observer.publish(again.topics.rigCommands, capture)
        _ = try observer.ask(again.topics, id: "after-restart", line: "status")
        #expect(observer.replies(again.topics, id: "d1").count == 1)
        #expect(captureFiles(again.captures) == captured)
    }

    /// Bad input gets one clear `err` reply and nothing else happens.
    @Test func malformedUnknownFailingAndRefusedCommandsGetAnErrReplyOnly() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let rig = try FleetRig(broker: broker.port)
        defer { rig.removeWork() }
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
        try observer.publish(rig.topics.rigCommands, "{not json")
        #expect(waitUntil { observer.messages(on: rig.topics.reply).contains { $0.payload.contains("\"id\":null") } })
        let malformed = try #require(observer.messages(on: rig.topics.reply).first { $0.payload.contains("\"id\":null") })
        #expect(malformed.payload.contains("\"ok\":false") && malformed.payload.contains("\"code\":\"bad-input\""), "\(malformed.payload)")
        let cases: [(id: String, line: String, extra: String, code: String)] = [
            ("u1", "frobnicate", "", "unknown-command"),
            ("f1", "set zoom 100", "", "out-of-range"),
            ("q1", "quit", "", "denied"),
            ("s1", "set fleet.group other", "", "denied"),
            ("j1", "json off", "", "denied"),
            ("a1", "capture", ",\"at\":\"2001-01-01T00:00:00.000Z\"", "out-of-range"),
            ("n1", "capture", ",\"notAfter\":\"2001-01-01T00:00:00.000Z\"", "out-of-range"),
        ]
        for c in cases {
            let reply = try observer.ask(rig.topics, id: c.id, line: c.line, extra: c.extra)
            #expect(reply["ok"] as? Bool == false, "\(c.line): \(reply)")
            #expect(reply["code"] as? String == c.code, "\(c.line): \(reply)")
            #expect(!(reply["message"] as? String ?? "").isEmpty)
        }
        // No command changes a fleet.* setting over MQTT: reset would put back the config file's fleet.ca.
        let reconnects = observer.messages.count
        #expect(rig.ctl("set fleet.ca /etc/hostname") == "ok fleet.ca=/etc/hostname")
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics, after: reconnects) }, "\(rig.log)")
        let reset = try observer.ask(rig.topics, id: "r1", line: "reset")
        #expect(reset["code"] as? String == "denied" && (reset["message"] as? String ?? "").contains("fleet.ca"), "\(reset)")
        #expect(rig.ctl("get fleet.ca") == "ok fleet.ca=/etc/hostname")
        // Nothing else happened: the rig still answers, nothing changed, nothing was captured.
        #expect((try observer.ask(rig.topics, id: "z", line: "get zoom")["values"] as? [String: String])?["zoom"] == "1")
        #expect((try observer.ask(rig.topics, id: "g", line: "get fleet.group")["values"] as? [String: String])?["fleet.group"] == "g")
        #expect(captureFiles(rig.captures).isEmpty)
        #expect(rig.process.isRunning)
        let ids = observer.messages(on: rig.topics.reply).count
        #expect(ids == cases.count + 4, "one reply each: \(observer.messages(on: rig.topics.reply).map(\.payload))")
    }

    /// The broker is down when the rig starts: it works locally, then connects with its backoff
    /// once the broker is up, and publishes its state and status; commands then run.
    @Test func aBrokerThatComesUpLaterIsJoinedWithBackoff() throws {
        let broker = try Broker(start: false)
        let rig = try FleetRig(broker: broker.port)
        defer { rig.removeWork() }
        #expect(waitUntil { rig.ctl("status")?.hasPrefix("ok state=ready") == true }, "\(rig.log)")
        #expect(rig.log.contains("not reachable") || rig.log.contains("fleet: connecting"), "\(rig.log)")
        try broker.start()
        let started = Date()
        let observer = try MQTTObserver(broker: broker)
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
        print("fleet: connected \(String(format: "%.1f", Date().timeIntervalSince(started))) s after the broker came up")
        #expect(try observer.ask(rig.topics, id: "late", line: "status")["ok"] as? Bool == true)
        // The broker restarts mid-session: the rig publishes its state again.
        broker.stop()
        let count = observer.messages.count
        try broker.start()
        let again = try MQTTObserver(broker: broker)
        #expect(waitUntil { again.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
        #expect(observer.messages.count >= count)
        #expect(try again.ask(rig.topics, id: "after-restart", line: "status")["ok"] as? Bool == true)
    }

    /// A broker that refuses anonymous clients: the rig logs in with the user and password of fleet.credentials.
    @Test func credentialsFromAMode0600FileLogIn() throws {
        let directory = NSTemporaryDirectory() + "tripod-credentials-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let passwords = directory + "/passwords"
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        make.arguments = ["-b", "-c", passwords, "rig", "s3cret pass"]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0)
        let broker = try Broker(extraConfig: ["allow_anonymous false", "password_file \(passwords)"])
        let credentials = directory + "/credentials"
        try "rig\ns3cret pass\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: credentials)
        let observer = try MQTTObserver(broker: broker, user: "rig", password: "s3cret pass")
        let rig = try FleetRig(broker: broker.port, extraConfig: ["fleet.credentials = \(credentials)"])
        defer { rig.removeWork() }
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
    }
}

extension FleetBrokerTests {
    /// A credentials file anyone may read stops `tripod run` at start, saying how to fix it.
    @Test func aConfigFileNamingACredentialsFileOfMode0644StopsTheStart() throws {
        let directory = NSTemporaryDirectory() + "tripod-credentials-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let credentials = directory + "/credentials"
        try "rig\npassword\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: credentials)
        let rig = try FleetRig(broker: try freeLoopbackPort(), extraConfig: ["fleet.credentials = \(credentials)"])
        defer { rig.removeWork() }
        rig.process.waitUntilExit()
        #expect(rig.process.terminationStatus == 1)
        #expect(rig.log.contains("fleet.credentials \(credentials) has mode 644") && rig.log.contains("chmod 600"), "\(rig.log)")
    }
}
