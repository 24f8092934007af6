import Foundation
import Testing
import TestSupport
@testable import Fleet
@testable import FleetConsole

/// The network edge, tried as a hostile peer would (docs/security.md), on real processes: a
/// mosquitto on the loopback, a `tripod run` with its fleet and its browser remote on, a user of
/// the broker and a holder of the token. Neither takes the rig: the token never goes out over
/// MQTT, and neither way in moves the other (or itself).
@Suite(.serialized) struct FleetOriginPolicyTests {
    /// `curl` posts one console line to the remote's `/api/command` with the token; its JSON reply.
    static func post(_ line: String, port: Int, token: String) -> [String: Any]? {
        let curl = Process()
        let output = Pipe()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-m", "20", "-H", "Authorization: Bearer \(token)", "--data-binary", line,
                          "http://127.0.0.1:\(port)/api/command"]
        curl.standardOutput = output
        curl.standardError = FileHandle.nullDevice
        guard (try? curl.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    @Test func neitherTheBrokersUsersNorTheTokensHolderTakeTheRig() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let rig = try FleetRig(broker: broker.port, extraConfig: ["remote.listen = 127.0.0.1:0"])
        defer { rig.stop(); rig.removeWork() }
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
        let tokenReply = try #require(rig.ctl("remote token"))
        #expect(tokenReply.hasPrefix("ok token="), "\(tokenReply)")
        let token = String(tokenReply.dropFirst("ok token=".count))
        let listen = try #require(rig.ctl("get remote.listen"))
        let port = try #require(listen.split(separator: "=").last.flatMap { $0.split(separator: ":").last }.flatMap { Int($0) }, "\(listen)")

        // A user of the broker: no token, no remote.*, no fleet.*, no file, no quit or json.
        let refused: [(id: String, line: String, names: String)] = [
            ("t", "remote token", "remote token"),
            ("l", "set remote.listen off", "remote.listen"),
            ("s", "set remote.tls off", "remote.tls"),
            ("b", "set fleet.broker mqtt://127.0.0.9:1883", "fleet.broker"),
            ("c", "set fleet.credentials /etc/hostname", "fleet.credentials"),
            ("q", "quit", "quit"),
        ]
        for item in refused {
            let reply = try observer.ask(rig.topics, id: item.id, line: item.line)
            #expect(reply["ok"] as? Bool == false && reply["code"] as? String == "denied", "\(item.line): \(reply)")
            #expect((reply["message"] as? String ?? "").contains(item.names), "\(reply)")
        }
        #expect(!observer.messages.contains { $0.payload.contains(token) }, "the token went out on the broker")
        #expect(rig.ctl("get remote.listen") == listen)
        // Each reply carries its own command's id, once.
        for item in refused { #expect(observer.replies(rig.topics, id: item.id).count == 1) }

        // A holder of the token: no fleet.* (the broker, the rig's name, its credentials), no remote.*.
        for (line, key) in [("set fleet.broker mqtt://127.0.0.9:1883", "fleet.broker"), ("set fleet.rig r2", "fleet.rig"),
                            ("set fleet.credentials /etc/hostname", "fleet.credentials"), ("set remote.listen off", "remote.listen"),
                            ("remote token", "remote token")] {
            let reply = Self.post(line, port: port, token: token)
            let answer = reply ?? [:]
            let message = answer["message"] as? String ?? ""
            #expect(answer["ok"] as? Bool == false && answer["code"] as? String == "denied", "\(line): \(answer)")
            #expect(message.contains(key), "\(answer)")
        }
        #expect(rig.ctl("get fleet.broker") == "ok fleet.broker=mqtt://127.0.0.1:\(broker.port)")
        #expect(rig.ctl("get fleet.rig") == "ok fleet.rig=r1")
        // Both ways in still work for what they may do.
        #expect((try observer.ask(rig.topics, id: "z", line: "set zoom 1.5"))["ok"] as? Bool == true)
        #expect(Self.post("get zoom", port: port, token: token)?["ok"] as? Bool == true)
        #expect(rig.process.isRunning)
        // The owner reads every refusal in the log, by origin; never the token or a line's values.
        #expect(waitUntil { rig.log.contains("denied mqtt") && rig.log.contains("denied remote") }, "\(rig.log)")
        #expect(!rig.log.contains(token))
        #expect(!rig.log.contains("127.0.0.9"), "a refused line's values are not logged")
    }

    /// Lines over MQTT each run in a session of their own: one that answers later (`save`) never
    /// lets the next run as someone else, and each reply answers its own id.
    @Test func aLineAfterADeferredOneIsStillJudgedAsMQTTAndAnswersItsOwnID() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let rig = try FleetRig(broker: broker.port)
        defer { rig.stop(); rig.removeWork() }
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)")
        let reconnects = observer.messages.count
        #expect(rig.ctl("set fleet.ca /etc/hostname") == "ok fleet.ca=/etc/hostname")
        #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics, after: reconnects) }, "\(rig.log)")
        for (id, line) in [("s1", "save"), ("r1", "reset"), ("s2", "save"), ("r2", "reset"), ("g1", "get fleet.ca")] {
            try observer.publish(rig.topics.rigCommands, "{\"id\":\"\(id)\",\"line\":\"\(line)\"}")
        }
        #expect(waitUntil { ["s1", "r1", "s2", "r2", "g1"].allSatisfy { !observer.replies(rig.topics, id: $0).isEmpty } })
        for id in ["s1", "s2"] { #expect(observer.replies(rig.topics, id: id).first?["ok"] as? Bool == true, "\(id)") }
        for id in ["r1", "r2"] {
            let reply = observer.replies(rig.topics, id: id).first ?? [:]
            #expect(reply["code"] as? String == "denied" && (reply["message"] as? String ?? "").contains("fleet.ca"), "\(reply)")
        }
        #expect((observer.replies(rig.topics, id: "g1").first?["values"] as? [String: String])?["fleet.ca"] == "/etc/hostname")
        #expect(rig.ctl("get fleet.ca") == "ok fleet.ca=/etc/hostname")
    }
}
