import Camera
import Capture
import Console
import Foundation
import Hardware
import Media
import Recording
import Settings
import Transports
import Video

/// What the fleet's MQTT front end (module Fleet, joined to the supervisor by Startup) does for
/// the `fleet` console command: the arguments and the session they came from.
public typealias FleetCommandHandler = (_ arguments: [String], _ session: ConsoleSession) -> Reply

extension Supervisor {
    /// Adds `fleet` (docs/fleet.md): its work is the fleet client's (`fleetCommands`).
    func registerFleetCommands() {
        commands.add(Command("fleet", synopsis: "shot in <duration> <action> | shot at <time> <action> | cancel <shot> | status | arm <id> <time> <action>",
                             summary: "a shot at a shared instant on every rig of the group; the rigs seen",
                             detail: ["shot in 2s capture: every online rig of \(SettingsTable.fleetGroup.key) (this one too) takes ACTION with",
                                      "its first exposure on the first frame at or after the instant, by its own clock;",
                                      "ACTION is capture, bracket ..., record start or record stop.",
                                      "shot at 12:00:05.000 bracket ev 3 1: an instant today (this rig's local time) or",
                                      "RFC 3339 (2026-05-01T12:00:05.000Z); at least 0.5 s and at most 1 hour ahead.",
                                      "The reply names the shot; the event fleet.shot sums up the rigs' replies and",
                                      "names SHOT_<id>.json, written next to this rig's captures.",
                                      "cancel SHOT: releases this rig's armed part of SHOT now (the console can capture",
                                      "again); typed at the shot's sender, every rig's part too: the sender publishes",
                                      "on its own tripod/<group>/<rig>/cancel, and a rig obeys only the rig its id names.",
                                      "A rig arms one shot at a time, at most 60 minutes ahead.",
                                      "status: each rig seen on the broker: online or offline, its state, its clock.",
                                      "arm: what a shot sends over MQTT; refused at a console."],
                             arguments: 1...64) { context, args in
            context.supervisor.fleetCommands(args, context.session)
        })
    }

    /// The `fleet` command in a process that runs no fleet client (the null object).
    public static func noFleetClient(_ arguments: [String], _ session: ConsoleSession) -> Reply {
        .err(.unsupported, "no fleet client runs in this process (tripod run has one; set \(SettingsTable.fleetBroker.key))")
    }

    /// `fleet cancel`: a shot's capture or recording still waiting for its instant ends now, failed
    /// with `reason` (its `ended` runs); one whose frames are coming completes.
    public func cancelShotWaitingForInstant(reason: String) {
        captureService.cancelShotWaitingForInstant(reason: reason)
        recorder.cancelArmedShot(reason: reason)
    }

    /// Arms a shot at a shared instant (`fleet arm`, from the fleet client): `action` is `capture`
    /// or `bracket ...`; its first frame is the first whose exposure starts at or after `instant`
    /// on this rig's clock. `ended` gets the reply the sender collects (on the loop): the shot,
    /// its sidecar and files, the first exposure and its offset, the clock; or why it failed.
    /// Throws when it cannot be armed (busy, no camera, bad action). Returns the armed fields.
    public func armShot(id: String, instant: ExposureInstant, action: [String], clock: String, clockErrorMicroseconds: Int?,
                        ended: @escaping (Reply) -> Void) throws(ConsoleError) -> [(String, String)] {
        guard state == .ready else { throw ConsoleError(.busy, "tripod is \(state.rawValue)") }
        let service = captureService
        let plan: BracketPlan
        switch action.first?.lowercased() {
        case "capture" where action.count == 1: plan = .single
        case "bracket" where action.count > 1: plan = try bracketPlan(Array(action.dropFirst()))
        case "record" where action.count == 2 && ["start", "stop"].contains(action[1].lowercased()):
            return try armRecordingShot(id: id, instant: instant, starts: action[1].lowercased() == "start", clock: clock,
                                        clockErrorMicroseconds: clockErrorMicroseconds, ended: ended)
        default:
            throw ConsoleError(.usage, "a shot's action is capture, bracket ..., record start or record stop (got \"\(action.joined(separator: " "))\")")
        }
        var record = ShotRecord(id: id, targetWallClockNanoseconds: instant.wallClockNanoseconds,
                                realtimeMinusMonotonicNanoseconds: instant.realtimeMinusMonotonicNanoseconds,
                                clock: clock, clockErrorMicroseconds: clockErrorMicroseconds)
        noteFrameSync(in: &record)
        let syncFields = Self.shotSyncFields(record)
        let arming = ShotArming(record: record, instant: instant) { sidecar, failure in
            ended(Self.shotReply(id: id, target: record.target, sidecar: sidecar, failure: failure, clock: clock,
                                 clockErrorMicroseconds: clockErrorMicroseconds, sync: syncFields))
        }
        let fields = try worded { () throws(CaptureError) in try service.start(plan, trigger: .console, shot: arming) }.replyFields
        return [("shot", id), ("at", record.target), ("armed", "yes")] + fields.filter { $0.0 == "plan" || $0.0 == "frames" }
    }

    /// A shot's `record start` (the recording's first frame is the first at or after the instant)
    /// or `record stop` (its last frame is the one before it).
    private func armRecordingShot(id: String, instant: ExposureInstant, starts: Bool, clock: String, clockErrorMicroseconds: Int?,
                                  ended: @escaping (Reply) -> Void) throws(ConsoleError) -> [(String, String)] {
        if starts, let running = captureService.running {
            throw ConsoleError(.busy, "a bracket is running (\(running.id ?? running.plan.summary)); record after bracket.done")
        }
        let target = ShotRecord.format(nanoseconds: instant.wallClockNanoseconds)
        var syncRecord = ShotRecord(id: id, targetWallClockNanoseconds: instant.wallClockNanoseconds,
                                    realtimeMinusMonotonicNanoseconds: instant.realtimeMinusMonotonicNanoseconds,
                                    clock: clock, clockErrorMicroseconds: clockErrorMicroseconds)
        noteFrameSync(in: &syncRecord)
        let syncFields = Self.shotSyncFields(syncRecord)
        let shot = VideoShot(id: id, targetWallClockNanoseconds: instant.wallClockNanoseconds,
                             realtimeMinusMonotonicNanoseconds: instant.realtimeMinusMonotonicNanoseconds,
                             clock: clock, clockErrorMicroseconds: clockErrorMicroseconds)
        let bound = self.bound
        try worded { () throws(RecorderError) in
            try recorder.armShot(instant: instant, starts: starts, begin: { () throws(RecorderError) -> RecordingStarted in
                guard let supervisor = bound.value else { throw RecorderError(.busy, "the rig is stopping") }
                do throws(ConsoleError) { return try supervisor.beginRecording(shot: shot) } catch { throw RecorderError(error) }
            }, ended: { result in
                var fields: [(String, String)] = [("shot", id), ("at", target)]
                switch result {
                case .failure(let error):
                    fields += [("status", "failed"), ("reason", error.message)]
                case .success(let outcome):
                    fields += [("status", "complete"), ("first.exposure", ShotRecord.format(nanoseconds: outcome.exposureStartNanoseconds)),
                               ("offset.us", String(format: "%.1f", Double(outcome.exposureStartNanoseconds - instant.wallClockNanoseconds) / 1000)),
                               ("source", outcome.fromFrameWallClock ? "FrameWallClock" : "SensorTimestamp")]
                    if let file = outcome.started?.file {
                        let stem = file.split(separator: ".").dropLast().joined(separator: ".")
                        fields += [("sidecar", stem + ".json"), ("files", file)]
                    }
                    fields.append(("recording", outcome.recordingID))
                }
                fields.append(("clock", clock))
                if let clockErrorMicroseconds { fields.append(("clock.error.us", String(clockErrorMicroseconds))) }
                ended(.ok(fields + syncFields))
            })
        }
        return [("shot", id), ("at", target), ("armed", "yes"), ("action", starts ? "record start" : "record stop")]
    }

    /// A rig's answer to a shot, as the sender's report reads it.
    static func shotReply(id: String, target: String, sidecar: BracketSidecar?, failure: String?, clock: String,
                          clockErrorMicroseconds: Int?, sync: [(String, String)] = []) -> Reply {
        var fields: [(String, String)] = [("shot", id), ("at", target), ("status", failure == nil ? "complete" : "failed")]
        if let failure { fields.append(("reason", failure)) }
        if let shot = sidecar?.shot, let first = shot.firstExposure, let offset = shot.offsetMicroseconds {
            fields += [("first.exposure", first), ("offset.us", String(format: "%.1f", offset)),
                       ("source", shot.firstExposureSource ?? "none")]
        }
        if let sidecar {
            fields += [("sidecar", sidecar.folder + "/" + sidecar.id + ".json"),
                       ("files", sidecar.frames.flatMap { $0.files.map { sidecar.folder + "/" + $0.name } }.joined(separator: ","))]
        }
        fields.append(("clock", clock))
        if let clockErrorMicroseconds { fields.append(("clock.error.us", String(clockErrorMicroseconds))) }
        return .ok(fields + sync)
    }

    /// Frame sync when a shot is armed, into its record: the part, SyncReady, the alignment.
    private func noteFrameSync(in record: inout ShotRecord) {
        guard let sync = camera?.frameSyncStatus, sync.mode != .off else { return }
        record.sync = sync.active ? sync.mode.rawValue : "unavailable"
        record.syncReady = sync.ready
        record.syncAlignmentMicroseconds = sync.alignmentMicroseconds
    }

    /// A shot's frame-sync fields for the sender's report: the part, SyncReady, the alignment.
    static func shotSyncFields(_ record: ShotRecord) -> [(String, String)] {
        guard let sync = record.sync else { return [] }
        var fields = [("sync", sync), ("sync.ready", record.syncReady == true ? "yes" : "no")]
        if let alignment = record.syncAlignmentMicroseconds { fields.append(("sync.alignment.us", String(alignment))) }
        return fields
    }

    /// This rig's frame grid while frame sync is active and ready: its latest frame's wall-clock
    /// start and the fixed frame duration. A shot sent from here is placed mid-frame on it.
    public var syncedFrame: (startWallClockNanoseconds: Int64, frameNanoseconds: Int64)? {
        guard let camera, let wall = camera.latest?.wallClockNanoseconds else { return nil }
        let sync = camera.frameSyncStatus
        guard sync.active, sync.ready, let frame = sync.frameMicroseconds else { return nil }
        return (wall, frame * 1000)
    }

    /// Writes a shot's report (`SHOT_<id>.json`) atomically through the captures' storage, after
    /// the frames already given to the writer, in `folder` (the sender's own captures' date folder;
    /// nil: the captures' root). `done` gets the path relative to the captures' root, or the error.
    public func saveShotReport(_ bytes: [UInt8], name: String, folder: String?, done: @escaping (Result<String, ConsoleError>) -> Void) {
        let path = (folder.map { $0 + "/" } ?? "") + name
        do { try validateStoragePath(path) } catch {
            done(.failure(ConsoleError(.badValue, "shot report \(path): \(error)")))
            return
        }
        let service = captureService
        guard let camera else {
            do {
                if let folder { try devices.storage.createDirectory(folder) }
                try devices.storage.writeAtomically(bytes, to: path)
                done(.success(path))
            }
            catch { done(.failure(ConsoleError(.device, "shot report \(path): \(error)"))) }
            return
        }
        let bound = LoopBound(done, loop: loop)
        service.writer(for: camera).writeFile(rendering: { bytes }, to: path, creatingDirectory: folder) { error in
            bound.value(error.map { .failure(ConsoleError(.device, "shot report \(path): \($0)")) } ?? .success(path))
        }
    }
}
