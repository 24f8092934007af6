import Console
import Foundation
import Hardware
import LinuxHardware
import Settings
import TestSupport
import Testing
@testable import Supervisor
@testable import Transports

/// Every line carries its session's origin into the command table and the settings commit, held
/// lines included (docs/security.md): the network's sessions never read the remote's token, never
/// change remote.* or fleet.* or a file setting, and a reset that would is refused whole.
@Suite struct OriginPolicySupervisorTests {
    /// A supervisor with a state directory (so `save` answers later, off the loop) and a second
    /// session of `kind` in JSON mode beside the owner's console.
    final class TwoConsoles {
        let directory: String
        let rig: CaptureRig
        let output = RecordingConsoleOutput()
        let session: ConsoleSession

        init(_ kind: ConsoleSession.Kind) throws {
            directory = NSTemporaryDirectory() + "tripod-origin-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            rig = try CaptureRig(state: StateStore(storage: try PosixStorage(root: directory)))
            let output = self.output
            let supervisor = rig.supervisor
            session = rig.loop.perform {
                let session = supervisor.attach(name: "peer", kind: kind, output: output)
                session.mode = .json
                return session
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// Sends `lines` as one read from the peer and runs until every deferred reply came.
        func peer(_ lines: [String]) -> [[String: Any]] {
            let bound = LoopBound((rig.supervisor, session), loop: rig.loop)
            let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
            rig.loop.execute { bound.value.0.receive(bytes: bytes, from: bound.value.1) }
            for _ in 0..<4 {
                rig.loop.run()
                rig.supervisor.waitForStateWrites()
            }
            rig.loop.run()
            return output.take().compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["type"] as? String != "event" else { return nil }
                return object
            }
        }
    }

    /// The held lines run after `save`'s reply, from the deferred answer: they are judged as the
    /// network's all the same, and each reply is the one of its own line, in order.
    @Test(arguments: [ConsoleSession.Kind.mqtt, .remote])
    func linesHeldBehindADeferredReplyKeepTheirOrigin(kind: ConsoleSession.Kind) throws {
        let consoles = try TwoConsoles(kind)
        let rig = consoles.rig
        #expect(rig.send("set fleet.rig owner-set").last == "ok fleet.rig=owner-set")
        #expect(rig.send("set zoom 2").last?.hasPrefix("ok zoom=2") == true)
        let replies = consoles.peer(["save", "reset", "set fleet.group elsewhere", "remote token", "set fleet.credentials /etc/hostname", "get zoom"])
        #expect(replies.count == 6, "\(replies)")
        guard replies.count == 6 else { return }
        #expect(replies[0]["ok"] as? Bool == true, "save: \(replies[0])")
        for (index, key) in [(1, "fleet.rig"), (2, "fleet.group"), (3, "token"), (4, "fleet.credentials")] {
            #expect(replies[index]["ok"] as? Bool == false, "\(replies[index])")
            #expect(replies[index]["code"] as? String == "denied", "\(replies[index])")
            #expect((replies[index]["message"] as? String ?? "").contains(key), "\(replies[index])")
        }
        #expect(!String(describing: replies).contains(rig.supervisor.remoteEdge.token ?? "no token"), "the token never goes out")
        // The reset was refused whole: zoom, which the peer may change, did not move either.
        #expect((replies[5]["values"] as? [String: String])?["zoom"] == "2", "\(replies[5])")
        #expect(rig.send("get fleet.rig").last == "ok fleet.rig=owner-set")
        #expect(rig.send("get fleet.group").last == "ok fleet.group=tripod")
    }

    /// The owner's ways in do everything the network's may not.
    @Test(arguments: [ConsoleSession.Kind.control, .serial, .local])
    func theOwnersConsolesMayDoEverything(kind: ConsoleSession.Kind) throws {
        let consoles = try TwoConsoles(kind)
        #expect(consoles.rig.send("set fleet.rig owner-set").last == "ok fleet.rig=owner-set")
        let replies = consoles.peer(["save", "remote token", "set fleet.group studio", "reset"])
        #expect(replies.count == 4, "\(replies)")
        #expect(replies.allSatisfy { $0["ok"] as? Bool == true }, "\(replies)")
        #expect(consoles.rig.send("get fleet.rig").last?.hasPrefix("ok fleet.rig=") == true)
        #expect(consoles.rig.send("get fleet.rig").last != "ok fleet.rig=owner-set", "reset put the default back")
    }

    /// What the network may still do: operate the camera and read settings.
    @Test(arguments: [ConsoleSession.Kind.mqtt, .remote])
    func theNetworkStillOperatesTheCamera(kind: ConsoleSession.Kind) throws {
        let consoles = try TwoConsoles(kind)
        let replies = consoles.peer(["set zoom 1.5", "get fleet.broker", "remote preview", "status", "reset"])
        #expect(replies.count == 5, "\(replies)")
        guard replies.count == 5 else { return }
        #expect(replies[0]["ok"] as? Bool == true, "\(replies[0])")
        #expect(replies[1]["ok"] as? Bool == true, "\(replies[1])")
        #expect(replies[2]["code"] as? String == "unsupported", "the remote is off here: \(replies[2])")
        #expect(replies[3]["ok"] as? Bool == true)
        #expect(replies[4]["ok"] as? Bool == true, "a reset that moves only what the peer may change goes through: \(replies[4])")
    }

    /// `help` says which origins may run each command.
    @Test func helpNamesTheOrigins() throws {
        let consoles = try TwoConsoles(.local)
        let list = consoles.rig.send("help")
        let text = list.joined(separator: "\n")
        #expect(text.contains("[serial/socket]") && text.contains("[token: serial/socket]"), "\(list)")
        #expect(text.contains("origins: every command runs from serial/socket/remote/mqtt"), "\(list)")
        let remote = consoles.rig.send("help remote")
        #expect(remote.contains { $0.contains("origins: token: serial/socket") }, "\(remote)")
        let status = consoles.rig.send("help status")
        #expect(status.contains { $0.contains("origins: serial/socket/remote/mqtt") }, "\(status)")
    }
}
