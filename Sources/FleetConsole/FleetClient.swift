import Foundation  // Date, JSONSerialization
import Fleet
import Console
import Hardware
import Logging
import Settings
import Transports

/// The rig's MQTT front end (docs/fleet.md): publishes its state, status and events, and runs the
/// group's commands through the same console operations as every other console.
///
/// It is a console client of the host (the supervisor, as `ConsoleHost`): each command goes in as
/// the line of a session of its own (`.mqtt`, JSON mode), whose one reply is published on
/// `.../reply` with the command's id; the origin policy judges it as `mqtt` however long it waits
/// (OriginPolicy: no `remote token`, no `remote.*`/`fleet.*`/file setting, no `quit` or `json`).
/// A session that runs nothing carries the events to `.../events`, and another asks `status`
/// every second and publishes it when it changes, and at least every 10 s.
///
/// libmosquitto's thread never calls in: its events go through `FleetInbox` to the loop, commands
/// in a lane of their own ahead of the group's traffic. The broker's host is looked up and connected
/// to off the loop (`BrokerConnector`).
/// The `fleet.*` settings are the store's: a participant refuses a credentials file that is not
/// mode 0600, and an observer connects again after a committed change. Loop-confined.
public final class FleetClient {
    public let host: any ConsoleHost
    let settings: SettingsStore
    let log: Logger
    let inbox = FleetInbox(commandCapacity: 256, groupCapacity: 4096, maximumGroupPayloadBytes: FleetClient.maximumGroupPayloadBytes)
    /// The ids of commands run, on disk (in batches) before each command runs.
    let journal: CommandIDJournal
    /// Looks the broker's host up, off the loop.
    private let resolver: any HostResolving
    let wallClock: @Sendable () -> Date
    /// The clock's sync state, published in the status (`clock`, `clock.error.us`).
    let clockSync: any ClockSyncReading
    /// This end's address on the current broker connection (at its CONNACK); nil: not known.
    private var localAddress: String?
    private var link: Link?
    /// Counts connections made; events of an older one are ignored.
    private(set) var generation = 0
    private var connected = false
    private var started = false
    /// Hears the events (it runs no line); each command has a session of its own.
    private var eventSession: ConsoleSession?
    private var statusSession: ConsoleSession?
    private var lastStatus: [String: String]?
    private var lastStatusPublished: MonotonicTime?
    private var statusTimer: ScheduledWork?
    /// The backoff's timer while a failed first connection waits for its retry; nil otherwise.
    private var retryTimer: ScheduledWork?
    /// True while a failed first connection waits for its retry.
    var retryPending: Bool { retryTimer != nil }

    // Shots at a shared instant (FleetClient+Shots.swift).
    /// Where a shot's part is armed, cancelled and its report written (Startup: the supervisor's).
    let shotRig: any ShotRig
    /// What this rig knows of each rig of its group, by name (retained state and status).
    var rigsSeen: [String: RigSeen] = [:]
    /// Shots this rig sent, collecting replies, by id.
    var collecting: [String: (collection: ShotCollection, timeout: ScheduledWork?, session: WeakSession)] = [:]
    /// The one shot part armed on this rig (sent from here or received), until it ends.
    var armedPart: ArmedPart?
    /// Shot ids this rig armed: a shot is armed once, however its command arrives.
    var armedShots = SeenCommandIDs(capacity: 256)
    /// Shots sent at the same millisecond get a serial.
    var shotSerial = 0

    /// The MQTT keepalive: a rig that vanishes is marked offline within 1.5 times this.
    public static let keepaliveSeconds: Int32 = 10
    /// `status` is published at least this often.
    public static let statusInterval: Duration = .seconds(10)
    /// How often `status` is read to see whether it changed.
    public static let statusPoll: Duration = .seconds(1)
    /// Ids of commands remembered (persisted) so that none runs twice.
    public static let rememberedIDs = 1024
    /// Rigs of the group kept in the view (`rigsSeen`); state and status of further rigs are dropped and counted.
    public static let maximumRigsSeen = 1024
    /// A state, status or reply payload larger than this is dropped and counted, bytes.
    public static let maximumGroupPayloadBytes = 16 * 1024

    /// What the group's view dropped, since the start (shown by `fleet status` once any is not 0).
    struct GroupDrops: Equatable {
        /// State, status and reply payloads over `maximumGroupPayloadBytes`.
        var oversize = 0
        /// State and status of rigs beyond `maximumRigsSeen`.
        var rigs = 0
        /// Group messages beyond the inbox's group lane.
        var queue = 0
        /// Commands beyond the inbox's command lane, or beyond the journal's queue.
        var commands = 0
        /// Replies whose payload names another rig than their topic, and cancels from a rig that did not send the shot.
        var forged = 0
    }
    var drops = GroupDrops()

    /// One connection to a broker: the client and the topics it publishes on.
    private struct Link {
        let client: MosquittoClient
        let topics: FleetTopics
        let broker: BrokerAddress
    }

    /// The current connection's topics, nil while `fleet.broker` is off.
    var topics: FleetTopics? { link?.topics }
    /// True while connected to the broker.
    var isConnected: Bool { connected }
    /// This client as callbacks see it: weak (no retain cycle), read on the loop.
    var bound: WeakLoopBound<FleetClient> { WeakLoopBound(self, loop: host.loop) }

    /// `link`: the handle made before this client (for the supervisor's `fleet` command and the
    /// settings store's followers, `settingsFollowers`); the client attaches itself to it.
    public init(host: any ConsoleHost, shotRig: any ShotRig, settings: SettingsStore, link: LateBound<FleetClient>, state: StateStore?, log: Logger,
                wallClock: @escaping @Sendable () -> Date = { Date() }, clockSync: any ClockSyncReading = KernelClockSync(),
                resolver: any HostResolving = SystemResolver()) {
        self.host = host
        self.shotRig = shotRig
        self.resolver = resolver
        self.clockSync = clockSync
        self.settings = settings
        self.log = log
        self.wallClock = wallClock
        var remembered: [String] = []
        do { remembered = try state?.load([String].self, from: StateStore.File.fleetCommandIDs) ?? [] }
        catch { log.warning("fleet: \(error); the ids of commands already run are forgotten") }
        let late = link
        self.journal = CommandIDJournal(capacity: Self.rememberedIDs, remembered: remembered,
                                        writer: state.map { StateWriter(store: $0, loop: host.loop) }, loop: host.loop, log: log,
                                        roomFreed: { late.value?.drainInbox() })
        if state == nil { log.warning("fleet: no state directory: a command delivered again after a restart would run again") }
        late.attach(self)
    }

    /// The fleet's part in the settings, given to the store when it is made (before this client):
    /// `check` refuses unusable files, and, once the client has started, a new broker or identity
    /// reconnects the client `link` holds. Give the same `link` to `init`, which binds it.
    public static func settingsFollowers(_ link: LateBound<FleetClient>) -> SettingsStore.Followers {
        SettingsStore.Followers(participants: [
            .init(name: "fleet") { change throws(ConsoleError) in try check(change) },
        ], observers: [
            { change in
                if change.touches(any: SettingsTable.fleet), change.old.fleet.connection != change.new.fleet.connection {
                    link.valueWhereConfined?.connect(change.new.fleet)
                }
            },
        ])
    }

    /// Refuses a credentials file that is not mode 0600 or not readable, and a CA file that is missing.
    static func check(_ change: SettingsChange) throws(ConsoleError) {
        let fleet = change.new.fleet
        if change.touches(SettingsTable.fleetCredentials), let path = fleet.credentialsFile {
            _ = try FleetCredentials.load(path: path)
        }
        if change.touches(SettingsTable.fleetCA), let path = fleet.certificateAuthorityFile, !FileManager.default.isReadableFile(atPath: path) {
            throw ConsoleError(.badValue, "\(SettingsTable.fleetCA.key) \(path): no readable file there")
        }
    }

    /// Attaches the fleet's console sessions and connects when `fleet.broker` is set. Call on the
    /// loop once the host has started.
    public func start() {
        host.loop.preconditionInEventLoop()
        guard !started else { return }
        started = true
        let events = host.attach(name: "fleet-events", kind: .mqtt, output: SessionOutput(self, role: .events))
        events.mode = .json
        eventSession = events
        let status = host.attach(name: "fleet-status", kind: .mqtt, output: SessionOutput(self, role: .status))
        status.mode = .json
        statusSession = status
        connect(settings.current.fleet)
        scheduleStatusPoll()
    }

    /// Publishes `offline` and disconnects cleanly. Call once the host has stopped (after its loop ended).
    public func shutdown() {
        statusTimer?.cancel()
        collecting.values.forEach { $0.timeout?.cancel() }
        scheduled.values.forEach { $0.cancel() }
        scheduled = [:]
        retryTimer?.cancel()
        retryTimer = nil
        if let link, connected { try? link.client.publish(topic: link.topics.state, payload: "offline", qos: 1, retain: true) }
        link?.client.disconnect()
        link = nil
        connected = false
    }

    // MARK: The connection

    /// (Re)connects for `wanted`; `off` disconnects. Errors are logged: the rig keeps working locally.
    private func connect(_ wanted: FleetSettings) {
        guard started else { return }
        if let old = link {
            if connected { try? old.client.publish(topic: old.topics.state, payload: "offline", qos: 1, retain: true) }
            old.client.disconnect()
            link = nil
            connected = false
            log.notice("fleet: disconnected from \(old.broker)")
        }
        generation += 1
        retryTimer?.cancel()
        retryTimer = nil
        rigsSeen = [:]
        guard let broker = wanted.broker else { return }
        let topics = FleetTopics(group: wanted.group, rig: wanted.rig)
        let connection = generation
        let inbox = self.inbox
        let loop = host.loop
        let target = bound
        do {
            let client = try MosquittoClient(clientID: topics.clientID, cleanSession: false) { event in
                var lane = FleetInbox.Lane.commands
                if case .message(let topic, _, _) = event { lane = topics.lane(of: topic) }
                if inbox.push(.init(connection: connection, event: event), lane: lane) { loop.execute { target.value?.drainInbox() } }
            }
            try client.sendImmediately()
            try client.setWill(topic: topics.state, payload: "offline", qos: 1, retain: true)
            if let path = wanted.credentialsFile {
                let credentials: FleetCredentials
                do throws(ConsoleError) { credentials = try FleetCredentials.load(path: path) }
                catch { log.warning("fleet: \(error.message); not connecting"); return }
                try client.setCredentials(user: credentials.user, password: credentials.password)
            }
            if broker.scheme == .mqtts {
                try client.setTLS(caFile: wanted.certificateAuthorityFile, caPath: wanted.certificateAuthorityFile == nil ? "/etc/ssl/certs" : nil)
            }
            try client.setReconnectDelay(initialSeconds: UInt32(Self.firstRetry.components.seconds),
                                         maximumSeconds: UInt32(Self.longestRetry.components.seconds))
            let made = Link(client: client, topics: topics, broker: broker)
            link = made
            log.notice("fleet: connecting to \(broker) as rig \(topics.rig) of group \(topics.group)")
            firstConnect(made, connection: connection, retry: Self.firstRetry)
        } catch {
            log.warning("fleet: cannot use broker \(broker): \(error)")
        }
    }

    /// The first wait before connecting again, and the longest (the backoff doubles in between).
    public static let firstRetry: Duration = .seconds(1)
    public static let longestRetry: Duration = .seconds(30)

    /// The first connection: until it is made, this retries with the backoff (libmosquitto's thread
    /// does not retry a `mosquitto_connect_async` that failed before it started); once made,
    /// libmosquitto's thread reconnects by itself after a loss.
    /// The lookup and `mosquitto_connect_async` run on a thread of their own (`BrokerConnector`): a
    /// host that never resolves leaves the loop answering.
    private func firstConnect(_ made: Link, connection: Int, retry: Duration) {
        let target = bound
        BrokerConnector.attempt(made.client, host: made.broker.host, port: made.broker.port, tls: made.broker.scheme == .mqtts,
                                keepaliveSeconds: Self.keepaliveSeconds, resolver: resolver, loop: host.loop) { outcome in
            target.value?.connectAttemptEnded(outcome, connection: connection, retry: retry)
        }
    }

    private func connectAttemptEnded(_ outcome: Result<String, BrokerConnectFailure>, connection: Int, retry: Duration) {
        guard generation == connection, let made = link else { return }
        switch outcome {
        case .success(let address):
            if address != made.broker.host { log.info("fleet: broker \(made.broker) is at \(address)") }
        case .failure(let error):
            if retry == Self.firstRetry {
                log.warning("fleet: broker \(made.broker) not reachable (\(error)); retrying with backoff, the rig works locally meanwhile")
            }
            let target = bound
            retryTimer = host.loop.schedule(after: retry) {
                guard let fleet = target.value else { return }
                fleet.retryTimer = nil
                guard fleet.generation == connection, let link = fleet.link else { return }
                fleet.firstConnect(link, connection: connection, retry: min(retry * 2, Self.longestRetry))
            }
        }
    }

    /// Takes what libmosquitto's thread queued; events of a replaced connection are dropped.
    /// The commands (and connection events) first, as many as the journal has room for (the rest wait
    /// in the inbox, which drops its oldest: what comes last is kept), then the group's traffic.
    func drainInbox() {
        let taken = inbox.drain(commandLimit: journal.room)
        count(\.commands, taken.droppedCommands, "commands dropped: more than \(inbox.commandCapacity) were waiting")
        count(\.queue, taken.droppedGroup, "group messages dropped: more than \(inbox.groupCapacity) were waiting")
        count(\.oversize, taken.droppedOversize, "state, status or reply payloads over \(Self.maximumGroupPayloadBytes) bytes dropped")
        for item in taken.commands + taken.group where item.connection == generation { handle(item.event) }
        // Commands left in the inbox wait for the journal's room, which a write in flight frees
        // (`roomFreed` drains again). When what was taken admitted nothing (cancels, duplicates,
        // malformed messages, connection events), no write is in flight and the inbox asks no hop
        // while they wait: drain again on the loop's next turn.
        if journal.room > 0, inbox.waiting.commands > 0 {
            let target = bound
            host.loop.execute { target.value?.drainInbox() }
        }
    }

    /// Adds `added` to a count of drops; logs when the count first passes 1, 10, 100, ... (never a flood of lines).
    func count(_ kind: WritableKeyPath<GroupDrops, Int>, _ added: Int, _ what: String) {
        guard added > 0 else { return }
        let before = drops[keyPath: kind]
        drops[keyPath: kind] += added
        var mark = 1
        while mark <= before { mark *= 10 }
        if drops[keyPath: kind] >= mark { log.warning("fleet: \(drops[keyPath: kind]) \(what) so far (fleet status counts them)") }
    }

    private func handle(_ event: MosquittoEvent) {
        guard let link else { return }
        switch event {
        case .connected(code: 0):
            connected = true
            // This end's address on the broker connection, read once per connection: what a
            // wildcard remote is advertised as in the status (not two socket calls every poll).
            localAddress = link.client.localAddress()
            log.notice("fleet: connected to \(link.broker)")
            publish(link.topics.state, "online", retain: true)
            for topic in [link.topics.groupCommands, link.topics.rigCommands,
                          link.topics.everyRigState, link.topics.everyRigStatus, link.topics.everyRigReply, link.topics.everyRigCancel] {
                do { try link.client.subscribe(topic: topic, qos: 1) } catch { log.warning("fleet: subscribe \(topic): \(error)") }
            }
            // A new connection publishes its status whatever the last one published.
            lastStatusPublished = nil
            pollStatus()
        case .connected(let code):
            log.warning("fleet: broker \(link.broker) refused the connection: \(MosquittoClient.describeRefusal(code))")
        case .disconnected(let code):
            connected = false
            if code != 0 { log.warning("fleet: lost the broker \(link.broker); reconnecting with backoff") }
        case .message(let topic, let payload, let retained):
            if topic == link.topics.groupCommands || topic == link.topics.rigCommands {
                receive(payload, retained: retained)
            } else if let (rig, kind) = link.topics.rigAndKind(of: topic) {
                heard(rig: rig, kind: kind, payload: payload)
            }
        case .subscribed:
            break  // the status published after the SUBSCRIBEs tells the group this rig listens
        }
    }

    func publish(_ topic: String, _ payload: String, retain: Bool = false) {
        guard connected, let link else { return }
        do { try link.client.publish(topic: topic, payload: payload, qos: 1, retain: retain) }
        catch { log.warning("fleet: publish \(topic): \(error)") }
    }

    // MARK: Commands

    /// One command message: checked, run once per id, answered on `.../reply`.
    private func receive(_ payload: [UInt8], retained: Bool) {
        let message = FleetCommandMessage.parse(payload, retained: retained, now: wallClock())
        guard let id = message.id else {
            if case .failure(let error) = message.result { answer(id: nil, ReplyFormatter.lines(.error(error), mode: .json)[0]) }
            return
        }
        // The command runs once its id is on disk, so a restart cannot run it again; the journal
        // writes off the loop, in batches, and keeps the commands in their order.
        let result = message.result
        let target = bound
        switch journal.admit(id, then: { target.value?.carryOut(id: id, result) }) {
        case .admitted:
            break
        case .duplicate:
            log.info("fleet: command \(id) delivered again; it ran once already")
        case .full:
            // Dropped like the inbox's overflow, without a reply: a flood must not be answered by a flood.
            count(\.commands, 1, "commands dropped: \(CommandIDJournal.maximumWaiting) were waiting for their ids to reach the disk")
        }
    }

    /// Answers a refused command, or runs the line on the command session (its reply is answered
    /// from `sessionWrote`).
    private func carryOut(id: String, _ result: Result<FleetCommand, ConsoleError>) {
        switch result {
        case .failure(let error):
            answer(id: id, ReplyFormatter.lines(.error(error), mode: .json)[0])
        case .success(let command) where FleetCommandMessage.isArm(command.line):
            // A shot arms on arrival: its frames wait for the instant, not a timer; its "at" must be the line's instant.
            if let notAfter = command.notAfter, wallClock() > notAfter {
                answer(id: id, ReplyFormatter.lines(.err(.outOfRange, "expired: notAfter \(FleetCommandMessage.formatTime(notAfter)) passed before the shot could arm"), mode: .json)[0])
                return
            }
            arm(messageID: id, line: command.line, at: command.at)
        case .success(let command) where command.at != nil:
            schedule(command)
        case .success(let command):
            if let notAfter = command.notAfter, wallClock() > notAfter {
                answer(id: id, ReplyFormatter.lines(.err(.outOfRange, "expired: notAfter \(FleetCommandMessage.formatTime(notAfter)) passed before the line could run"), mode: .json)[0])
                return
            }
            guard host.isServingConsoles else {
                answer(id: id, ReplyFormatter.lines(.err(.busy, "the rig is stopping"), mode: .json)[0])
                return
            }
            run(command.line, id: id)
        }
    }

    /// Runs `line` on a session of its own, whose one reply answers `id` (now, or later for a
    /// command that answers later); the session goes once it has answered. A line that gives no
    /// reply (a comment) is answered so.
    private func run(_ line: String, id: String) {
        let output = CommandReplyOutput(self, id: id)
        let session = host.attach(name: "fleet:\(id)", kind: .mqtt, output: output)
        session.mode = .json
        output.session = session
        host.receive(bytes: Array((line + "\n").utf8), from: session)
        if !output.answered, !session.isAwaitingReply, !session.isClosed {
            host.detach(session)
            answer(id: id, ReplyFormatter.lines(.err(.usage, "the line has no command"), mode: .json)[0])
        }
    }

    /// The reply of a command's own session.
    fileprivate func commandAnswered(id: String, _ line: String, session: ConsoleSession?) {
        if let session, !session.isClosed { host.detach(session) }
        answer(id: id, line)
        pollStatusSoon()
    }

    /// Commands waiting for their `at`, at most `maximumScheduled`.
    private var scheduled: [String: ScheduledWork] = [:]
    public static let maximumScheduled = 64

    /// Runs `command` at its `at` on this rig's wall clock, through the loop's (monotonic) timer:
    /// the instant is turned into a delay when the command arrives, so a clock step after that is
    /// not followed. Not aligned to a frame: the line runs when the timer fires.
    private func schedule(_ command: FleetCommand) {
        guard let at = command.at else { return }
        guard scheduled.count < Self.maximumScheduled else {
            answer(id: command.id, ReplyFormatter.lines(.err(.busy, "\(Self.maximumScheduled) commands are already waiting for their time"), mode: .json)[0])
            return
        }
        let delay = Duration.milliseconds(Int64((at.timeIntervalSince(wallClock()) * 1000).rounded(.up)))
        let target = bound
        let immediate = FleetCommand(id: command.id, line: command.line, at: nil, notAfter: command.notAfter)
        scheduled[command.id] = host.loop.schedule(after: max(.zero, delay)) {
            guard let fleet = target.value, fleet.scheduled.removeValue(forKey: immediate.id) != nil else { return }
            fleet.carryOut(id: immediate.id, .success(immediate))
        }
    }

    /// A line from one of the fleet's sessions (JSON mode: one reply or event per line).
    fileprivate func sessionWrote(_ lines: [String], role: SessionOutput.Role) {
        for line in lines {
            let isEvent = line.hasPrefix("{\"type\":\"event\"")
            switch role {
            case .events where isEvent:
                if let link { publish(link.topics.events, line) }
            case .events:
                log.warning("fleet: a reply on the events session, which runs no line: \(line)")
            case .status where !isEvent:
                statusReplied(line)
            case .status:
                break
            }
        }
    }

    /// Publishes `{"id": ..., <the console's JSON reply>}` on `.../reply`.
    func answer(id: String?, _ replyLine: String) {
        guard let link, replyLine.hasPrefix("{") else { return }
        publish(link.topics.reply, "{\"id\":" + Self.jsonString(id) + "," + replyLine.dropFirst())
    }

    /// A JSON string literal (the console's own escaping, `ReplyFormatter.jsonString`), or `null`.
    static func jsonString(_ value: String?) -> String {
        value.map(ReplyFormatter.jsonString) ?? "null"
    }

    // MARK: Status

    private func scheduleStatusPoll() {
        let target = bound
        statusTimer = host.loop.schedule(after: Self.statusPoll) {
            guard let client = target.value else { return }
            client.pollStatus()
            client.scheduleStatusPoll()
        }
    }

    private var statusPollQueued = false

    /// A command changed the status, maybe: one poll on the loop's next turn, however many commands
    /// ran in this one (a batch of commands costs one `status`, not one each).
    private func pollStatusSoon() {
        guard !statusPollQueued else { return }
        statusPollQueued = true
        let target = bound
        host.loop.execute {
            guard let fleet = target.value else { return }
            fleet.statusPollQueued = false
            fleet.pollStatus()
        }
    }

    /// Asks `status` on the status session (its reply comes back through `sessionWrote`).
    private func pollStatus() {
        guard connected, let session = statusSession, !session.isClosed else { return }
        host.receive(bytes: Array("status\n".utf8), from: session)
    }

    /// The fields of `status` that are measurements moving with every frame or sample: a change of
    /// these alone is not a change of the rig's status (they still go out every 10 s).
    static let measuredStatusFields = ["uptime", "frame", "exposure", "iso", "lens", "wb", "ev.offset",
                                       "imu.samples", "imu.rate", "imu.still", "free", "clock.error.us"]

    /// Publishes the status reply when it changed (measurements aside), when 10 s have passed, or
    /// when none was published on this connection yet.
    private func statusReplied(_ reply: String) {
        guard let link else { return }
        let line = Self.advertising(localAddress, in: Self.addingClock(clockSync.read(), to: reply))
        var values = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["values"] as? [String: String] ?? [:]
        for field in Self.measuredStatusFields { values[field] = nil }
        let now = host.loop.now()
        // Due a poll and a half early, so the next poll cannot carry it past the interval.
        let due = lastStatusPublished.map { now - $0 >= Self.statusInterval - Self.statusPoll * 1.5 } ?? true
        guard due || values != lastStatus else { return }
        lastStatus = values
        lastStatusPublished = now
        publish(link.topics.status, line, retain: true)
    }
}

extension FleetClient {
    /// The status with a wildcard `remote` (`http://0.0.0.0:8080`, `[::]`) given this rig's address
    /// on its broker connection instead, which the group's collector can reach (docs/collect.md);
    /// unchanged when it has none or it is not known.
    static func advertising(_ local: String?, in line: String) -> String {
        guard let local else { return line }
        var result = line
        for scheme in ["http", "https"] {
            for wildcard in ["0.0.0.0", "[::]"] {
                result = result.replacingOccurrences(of: "\"remote\":\"\(scheme)://\(wildcard):", with: "\"remote\":\"\(scheme)://\(local):")
            }
        }
        return result
    }

    /// The status reply with the clock's fields first in its values: `clock` (`synchronised`,
    /// `unsynchronised`, or `unknown` when adjtimex failed) and `clock.error.us` (the kernel's
    /// estimated error). A reply without values is returned as it is.
    static func addingClock(_ clock: ClockSyncState?, to reply: String) -> String {
        let marker = "\"values\":{"
        guard let range = reply.range(of: marker) else { return reply }
        var fields = "\"clock\":" + jsonString(clock?.word ?? "unknown")
        if let clock { fields += ",\"clock.error.us\":" + jsonString(String(clock.estimatedErrorMicroseconds)) }
        let rest = reply[range.upperBound...]
        return String(reply[..<range.upperBound]) + fields + (rest.hasPrefix("}") ? "" : ",") + rest
    }
}

/// Where a command's session writes: its first reply answers the command's id; events are the
/// events session's to publish. Called on the loop.
private final class CommandReplyOutput: ConsoleOutput {
    let client: WeakLoopBound<FleetClient>
    weak var session: ConsoleSession?
    let id: String
    private(set) var answered = false
    init(_ client: FleetClient, id: String) { self.client = WeakLoopBound(client, loop: client.host.loop); self.id = id }
    func write(lines: [String]) {
        for line in lines where !answered && !line.hasPrefix("{\"type\":\"event\"") {
            answered = true
            client.value?.commandAnswered(id: id, line, session: session)
        }
    }
    func close() {}
}

/// Where a fleet session's lines go: back to the fleet client, on the loop.
private final class SessionOutput: ConsoleOutput {
    enum Role { case events, status }
    let client: WeakLoopBound<FleetClient>
    let role: Role
    init(_ client: FleetClient, role: Role) { self.client = WeakLoopBound(client, loop: client.host.loop); self.role = role }
    func write(lines: [String]) { client.value?.sessionWrote(lines, role: role) }
    func close() {}
}
