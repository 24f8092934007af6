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
        }
        let state = Mutex(State())
        let topics: FleetTopics

        init(group: String) { topics = FleetTopics(group: group, rig: "+") }

        /// Most rigs and reports kept (a group's broker cannot grow the collector without bound).
        static let maximumRigs = 1024
        static let maximumReports = 256

        func take(_ event: MosquittoEvent) {
            switch event {
            case .connected(let code):
                state.withLock { $0.connected = code == 0; $0.refusal = code == 0 ? nil : MosquittoClient.describeRefusal(code) }
            case .disconnected:
                state.withLock { $0.connected = false }
            case .subscribed:
                break  // the retained state, status and reports follow the SUBACK as messages
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

    /// Waits until the broker accepted the connection, then subscribes; false at the deadline or
    /// when it refused (see `refusal`).
    public func subscribe(within seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !view.state.withLock({ $0.connected }) {
            if Date() > end || view.state.withLock({ $0.refusal }) != nil { return false }
            usleep(20_000)
        }
        let topics = view.topics
        for topic in [topics.everyRigState, topics.everyRigStatus, topics.everyRigReport] {
            do throws(MosquittoError) { try client.subscribe(topic: topic, qos: 1) } catch { return false }
        }
        return true
    }

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

    /// Disconnects (mosquitto_disconnect, then waits for libmosquitto's thread).
    public func stop() { client.disconnect() }
}
