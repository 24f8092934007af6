import Foundation  // Date, JSONSerialization
import Fleet
import Console
import Hardware
import Settings
import Transports

/// Shots at a shared instant and `fleet status` (docs/fleet.md).
///
/// The sender arms its own part first (so a bad action or a busy camera refuses the shot before
/// anything is sent), then publishes one group command, `fleet arm <id> <time> <action>` with the
/// same id and `"at"`, and collects the replies on `tripod/<group>/+/reply` until every rig asked
/// answered or went offline, or `shotReplyWait` after the instant; then it writes `SHOT_<id>.json`
/// through the captures' storage and sends the event `fleet.shot` (one line) to the console that
/// asked. Every rig arms on arrival: its capture's frames wait for the instant (frame metadata,
/// never a timer), and its reply comes when its part has ended.
extension FleetClient {
    /// How long after the instant the sender waits for replies.
    public static let shotReplyWait: Duration = .seconds(15)

    /// `fleet shot ...`, `fleet status`, `fleet cancel <shot>`, `fleet arm` (refused at a console) from a console session.
    public func fleetCommand(_ arguments: [String], session: ConsoleSession) -> Reply {
        switch arguments.first?.lowercased() {
        case "shot":
            do throws(ConsoleError) { return .ok(try startShot(Array(arguments.dropFirst()), session: session)) }
            catch { return .error(error) }
        case "status" where arguments.count == 1:
            return fleetStatus()
        case "cancel" where arguments.count == 2:
            do throws(ConsoleError) { return .ok(try cancelShot(arguments[1])) }
            catch { return .error(error) }
        case "arm":
            return .err(.unsupported, "fleet arm comes over MQTT only: a rig's fleet shot sends it to every rig with the shot's id; use fleet shot in|at ...")
        default:
            return .err(.usage, "usage: fleet shot in <duration> <action> | fleet shot at <time> <action> | fleet cancel <shot> | fleet status")
        }
    }

    // MARK: The sender

    private func startShot(_ words: [String], session: ConsoleSession) throws(ConsoleError) -> [(String, String)] {
        guard let topics else { throw ConsoleError(.unsupported, "\(SettingsTable.fleetBroker.key) is off: a shot goes to the group through the broker") }
        guard isConnected else { throw ConsoleError(.busy, "not connected to the broker; a shot goes to the group through it (see the log)") }
        let now = wallClock()
        var (instant, action) = try ShotRequest.parse(words, now: now)
        var moved: [(String, String)] = []
        if let grid = shotRig.syncedFrameGrid {
            let asked = Int64((instant.timeIntervalSince1970 * 1e9).rounded())
            let middle = grid.midFrame(atOrAfter: asked)
            instant = Date(timeIntervalSince1970: Double(middle) / 1e9)
            moved = [("sync", "mid-frame"), ("moved.ms", String((middle - asked) / 1_000_000))]
        }
        var candidate = ShotRequest.makeID(rig: topics.rig, instant: instant, serial: 0)
        while armedShots.contains(candidate) || collecting[candidate] != nil {
            shotSerial += 1
            candidate = ShotRequest.makeID(rig: topics.rig, instant: instant, serial: shotSerial)
        }
        let id = candidate
        let online = rigsSeen.filter { $0.value.state == "online" }.map(\.key)
        let asked = Set(online + [topics.rig]).sorted()
        let known = Set(rigsSeen.keys).union(asked).sorted()
        let time = FleetCommandMessage.formatTime(instant)
        let line = "fleet arm \(id) \(time) \(action.joined(separator: " "))"
        let target = bound
        let own = try armHere(id: id, instant: instant, action: action) { reply in
            guard let fleet = target.value, let topics = fleet.topics else { return }
            let answered = Self.withRig(topics.rig, reply)
            fleet.answer(id: id, ReplyFormatter.lines(answered, mode: .json)[0])
            fleet.collected(id: id, rig: topics.rig, ShotAnswer(answered))
        }
        let payload = "{\"id\":\(Self.jsonString(id)),\"line\":\(Self.jsonString(line)),\"at\":\(Self.jsonString(time))}"
        publish(topics.groupCommands, payload)
        let wait = Duration.milliseconds(Int64((instant.timeIntervalSince(now) * 1000).rounded(.up))) + Self.shotReplyWait
        let timeout = host.loop.schedule(after: wait) { target.value?.finishShot(id: id) }
        collecting[id] = (ShotCollection(id: id, instant: instant, action: action, sender: topics.rig, group: topics.group,
                                         asked: asked, known: known),
                          timeout, WeakSession(session))
        log.notice("fleet: shot \(id) at \(time) (\(action.joined(separator: " "))) sent to \(asked.joined(separator: ","))")
        return [("shot", id), ("at", time), ("asked", String(asked.count)), ("rigs", asked.joined(separator: ","))]
            + moved + own.filter { $0.0 == "plan" || $0.0 == "frames" }
    }

    /// A reply of `rig` to shot `id`; the shot ends once every rig asked answered or is offline.
    func collected(id: String, rig: String, _ answer: ShotAnswer) {
        guard var entry = collecting[id], entry.collection.asked.contains(rig), entry.collection.answers[rig] == nil else { return }
        entry.collection.answers[rig] = answer
        collecting[id] = entry
        finishShotIfAnswered(id)
    }

    private func finishShotIfAnswered(_ id: String) {
        guard let entry = collecting[id] else { return }
        // The sender's own part answers here, not over the broker: an `offline` heard for it (its Last
        // Will, which a broker that shuts down publishes) never ends the wait for it.
        let waiting = entry.collection.missing.filter { $0 == entry.collection.sender || rigsSeen[$0]?.state != "offline" }
        if waiting.isEmpty { finishShot(id: id) }
    }

    /// Ends the collection of shot `id`: writes its report and sends the summary.
    func finishShot(id: String) {
        guard let entry = collecting.removeValue(forKey: id) else { return }
        entry.timeout?.cancel()
        let collection = entry.collection
        let session = entry.session
        let log = self.log
        let summarise: (String?, String?) -> Void = { path, failure in
            var fields = collection.summary(report: path)
            if let failure { fields.append(("report.error", failure)) }
            let event = ConsoleEvent("fleet.shot", fields)
            log.notice(ReplyFormatter.format(event, mode: .human))
            if let console = session.session, !console.isClosed { console.send(event) }
        }
        let report = collection.report()
        // Retained, so that a collector started later still finds the shot (docs/collect.md).
        if let topics { publish(topics.report, String(decoding: report, as: UTF8.self), retain: true) }
        shotRig.saveShotReport(report, name: collection.reportName, folder: collection.senderFolder) { result in
            switch result {
            case .success(let path): summarise(path, nil)
            case .failure(let error): summarise(nil, error.message)
            }
        }
    }

    // MARK: Every rig

    /// `fleet arm <id> <time> <action>` from MQTT: arms this rig's part now; the reply (with the
    /// message's id) comes when the part has ended, or at once when it cannot be armed. A shot id
    /// already armed gets no second reply.
    func arm(messageID: String, line: String, at: Date?) {
        let refuse = { (error: ConsoleError) in self.answer(id: messageID, ReplyFormatter.lines(.error(error), mode: .json)[0]) }
        let words: [String]
        do throws(ConsoleError) { words = try tokenize(line) } catch { refuse(error); return }
        guard words.count >= 5 else { refuse(ConsoleError(.usage, "usage: fleet arm <id> <time> <action>")); return }
        let shot = words[2]
        guard !armedShots.contains(shot) else {
            log.info("fleet: shot \(shot) arrived again; it is armed once")
            return
        }
        guard let instant = FleetCommandMessage.parseTime(words[3]) else {
            refuse(ConsoleError(.badValue, "fleet arm: \"\(words[3])\" is not an RFC 3339 time"))
            return
        }
        // A refused shot is marked too: a second delivery gets no second answer.
        if let at, abs(at.timeIntervalSince(instant)) >= 0.0005 {
            armedShots.insert(shot)
            refuse(ConsoleError(.badValue, "fleet arm: \"at\" \(FleetCommandMessage.formatTime(at)) disagrees with the instant \(words[3]) in its line; a shot's sender sends the same instant in both"))
            return
        }
        let now = wallClock()
        let earliest = now.addingTimeInterval(FleetCommandMessage.minimumLead.secondsValue)
        guard instant >= earliest else {
            refuse(ConsoleError(.outOfRange, "the shot's instant \(words[3]) is past or too soon for this rig: its clock reads \(FleetCommandMessage.formatTime(now)); the earliest that would have worked is \(FleetCommandMessage.formatTime(earliest))"))
            armedShots.insert(shot)
            return
        }
        let latest = now.addingTimeInterval((ShotRequest.longestLead + Self.armClockAllowance).secondsValue)
        guard instant <= latest else {
            armedShots.insert(shot)
            refuse(ConsoleError(.outOfRange, "the shot's instant \(words[3]) is more than \(Int(ShotRequest.longestLead.secondsValue / 60)) minutes ahead of this rig's clock (\(FleetCommandMessage.formatTime(now))); a rig stays armed (busy) until its shot, so it arms at most \(Int(ShotRequest.longestLead.secondsValue / 60)) minutes ahead"))
            return
        }
        let action = Array(words.dropFirst(4))
        let target = bound
        do throws(ConsoleError) {
            let fields = try armHere(id: shot, instant: instant, action: action) { reply in
                guard let fleet = target.value, let topics = fleet.topics else { return }
                fleet.answer(id: messageID, ReplyFormatter.lines(Self.withRig(topics.rig, reply), mode: .json)[0])
            }
            if let topics {
                publish(topics.events, ReplyFormatter.format(ConsoleEvent("fleet.armed", fields), mode: .json))
            }
        } catch {
            refuse(error)
        }
    }

    /// Arms this rig's part of shot `id` through `shotRig`, with the clock's state now. An id is
    /// armed once: it is marked before the attempt, so a refused shot is not tried again either.
    /// One part is armed at a time (`armedPart`, cleared when the part ends), whoever sent it.
    private func armHere(id: String, instant: Date, action: [String], ended: @escaping (Reply) -> Void) throws(ConsoleError) -> [(String, String)] {
        armedShots.insert(id)
        if let armed = armedPart {
            throw ConsoleError(.busy, "shot \(armed.shot) is armed on this rig until \(FleetCommandMessage.formatTime(armed.instant)); one shot is armed at a time (fleet cancel \(armed.shot) at this rig's console releases it)")
        }
        let clock = clockSync.read()
        let wall = Int64((wallClock().timeIntervalSince1970 * 1e9).rounded())
        let order = ShotOrder(id: id, instantNanoseconds: Int64((instant.timeIntervalSince1970 * 1e9).rounded()),
                              realtimeMinusMonotonicNanoseconds: wall - host.loop.now().nanoseconds,
                              action: action, clock: clock?.word ?? "unknown", clockErrorMicroseconds: clock?.estimatedErrorMicroseconds)
        armedPart = ArmedPart(shot: id, instant: instant)
        let target = bound
        do throws(ConsoleError) {
            return try shotRig.armShot(order) { reply in
                if let fleet = target.value, fleet.armedPart?.shot == id { fleet.armedPart = nil }
                ended(reply)
            }
        } catch {
            if armedPart?.shot == id { armedPart = nil }
            throw error
        }
    }

    /// How much later than `ShotRequest.longestLead` a receiving rig still arms: the clocks of the
    /// sender and the receiver may differ a little.
    static let armClockAllowance: Duration = .seconds(1)

    // MARK: Cancelling

    /// `fleet cancel <shot>` at a console: releases this rig's armed part now (its capture or
    /// recording waiting for the instant fails, answered to the sender as cancelled); at the shot's
    /// sender, also sends the cancel to every rig on `tripod/<group>/<sender>/cancel`.
    func cancelShot(_ shot: String) throws(ConsoleError) -> [(String, String)] {
        let sent = collecting[shot] != nil
        let armedHere = armedPart?.shot == shot
        guard sent || armedHere else {
            let armed = armedPart.map { "; shot \($0.shot) is armed here" } ?? "; no shot is armed here"
            throw ConsoleError(.badValue, "no shot \(shot) is armed on this rig or sent from it\(armed)")
        }
        if sent, let topics { publish(topics.cancel, "{\"shot\":" + Self.jsonString(shot) + "}") }
        if armedHere { releaseArmedPart(because: "cancelled at this rig's console") }
        log.notice("fleet: shot \(shot) cancelled at this rig's console" + (sent ? "; the cancel went to the group" : ""))
        return [("shot", shot), ("cancelled", armedHere ? "yes" : "not armed here"), ("group", sent ? "told" : "not told")]
    }

    /// A cancel heard on `tripod/<group>/<rig>/cancel`: obeyed only when `rig` sent the shot (its id
    /// names it) and the shot is armed here.
    func heardCancel(from rig: String, payload: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
              let shot = object["shot"] as? String, armedPart?.shot == shot else { return }
        guard ShotRequest.isSent(by: rig, id: shot) else {
            count(\.forged, 1, "replies or cancels refused: their rig is not the one they claim")
            log.warning("fleet: rig \(rig) asked to cancel shot \(shot), which it did not send; ignored")
            return
        }
        releaseArmedPart(because: "cancelled by its sender \(rig)")
    }

    /// Ends the armed part now (the supervisor's capture or recording waiting for the instant); its
    /// `ended` answers the sender. A part whose frames are already coming completes.
    private func releaseArmedPart(because reason: String) {
        guard let armed = armedPart else { return }
        log.notice("fleet: shot \(armed.shot) released: \(reason)")
        shotRig.cancelArmedShot(reason: reason)
    }

    /// `reply` with this rig's name first (ok replies).
    static func withRig(_ rig: String, _ reply: Reply) -> Reply {
        guard case .ok(let fields, let text, let body) = reply else { return reply }
        return .ok(fields: [Reply.Field("rig", rig)] + fields, text: text, body: body)
    }

    // MARK: What the rig hears of the group

    /// A message on another (or this) rig's state, status or reply topic.
    func heard(rig: String, kind: String, payload: [UInt8]) {
        if kind == "state" || kind == "status", rigsSeen[rig] == nil, rigsSeen.count >= Self.maximumRigsSeen {
            count(\.rigs, 1, "state or status messages of rigs beyond the \(Self.maximumRigsSeen) kept dropped")
            return
        }
        switch kind {
        case "state":
            rigsSeen[rig, default: RigSeen()].state = String(decoding: payload, as: UTF8.self)
            for id in collecting.keys.sorted() { finishShotIfAnswered(id) }
        case "status":
            let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
            rigsSeen[rig, default: RigSeen()].status = object?["values"] as? [String: String] ?? [:]
            rigsSeen[rig, default: RigSeen()].statusAt = host.loop.now()
        case "reply":
            for id in collecting.keys.sorted() {
                guard let answer = ShotAnswer.parse(payload, id: id) else { continue }
                if let named = answer.values["rig"], named != rig {
                    count(\.forged, 1, "replies or cancels refused: their rig is not the one they claim")
                    log.warning("fleet: a reply to shot \(id) on rig \(rig)'s topic names rig \(named); ignored")
                    continue
                }
                collected(id: id, rig: rig, answer)
            }
        case "cancel":
            heardCancel(from: rig, payload: payload)
        default:
            break
        }
    }

    /// `fleet status`: every rig seen, online or offline, its last status and its clock.
    func fleetStatus() -> Reply {
        let broker = topics == nil ? "off" : isConnected ? "connected" : "not connected"
        let now = host.loop.now()
        var lines: [String] = []
        for (name, seen) in rigsSeen.sorted(by: { $0.key < $1.key }) {
            var parts = [name, seen.state ?? "unknown"]
            if let status = seen.status {
                for key in ["state", "capture", "recording"] { if let value = status[key] { parts.append("\(key)=\(value)") } }
                parts.append("clock=\(status["clock"] ?? "unknown")")
                if let error = status["clock.error.us"] { parts.append("error.us=\(error)") }
                if let at = seen.statusAt { parts.append("age=\(String(format: "%.0f", (now - at).secondsValue))s") }
            } else {
                parts.append("no status yet")
            }
            lines.append(parts.joined(separator: " "))
        }
        let online = rigsSeen.values.filter { $0.state == "online" }.count
        var fields = [("broker", broker), ("rigs", String(rigsSeen.count)), ("online", String(online))]
        if drops != GroupDrops() {
            fields += [("dropped.oversize", String(drops.oversize)), ("dropped.rigs", String(drops.rigs)), ("dropped.queue", String(drops.queue)),
                       ("dropped.commands", String(drops.commands)), ("refused.forged", String(drops.forged))]
        }
        return .ok(fields, body: lines)
    }
}

/// The shot part armed on this rig, until it ends.
struct ArmedPart: Equatable {
    var shot: String
    var instant: Date
}

/// A console session as a shot's collection sees it: the summary goes there if it is still open.
struct WeakSession {
    weak var session: ConsoleSession?
    init(_ session: ConsoleSession) { self.session = session }
}
