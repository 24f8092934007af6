import Fleet
import Foundation
import Remote
import Settings
import Synchronization

/// What the broker says about a group, as libmosquitto's thread hears it: each rig's remote (the
/// `remote` field of its retained status) and state, and the shot reports (retained `report`, and
/// new ones while it runs). Addresses once heard are kept when the broker goes away, so a
/// collection finishes from them.
public final class FleetDirectory: Sendable {
    /// What is known of one rig.
    public struct Rig: Sendable, Equatable {
        /// `http[s]://HOST:PORT`, checked; nil until a status names a reachable one.
        public var remote: String?
        public var online = false
    }

    /// The view, written on libmosquitto's thread, read by the collector.
    final class View: Sendable {
        struct State {
            var connected = false
            var refusal: String?
            var rigs: [String: Rig] = [:]
            var reports: [String: ShotReport] = [:]
            /// Shot ids in the order their reports arrived.
            var arrival: [String] = []
            /// Message ids of the SUBSCRIBE packets the broker acknowledged (SUBACK).
            var acknowledged: Set<Int32> = []
            /// What happened to the broker connection since the collector last asked, in words
            /// (lost, back): a long `--follow` says so rather than going quiet.
            var linkNotes: [String] = []
        }
        let state = Mutex(State())
        let topics: FleetTopics
        /// The client to subscribe again with on every new connection, once the first
        /// subscription was asked (a clean session: a broker that restarted, or a connection
        /// that dropped, forgets it). Cleared by `stop`.
        let resubscriber = Mutex<MosquittoClient?>(nil)

        /// The group's topics, in ONE subscription (see `FleetDirectory.subscribe`).
        var groupTopics: [String] { [topics.everyRigState, topics.everyRigStatus, topics.everyRigReport] }

        init(group: String) { topics = FleetTopics(group: group, rig: "+") }

        /// Most rigs and reports kept (a group's broker cannot grow the collector without bound).
        static let maximumRigs = 1024
        static let maximumReports = 256

        func take(_ event: MosquittoEvent) {
            switch event {
            case .connected(let code):
                state.withLock { $0.connected = code == 0; $0.refusal = code == 0 ? nil : MosquittoClient.describeRefusal(code) }
                // On libmosquitto's thread, in its on_connect: the reconnected session has no
                // subscription until this one (mosquitto_subscribe may be called from the callback).
                guard code == 0, let client = resubscriber.withLock({ $0 }) else { return }
                do throws(MosquittoError) {
                    _ = try client.subscribe(topics: groupTopics, qos: 0)
                    state.withLock { $0.linkNotes.append("the broker is back: following the group again (reports retained meanwhile come now)") }
                } catch {
                    state.withLock { $0.linkNotes.append("the broker is back but subscribing again failed: \(error); no new shot will be seen") }
                }
            case .disconnected(let code):
                state.withLock { s in
                    let wasConnected = s.connected
                    s.connected = false
                    if code != 0 && wasConnected { s.linkNotes.append("lost the broker; reconnecting (every 1 to 10 s)") }
                }
            case .subscribed(let messageID):
                state.withLock { _ = $0.acknowledged.insert(messageID) }
            case .message(let topic, let payload, _):
                guard let (rig, kind) = topics.rigAndKind(of: topic), SafeName.isValid(rig, maximumLength: 64),
                      payload.count <= ShotReport.maximumBytes else { return }
                switch kind {
                case "state":
                    let online = payload == Array("online".utf8)
                    state.withLock { s in
                        guard s.rigs[rig] != nil || s.rigs.count < Self.maximumRigs else { return }
                        s.rigs[rig, default: Rig()].online = online
                    }
                case "status":
                    guard let remote = Self.remote(inStatus: payload) else { return }
                    state.withLock { s in
                        guard s.rigs[rig] != nil || s.rigs.count < Self.maximumRigs else { return }
                        s.rigs[rig, default: Rig()].remote = remote
                    }
                case "report":
                    guard let report = ShotReport.parse(payload), report.sender == rig else { return }
                    state.withLock { s in
                        if s.reports[report.shot] == nil { s.arrival.append(report.shot) }
                        s.reports[report.shot] = report
                        while s.arrival.count > Self.maximumReports { s.reports[s.arrival.removeFirst()] = nil }
                    }
                default:
                    return
                }
            }
        }

        /// The status reply's `remote` value, when it is `http[s]://HOST:PORT` with a host that
        /// can be reached (a wildcard listen address cannot: the rig then needs `remote.advertise`).
        static func remote(inStatus payload: [UInt8]) -> String? {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any],
                  let values = object["values"] as? [String: Any], let url = values["remote"] as? String else { return nil }
            return checkedRemote(url)
        }

        static func checkedRemote(_ url: String) -> String? {
            let parts = url.components(separatedBy: "://")
            guard parts.count == 2, ["http", "https"].contains(parts[0]), let colon = parts[1].lastIndex(of: ":") else { return nil }
            let host = String(parts[1][..<colon]), port = parts[1][parts[1].index(after: colon)...]
            guard let number = Int(port), (1...65535).contains(number), !host.isEmpty, host.utf8.count <= 255,
                  host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }),
                  !["0.0.0.0", "[::]"].contains(host) else { return nil }
            return url
        }
    }

    private let view: View
    private let client: MosquittoClient

    /// Connects to `broker` as a clean session of its own and subscribes to the group's state,
    /// status and report topics (their retained messages come at once).
    public init(broker: BrokerAddress, group: String, credentials: FleetCredentials?, caFile: String?) throws(CollectError) {
        let view = View(group: group)
        self.view = view
        do throws(MosquittoError) {
            client = try MosquittoClient(clientID: "tripod-collect-\(group)-\(getpid())", cleanSession: true) { event in
                view.take(event)
            }
            if let credentials { try client.setCredentials(user: credentials.user, password: credentials.password) }
            if broker.scheme == .mqtts { try client.setTLS(caFile: caFile, caPath: caFile == nil ? "/etc/ssl/certs" : nil) }
            try client.setReconnectDelay(initialSeconds: 1, maximumSeconds: 10)
            try client.connect(host: broker.host, port: broker.port, keepaliveSeconds: 10)
            try client.startLoop()
        } catch {
            throw CollectError.broker("\(broker): \(error)")
        }
    }

    /// Waits until the broker accepted the connection, subscribes to the group's state, status and
    /// reports, and waits until every retained message of those topics has arrived; false at the
    /// deadline or when the broker refused the connection (see `refusal`).
    ///
    /// The confirmation: a second SUBSCRIBE, to a topic nobody publishes, and its SUBACK. mosquitto
    /// (2.0.11, Debian bookworm's; src/handle_subscribe.c and src/database.c) handles one client's
    /// packets in order, and while it handles a SUBSCRIBE it puts every retained message of its
    /// topics on the client's outgoing queue (retain__queue, then the SUBACK, then
    /// db__message_write_inflight_out_latest) before it reads the next packet; libmosquitto's
    /// thread hands them to us in the order they arrive. Two conditions keep that order, and are
    /// met here: the group's topics go in ONE SUBSCRIBE (with separate ones, a socket that blocks
    /// while the first one's messages are written leaves the next one's unwritten until a later
    /// packet, which may be the confirmation), and at QoS 0 (at QoS 1 only
    /// `max_inflight_messages`, 20 by default, go out at once; the rest wait for our PUBACKs and
    /// would come after the confirmation's SUBACK).
    public func subscribe(within seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !view.state.withLock({ $0.connected }) {
            if Date() > end || view.state.withLock({ $0.refusal }) != nil { return false }
            usleep(5_000)
        }
        // From now on every new connection subscribes again (set first: a connection lost while
        // this one subscribes is subscribed again, at worst twice).
        view.resubscriber.withLock { $0 = client }
        let confirmation: Int32
        do throws(MosquittoError) {
            _ = try client.subscribe(topics: view.groupTopics, qos: 0)
            confirmation = try client.subscribe(topic: Self.confirmationTopic(group: view.topics.group), qos: 0)
        } catch {
            return false
        }
        while !view.state.withLock({ $0.acknowledged.contains(confirmation) }) {
            if Date() > end { return false }
            usleep(2_000)
        }
        return true
    }

    /// The topic subscribed to only for its SUBACK: below the group, under a name no rig can have
    /// (rig names never start with a dot), so nothing is published there and nothing there is read.
    static func confirmationTopic(group: String) -> String { "tripod/\(group)/.collect/retained-done" }

    /// Why the broker refused the connection (its CONNACK), if it did.
    public var refusal: String? { view.state.withLock { $0.refusal } }

    /// The rigs heard of, by name.
    public var rigs: [String: Rig] { view.state.withLock { $0.rigs } }

    /// The remote of `rig`, when one was heard.
    public func remote(of rig: String) -> String? { view.state.withLock { $0.rigs[rig]?.remote } }

    /// The report of shot `id`, if the broker gave it.
    public func report(_ id: String) -> ShotReport? { view.state.withLock { $0.reports[id] } }

    /// Every report heard, the latest shot last (by the instant in its id).
    public var reports: [ShotReport] {
        view.state.withLock { Array($0.reports.values) }.sorted { ($0.instantMilliseconds, $0.shot) < ($1.instantMilliseconds, $1.shot) }
    }

    /// What happened to the broker connection since the last call (lost, back), in words.
    public func takeLinkNotes() -> [String] {
        view.state.withLock { s in defer { s.linkNotes = [] }; return s.linkNotes }
    }

    /// Disconnects (mosquitto_disconnect, then waits for libmosquitto's thread).
    public func stop() {
        view.resubscriber.withLock { $0 = nil }
        client.disconnect()
    }
}
