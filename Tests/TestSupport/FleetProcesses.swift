// The fleet's processes for the FleetConsole and Collect tests (and what they read back): an MQTT
// observer, a `tripod run` with the fleet's settings, the capture files, a reply's fields. The
// observer writes commands as the fleet client does (`@testable`), which only a debug build allows;
// release builds (the benchmarks link TestSupport) leave it out.
#if DEBUG
import Console
import Fleet
@testable import FleetConsole
import Foundation
import Hardware

/// An MQTT client of the test (through the same libmosquitto wrapper): subscribes to everything
/// under `tripod/#` and keeps what arrives, in order.
public final class MQTTObserver: @unchecked Sendable {
    public struct Received: Sendable, Equatable {
        public var topic: String
        public var payload: String
        public var retained: Bool
        public var receivedAt = Date()
    }
    private let received = LockedValue<[Received]>([])
    private let connectedCount = LockedValue(0)
    /// The message ids of the SUBACKs heard.
    private let subscribed = LockedValue<Set<Int32>>([])
    private let client: MosquittoClient

    /// Returns once the broker acknowledged the subscription (SUBACK), so nothing published after
    /// this returns can be missed, however busy the broker is.
    public init(broker: Broker, user: String? = nil, password: String? = nil) throws {
        let received = self.received
        let connectedCount = self.connectedCount
        let subscribed = self.subscribed
        client = try MosquittoClient(clientID: "observer-\(UUID().uuidString.prefix(8))", cleanSession: true) { event in
            switch event {
            case .connected(code: 0): connectedCount.withLock { $0 += 1 }
            case .subscribed(let messageID): subscribed.withLock { _ = $0.insert(messageID) }
            case .message(let topic, let payload, let retained):
                received.withLock { $0.append(Received(topic: topic, payload: String(decoding: payload, as: UTF8.self), retained: retained)) }
            default: break
            }
        }
        try client.sendImmediately()
        if let user { try client.setCredentials(user: user, password: password ?? "") }
        try client.connect(host: "127.0.0.1", port: broker.port, keepaliveSeconds: 10)
        try client.startLoop()
        guard waitUntil(seconds: 30, { connectedCount.current > 0 }) else { throw FleetTestFailure("the observer did not connect") }
        let messageID = try client.subscribe(topic: "tripod/#", qos: 1)
        guard waitUntil(seconds: 30, { subscribed.current.contains(messageID) }) else { throw FleetTestFailure("the broker never acknowledged the observer's subscription") }
    }

    deinit { client.disconnect() }

    public var messages: [Received] { received.current }

    public func messages(on topic: String) -> [Received] { messages.filter { $0.topic == topic } }

    public func publish(_ topic: String, _ payload: String, retain: Bool = false) throws {
        try client.publish(topic: topic, payload: payload, qos: 1, retain: retain)
    }

    /// The replies carrying `id`, decoded.
    public func replies(_ topics: FleetTopics, id: String) -> [[String: Any]] {
        messages(on: topics.reply).compactMap { message in
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any],
                  object["id"] as? String == id else { return nil }
            return object
        }
    }

    /// Sends a command and waits for its one reply.
    public func ask(_ topics: FleetTopics, id: String, line: String, toGroup: Bool = false, extra: String = "") throws -> [String: Any] {
        try publish(toGroup ? topics.groupCommands : topics.rigCommands,
                    "{\"id\":\(FleetClient.jsonString(id)),\"line\":\(FleetClient.jsonString(line))\(extra)}")
        guard waitUntil({ !replies(topics, id: id).isEmpty }) else { throw FleetTestFailure("no reply to \(id) (\(line))") }
        return replies(topics, id: id)[0]
    }

    /// True once the rig published `online` and, after it, its status: it has subscribed by then
    /// (one connection's packets are handled in order).
    public func sawOnlineThenStatus(_ topics: FleetTopics, after index: Int = 0) -> Bool {
        let all = messages
        guard let online = all.indices.last(where: { $0 >= index && all[$0].topic == topics.state && all[$0].payload == "online" }) else { return false }
        return all[online...].contains { $0.topic == topics.status }
    }
}

/// `tripod run --board sim-small` as its own process, with the fleet's settings in its config file.
public final class FleetRig {
    public let process = Process()
    public let stdin = Pipe()
    public let work: String
    public let topics: FleetTopics
    public var socket: String { work + "/ctl.sock" }
    public var state: String { work + "/state" }
    public var captures: String { work + "/captures" }
    public var logFile: String { work + "/tripod.log" }

    /// `work`: an existing directory (state kept from a previous run).
    /// `board`: a board name or a board file (`tripod run --board`).
    public init(broker port: Int, group: String = "g", rig: String = "r1", work existing: String? = nil, extraConfig: [String] = [],
         board: String = "sim-small") throws {
        work = existing ?? NSTemporaryDirectory() + "tripod-fleet-\(UUID().uuidString)"
        topics = FleetTopics(group: group, rig: rig)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let config = ["fleet.broker = mqtt://127.0.0.1:\(port)", "fleet.group = \(group)", "fleet.rig = \(rig)"] + extraConfig
        try (config.joined(separator: "\n") + "\n").write(toFile: work + "/tripod.conf", atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: try Self.executable())
        process.arguments = ["run", "--board", board, "--captures", captures, "--state", state, "--socket", socket,
                             "--config", work + "/tripod.conf"]
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: logFile)
        try process.run()
    }

    public static func executable() throws -> String {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("tripod").path,
                          here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/tripod").path]
        guard let tripod = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw FleetTestFailure("no tripod executable at \(candidates); swift build --build-tests builds it")
        }
        return tripod
    }

    /// `tripod ctl LINE` on this rig's control socket: its reply line, or nil.
    public func ctl(_ line: String) -> String? {
        let ctl = Process()
        let output = Pipe()
        guard let tripod = try? Self.executable() else { return nil }
        ctl.executableURL = URL(fileURLWithPath: tripod)
        ctl.arguments = ["ctl", "--socket", socket, line]
        ctl.standardOutput = output
        ctl.standardError = FileHandle.nullDevice
        guard (try? ctl.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        ctl.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init)
    }

    public func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM: a clean stop (publishes `offline`, then disconnects).
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    public func removeWork() { try? FileManager.default.removeItem(atPath: work) }

    deinit { stop() }
}

/// The files of captures under `directory`, relative paths, sorted.
public func captureFiles(_ directory: String) -> [String] {
    ((FileManager.default.enumerator(atPath: directory)?.allObjects as? [String]) ?? [])
        .filter { !$0.hasSuffix(".tmp") && ($0.hasSuffix(".dng") || $0.hasSuffix(".jpg") || $0.hasSuffix(".json")) }
        .sorted()
}

/// The fields of a human-mode reply or event line (`ok a=1 b=2`), values without spaces or quoted.
public func fields(_ line: String) -> [String: String] {
    guard let words = try? tokenize(line) else { return [:] }
    var result: [String: String] = [:]
    for word in words.dropFirst() {
        guard let equals = word.firstIndex(of: "=") else { continue }
        result[String(word[..<equals])] = String(word[word.index(after: equals)...])
    }
    return result
}
#endif
