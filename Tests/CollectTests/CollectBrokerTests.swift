import Foundation
import Testing
import TestSupport
@testable import Collect
@testable import Fleet
@testable import FleetConsole
import Settings

/// What the collector learns from the broker: every retained message of the group is in once
/// `FleetDirectory.subscribe` returns (its confirmation SUBACK), and the broker's own access:
/// `--credentials` with a password file and an ACL, `--ca` with a TLS listener (docs/collect.md).
@Suite(.serialized) struct CollectBrokerTests {
    /// 300 rigs' retained statuses and a retained report: all of them are in the directory the
    /// moment `subscribe` returns, with no wait of any length. (At QoS 1, or as separate
    /// SUBSCRIBEs, mosquitto sends 20 at once and the rest after the confirmation.)
    @Test func everyRetainedMessageIsInOnceSubscribeReturns() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let count = 300
        for n in 1...count {
            try observer.publish("tripod/rt/r\(n)/state", "online", retain: true)
            try observer.publish("tripod/rt/r\(n)/status", #"{"type":"reply","ok":true,"values":{"remote":"http://127.0.0.1:\#(20000 + n)"}}"#,
                                 retain: true)
        }
        let shot = "r7-1777636805250"
        try observer.publish("tripod/rt/r7/report", #"{"shot":"\#(shot)","sender":"r7","asked":["r1","r7"],"answered":["r1","r7"],"rigs":{}}"#,
                             retain: true)
        // The broker holds them once the observer (subscribed to them) has them back.
        #expect(waitUntil { observer.messages(on: "tripod/rt/r7/report").count == 1 && observer.messages.count == 2 * count + 1 })

        for _ in 0..<3 {
            let directory = try FleetDirectory(broker: BrokerAddress(scheme: .mqtt, host: "127.0.0.1", port: broker.port), group: "rt",
                                               credentials: nil, caFile: nil)
            defer { directory.stop() }
            #expect(directory.subscribe(within: 60))
            let rigs = directory.rigs
            #expect(rigs.count == count && rigs.values.allSatisfy { $0.online && $0.remote != nil }, "\(rigs.count) rigs")
            #expect(directory.report(shot)?.asked == ["r1", "r7"])
            #expect(directory.reports.last?.shot == shot)
        }
    }

    /// `--last` on a group whose broker holds no report: a clear error (status 1) as soon as the
    /// broker's retained messages are in, not after a wait.
    @Test func lastWithNoReportOnTheBrokerSaysSo() throws {
        let fleet = try CollectFleet(names: [])
        defer { fleet.stop() }
        let run = try CollectRun(CollectRun.arguments(fleet, into: fleet.work + "/out", ["--last"]))
        #expect(run.finish() == 1)
        #expect(run.stderr.contains("the broker holds no shot report of group g"), "\(run.stderr)")
        #expect(run.objects.contains { $0["type"] as? String == "ready" && $0["reports"] as? Int == 0 }, "\(run.objects)")
    }

    /// A broker with a password file and the documented ACL (each user writes only its own
    /// topics, everyone reads the group): the collector is refused without `--credentials`, and
    /// collects the rig's shot with a read-only user's.
    @Test func credentialsForABrokerWithAPasswordFile() throws {
        let directory = NSTemporaryDirectory() + "tripod-collect-acl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "pattern read tripod/g/#\npattern write tripod/g/%u/#\npattern write tripod/g/cmd\n"
            .write(toFile: directory + "/acl", atomically: true, encoding: .utf8)
        for (user, password) in [("r1", "pw-r1"), ("collector", "pw-collector")] {
            _ = try runTool("/usr/bin/mosquitto_passwd", (FileManager.default.fileExists(atPath: directory + "/passwd") ? [] : ["-c"])
                        + ["-b", directory + "/passwd", user, password])
        }
        for (user, password) in [("r1", "pw-r1"), ("collector", "pw-collector")] {
            try "\(user)\n\(password)\n".write(toFile: "\(directory)/\(user).credentials", atomically: true, encoding: .utf8)
            chmod("\(directory)/\(user).credentials", 0o600)
        }
        let broker = try Broker(extraConfig: ["allow_anonymous false", "password_file \(directory)/passwd", "acl_file \(directory)/acl"])
        // The test reads the group as the collector's user does.
        let fleet = try CollectFleet(names: ["r1"], broker: broker, observer: ("collector", "pw-collector"),
                                     extraConfig: ["fleet.credentials = \(directory)/r1.credentials"])
        defer { fleet.stop() }
        let shot = try fleet.shoot()

        let anonymous = try CollectRun(CollectRun.arguments(fleet, into: fleet.work + "/anonymous", ["--last"]))
        #expect(anonymous.finish() == 1)
        #expect(anonymous.stderr.contains("refused the connection"), "\(anonymous.stderr)")

        let into = fleet.work + "/out"
        let run = try CollectRun(CollectRun.arguments(fleet, into: into, ["--last", "--credentials", "\(directory)/collector.credentials"]))
        #expect(run.finish() == 0, "\(run.stderr)")
        #expect(run.summary?["shot"] as? String == shot)
        for (name, data) in try fleet.rigFiles("r1", shot: shot) {
            #expect(FileManager.default.contents(atPath: "\(into)/\(shot)/r1/\(name)") == data, "\(name)")
        }
    }

    /// `mqtts://` with `--ca`: a mosquitto TLS listener whose certificate only the given CA file
    /// vouches for. With it the shot is collected; without it (the system's CAs) the collector
    /// cannot connect (a TLS error, or no CONNACK within 10 s, whichever libmosquitto meets first)
    /// and says so, naming the broker.
    @Test func caForABrokerOverTLS() throws {
        let directory = NSTemporaryDirectory() + "tripod-collect-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try runTool("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                         "-keyout", directory + "/broker.key", "-out", directory + "/broker.crt", "-days", "2",
                                         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        chmod(directory + "/broker.key", 0o644)  // mosquitto may drop to another user
        let tlsPort = try freeLoopbackPort()
        // The rigs use the plain listener; the collector the TLS one.
        let broker = try Broker(extraConfig: ["allow_anonymous true", "listener \(tlsPort) 127.0.0.1", "certfile \(directory)/broker.crt",
                                              "keyfile \(directory)/broker.key"])
        let fleet = try CollectFleet(names: ["r1"], broker: broker)
        defer { fleet.stop() }
        #expect(waitUntil { isListening(tlsPort) })
        let shot = try fleet.shoot()
        func arguments(_ into: String, _ extra: [String]) -> [String] {
            ["--broker", "mqtts://127.0.0.1:\(tlsPort)", "--group", "g", "--into", fleet.work + "/" + into, "--key", fleet.key, "--last"] + extra
        }

        let untrusted = try CollectRun(arguments("untrusted", []))
        #expect(untrusted.finish() == 1)
        #expect(untrusted.stderr.contains("mqtts://127.0.0.1:\(tlsPort)") && (untrusted.stderr.contains("TLS error") || untrusted.stderr.contains("--ca")),
                "\(untrusted.stderr)")

        let run = try CollectRun(arguments("out", ["--ca", directory + "/broker.crt"]))
        #expect(run.finish() == 0, "\(run.stderr)")
        for (name, data) in try fleet.rigFiles("r1", shot: shot) {
            #expect(FileManager.default.contents(atPath: "\(fleet.work)/out/\(shot)/r1/\(name)") == data, "\(name)")
        }
    }
}
