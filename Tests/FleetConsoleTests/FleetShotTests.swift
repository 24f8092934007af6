import Console
import Foundation
import Hardware
import ManualLoop
import Media
import Settings
import SimulatedHardware
import Startup
import TestSupport
import Video
import Testing
import Transports
@testable import Fleet
@testable import FleetConsole
@testable import Supervisor

/// A clock state the test chooses (the kernel's is whatever this machine has).
struct FixedClockSync: ClockSyncReading {
    var state: ClockSyncState?
    func read() -> ClockSyncState? { state }
}

/// A rig in this process: a supervisor on `--board sim-small` and its fleet client, on the shared
/// manual clock, against the real broker. Its wall clock is its simulated camera's (FrameWallClock
/// is the monotonic clock plus a fixed offset), so the rig's idea of "now" and its frames agree.
final class LoopRig {
    let name: String
    let loop: ManualEventLoop
    let supervisor: Supervisor
    let fleet: FleetClient
    let captures: String
    let console: ConsoleSession
    let output = RecordingConsoleOutput()
    let wallOffsetNanoseconds: Int64

    init(_ name: String, loop: ManualEventLoop, broker: Broker, group: String = "g", synchronised: Bool = true,
         fullDisk: Bool = false, frameSync: (address: FrameSyncAddress, mode: FrameSyncMode)? = nil,
         brokerHost: String = "127.0.0.1", resolver: any HostResolving = SystemResolver(), state: StateStore? = nil) throws {
        self.name = name
        self.loop = loop
        let captures = NSTemporaryDirectory() + "tripod-shot-\(name)-\(UUID().uuidString)"
        self.captures = captures
        try FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
        let full = fullDisk ? try FaultyStorage(root: captures) : nil
        full?.freeBytesOverride = 0
        let fleetLink = LateBound<FleetClient>(loop: loop)
        let supervisor = try startSimulatedSupervisor(on: loop, board: "sim-small", frameSync: frameSync?.address, capturesDirectory: captures,
                                                      adjust: { devices in if let full { devices.storage = full } },
                                                      fleetCommands: FleetShotWiring.fleetCommands(fleetLink),
                                                      settingsFollowers: FleetClient.settingsFollowers(fleetLink))
        self.supervisor = supervisor
        guard let camera = loop.perform({ supervisor.camera?.device as? SimulatedCamera }) else {
            throw FleetTestFailure("sim-small has no simulated camera")
        }
        let offset = camera.wallClockOffsetNanoseconds
        wallOffsetNanoseconds = offset
        let clock = ClockSyncState(synchronised: synchronised, estimatedErrorMicroseconds: synchronised ? 250 : 16_000_000,
                                   maximumErrorMicroseconds: 16_000_000)
        let fleet = FleetClient(host: supervisor, shotRig: SupervisorShotRig(supervisor), settings: supervisor.settings, link: fleetLink,
                                state: state, log: .discard,
                                wallClock: { Date(timeIntervalSince1970: Double(offset + loop.now().nanoseconds) / 1e9) },
                                clockSync: FixedClockSync(state: clock), resolver: resolver)
        self.fleet = fleet
        let output = self.output
        console = try loop.perform { () throws(ConsoleError) -> ConsoleSession in
            var settings = [("fleet.broker", "mqtt://\(brokerHost):\(broker.port)"), ("fleet.group", group), ("fleet.rig", name)]
            if let frameSync { settings += [("video.fps", "30"), ("fleet.sync", frameSync.mode.rawValue)] }
            for (key, value) in settings {
                _ = try supervisor.change(key: key, value: value, origin: .configFile, requestedBy: nil)
            }
            fleet.start()
            return supervisor.attach(name: "test", kind: .local, output: output)
        }
    }

    /// Types `line` at this rig's console; returns what it answered at once.
    func type(_ line: String) -> [String] {
        loop.perform { supervisor.receive(bytes: Array((line + "\n").utf8), from: console) }
        return output.take()
    }

    /// This rig's wall clock now.
    var now: Date { Date(timeIntervalSince1970: Double(wallOffsetNanoseconds + loop.now().nanoseconds) / 1e9) }

    var frameNanoseconds: Int64 {
        loop.perform { (supervisor.camera?.observedFrameIntervalMicroseconds ?? 0) * 1000 }
    }

    func drain() {
        loop.perform { supervisor.captureService }.drainWrites()
        supervisor.waitForRecorder()
    }

    /// The bracket sidecars this rig saved, decoded.
    func sidecars() throws -> [BracketSidecar] {
        try captureFiles(captures).filter { $0.hasSuffix(".json") && URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("TRP_") }
            .map { try BracketSidecar.decode(Array(try Data(contentsOf: URL(fileURLWithPath: captures + "/" + $0)))) }
    }

    func stop() {
        loop.perform { fleet.shutdown() }
    }

    func removeWork() { try? FileManager.default.removeItem(atPath: captures) }
}

/// Rigs on one manual clock: the network runs in real time (the broker, libmosquitto's threads),
/// the rigs' time only when the test moves it, so no verdict depends on how fast messages go.
struct LoopFleet {
    let loop = ManualEventLoop()
    let broker: Broker
    var rigs: [LoopRig] = []

    init(names: [String], unsynchronised: Set<String> = [], fullDisk: Set<String> = [], frameSync: [String: FrameSyncMode] = [:]) throws {
        broker = try Broker()
        let address = loopbackFrameSyncAddress()
        for name in names {
            rigs.append(try LoopRig(name, loop: loop, broker: broker, synchronised: !unsynchronised.contains(name),
                                    fullDisk: fullDisk.contains(name), frameSync: frameSync[name].map { (address, $0) }))
        }
        // The cameras stream and meter.
        advance(by: .milliseconds(500))
    }

    subscript(_ name: String) -> LoopRig { rigs.first { $0.name == name }! }

    /// Runs what the network handed over, without moving the clock, until `condition` holds.
    func pump(seconds: Double = 60, until condition: () -> Bool) -> Bool {
        waitUntil(seconds: seconds) {
            loop.run()
            for rig in rigs { rig.drain() }
            loop.run()
            return loop.perform { condition() }
        }
    }

    /// Moves the clock by `duration` in steps of `step`, letting each rig's writer finish each step.
    func advance(by duration: Duration, step: Duration = .milliseconds(5)) {
        let end = loop.now() + duration
        while loop.now() < end {
            loop.advance(to: min(end, loop.now() + step))
            for rig in rigs { rig.drain() }
            loop.run()
        }
    }

    /// Until every rig has seen every rig's state and status (so each has subscribed).
    func waitUntilEveryRigSeesEveryRig() -> Bool {
        let names = rigs.map(\.name)
        return pump { rigs.allSatisfy { rig in names.allSatisfy { rig.fleet.rigsSeen[$0]?.state == "online" && rig.fleet.rigsSeen[$0]?.status != nil } } }
    }

    func removeWork() { rigs.forEach { $0.removeWork() } }
}

@Suite(.serialized) struct FleetShotTests {
    /// Three rigs, one with an unsynchronised clock: one command reaches each, each rig's first
    /// exposure starts at or after the instant by its own clock (within one frame), the sender's
    /// report lists every rig, and a duplicate delivery (the same message, or the same shot under
    /// another id) shoots nothing twice.
    @Test func aShotReachesEveryRigAndEachFirstExposureStartsAtOrAfterTheInstant() throws {
        let fleet = try LoopFleet(names: ["r1", "r2", "r3"], unsynchronised: ["r3"])
        defer { fleet.rigs.forEach { $0.stop() }; fleet.removeWork() }
        #expect(fleet.waitUntilEveryRigSeesEveryRig())
        let observer = try MQTTObserver(broker: fleet.broker)
        let reply = try #require(fleet["r1"].type("fleet shot in 2s bracket ev 3 1").last)
        #expect(reply.hasPrefix("ok shot="), "\(reply)")
        let shot = fields(reply)
        let id = try #require(shot["shot"])
        #expect(shot["asked"] == "3" && shot["rigs"] == "r1,r2,r3", "\(reply)")
        // Every rig arms on arrival, before the clock moves at all.
        #expect(fleet.pump { fleet.rigs.allSatisfy { $0.fleet.armedShots.contains(id) && $0.supervisor.captureService.running != nil } })
        // The sender's one command, as any tool on the broker sees it.
        #expect(waitUntil { observer.messages(on: "tripod/g/cmd").count == 1 })
        let command = try #require(observer.messages(on: "tripod/g/cmd").first?.payload)
        #expect(command.contains("\"line\":\"fleet arm \(id) ") && command.contains("bracket ev 3 1\"") && command.contains("\"at\":"), "\(command)")
        // Duplicates: QoS 1 delivering it again, and the same shot under another message id.
        try observer.publish("tripod/g/cmd", command)
        try observer.publish("tripod/g/cmd", command.replacingOccurrences(of: "\"id\":\"\(id)\"", with: "\"id\":\"again\""))
        try observer.publish("tripod/g/cmd", "{\"id\":\"after\",\"line\":\"get zoom\"}")
        #expect(fleet.pump { fleet.rigs.allSatisfy { observer.replies(FleetTopics(group: "g", rig: $0.name), id: "after").count == 1 } })
        fleet.advance(by: .milliseconds(3500))
        #expect(fleet.pump { fleet["r1"].output.lines.contains { $0.hasPrefix("event fleet.shot ") } }, "\(fleet["r1"].output.lines)")
        let summary = fields(try #require(fleet["r1"].output.lines.first { $0.hasPrefix("event fleet.shot ") }))
        #expect(summary["asked"] == "3" && summary["answered"] == "3" && summary["missing"] == "none" && summary["failed"] == "none", "\(summary)")
        #expect(summary["untrusted"] == "r3", "\(summary)")
        // No rig answered the duplicates, and each took one bracket.
        for rig in fleet.rigs {
            let topics = FleetTopics(group: "g", rig: rig.name)
            #expect(observer.replies(topics, id: id).count == 1, "\(rig.name): \(observer.replies(topics, id: id))")
            #expect(observer.replies(topics, id: "again").isEmpty, "\(rig.name)")
            #expect(fleet.loop.perform { rig.supervisor.captureService.bracketsSaved } == 1, "\(rig.name)")
        }
        // The report, next to the sender's own captures.
        let path = try #require(summary["report"])
        #expect(path.hasSuffix("/SHOT_\(id).json"), "\(path)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fleet["r1"].captures + "/" + path))) as? [String: Any])
        #expect(report["asked"] as? [String] == ["r1", "r2", "r3"])
        #expect(report["answered"] as? [String] == ["r1", "r2", "r3"])
        #expect(report["missing"] as? [String] == [])
        #expect(report["untrusted"] as? [String] == ["r3"])
        let rigs = try #require(report["rigs"] as? [String: [String: Any]])
        var offsets: [Double] = []
        for rig in fleet.rigs {
            let entry = try #require(rigs[rig.name], "\(rig.name) not in the report")
            #expect(entry["status"] as? String == "complete", "\(rig.name): \(entry)")
            #expect(entry["trusted"] as? Bool == (rig.name != "r3"), "\(rig.name): \(entry)")
            #expect((entry["files"] as? [String])?.count == 6, "\(rig.name): a DNG and a JPEG for each of 3 frames: \(entry)")
            // The rig's own sidecar: the shot, its instant, the first exposure, its offset, the clock.
            let sidecars = try rig.sidecars()
            #expect(sidecars.count == 1, "\(rig.name): \(sidecars.map(\.id))")
            let sidecar = try #require(sidecars.first)
            let record = try #require(sidecar.shot, "\(rig.name): no shot in the sidecar")
            #expect(record.id == id)
            #expect(record.clock == (rig.name == "r3" ? "unsynchronised" : "synchronised"))
            let first = try #require(record.firstExposureWallClockNanoseconds)
            let offset = first - record.targetWallClockNanoseconds
            let frame = rig.frameNanoseconds
            #expect(frame > 0)
            #expect(offset >= 0 && offset < frame, "\(rig.name): first exposure \(offset) ns after the instant; a frame is \(frame) ns")
            #expect(record.firstExposureSource == "FrameWallClock")
            #expect(sidecar.frames.allSatisfy { ($0.wallClockNanoseconds ?? 0) >= record.targetWallClockNanoseconds }, "\(rig.name)")
            #expect(sidecar.frames.compactMap(\.wallClockNanoseconds).min() == first)
            let reported = try #require(entry["offsetMicroseconds"] as? Double)
            #expect(abs(reported - Double(offset) / 1000) < 0.1, "\(rig.name): report \(reported) µs, sidecar \(offset) ns")
            offsets.append(reported)
        }
        let skew = try #require(report["maximumSkewMicroseconds"] as? Double)
        #expect(abs(skew - ((offsets.max() ?? 0) - (offsets.min() ?? 0))) < 0.01)
        print("fleet: shot of 3 rigs, offsets \(offsets.map { String(format: "%.0f", $0) }) µs, skew \(String(format: "%.0f", skew)) µs, a frame \(fleet["r1"].frameNanoseconds / 1000) µs (manual clock)")
    }

    /// Frame sync (the simulated camera doing the fork's rpi.sync over UDP on the loopback): r1
    /// serves, r2 and r3 follow; once ready each client's measured alignment is under 50 µs, a shot
    /// sent from a client is moved to mid-frame, every rig takes the same frame, and the report's
    /// skew is under 100 µs, with each rig's sync in its entry and its sidecar.
    @Test func withFrameSyncEveryRigTakesTheSameFrame() throws {
        let fleet = try LoopFleet(names: ["r1", "r2", "r3"], frameSync: ["r1": .server, "r2": .client, "r3": .client])
        defer { fleet.rigs.forEach { $0.stop() }; fleet.removeWork() }
        #expect(fleet.waitUntilEveryRigSeesEveryRig())
        fleet.advance(by: .seconds(5), step: .milliseconds(10))
        for rig in fleet.rigs {
            let status = fields(try #require(rig.type("status").last))
            #expect(status["sync"] == (rig.name == "r1" ? "server" : "client") && status["sync.ready"] == "yes" && status["sync.fps"] == "30",
                    "\(rig.name): \(status)")
            if rig.name != "r1" {
                let alignment = try #require(status["sync.alignment.us"].flatMap(Int.init), "\(rig.name): \(status)")
                #expect(abs(alignment) < 50, "\(rig.name): \(alignment) µs")
            }
        }
        let reply = try #require(fleet["r2"].type("fleet shot in 2s capture").last)
        let shot = fields(reply)
        #expect(reply.hasPrefix("ok shot=") && shot["sync"] == "mid-frame", "\(reply)")
        let id = try #require(shot["shot"])
        #expect(fleet.pump { fleet.rigs.allSatisfy { $0.fleet.armedShots.contains(id) } })
        fleet.advance(by: .milliseconds(3000), step: .milliseconds(10))
        #expect(fleet.pump { fleet["r2"].output.lines.contains { $0.hasPrefix("event fleet.shot ") } }, "\(fleet["r2"].output.lines)")
        let summary = fields(try #require(fleet["r2"].output.lines.first { $0.hasPrefix("event fleet.shot ") }))
        #expect(summary["answered"] == "3" && summary["failed"] == "none", "\(summary)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fleet["r2"].captures + "/" + (summary["report"] ?? "")))) as? [String: Any])
        let skew = try #require(report["maximumSkewMicroseconds"] as? Double)
        #expect(skew < 100, "skew \(skew) µs with frame sync")
        let rigs = try #require(report["rigs"] as? [String: [String: Any]])
        var offsets: [Double] = []
        for rig in fleet.rigs {
            let entry = try #require(rigs[rig.name])
            #expect(entry["sync"] as? String == (rig.name == "r1" ? "server" : "client") && entry["syncReady"] as? Bool == true, "\(rig.name): \(entry)")
            let offset = try #require(entry["offsetMicroseconds"] as? Double)
            let frame = Double(rig.frameNanoseconds) / 1000
            offsets.append(offset)
            // The instant is within 0.5 ms of mid-frame for any phase (FleetShotUnitTests), and the
            // rigs' frames within 50 µs of each other.
            #expect(abs(offset - frame / 2) < 600, "\(rig.name): mid-frame instant, first exposure \(offset) µs after it (a frame \(frame) µs)")
            let record = try #require(try rig.sidecars().first?.shot)
            #expect(record.sync == entry["sync"] as? String && record.syncReady == true)
        }
        print("fleet: shot of 3 rigs with frame sync, offsets \(offsets.map { String(format: "%.0f", $0) }) µs, skew \(String(format: "%.1f", skew)) µs (manual clock)")
    }

    /// A rig that went offline is named missing in the report; the others complete. A time in the
    /// past, too soon or too far is refused in words at the sender; a past instant is refused by
    /// a receiving rig with the earliest that would have worked; `fleet arm` is refused at a console.
    @Test func aMissingRigIsNamedAndBadInstantsAreRefused() throws {
        let fleet = try LoopFleet(names: ["r1", "r2", "r3"])
        defer { fleet.rigs.forEach { $0.stop() }; fleet.removeWork() }
        #expect(fleet.waitUntilEveryRigSeesEveryRig())
        let observer = try MQTTObserver(broker: fleet.broker)
        fleet["r3"].stop()
        #expect(fleet.pump { fleet["r1"].fleet.rigsSeen["r3"]?.state == "offline" })
        let r1 = fleet["r1"]
        let past = FleetCommandMessage.formatTime(r1.now.addingTimeInterval(-1))
        let refusedPast = try #require(r1.type("fleet shot at \(past) capture").last)
        #expect(refusedPast.hasPrefix("err out-of-range") && refusedPast.contains("in the past") && refusedPast.contains("earliest"), "\(refusedPast)")
        let soon = try #require(r1.type("fleet shot in 100ms capture").last)
        #expect(soon.hasPrefix("err out-of-range") && soon.contains("too soon"), "\(soon)")
        let far = try #require(r1.type("fleet shot in 7200s capture").last)
        #expect(far.hasPrefix("err out-of-range") && far.contains("60 minutes"), "\(far)")
        #expect(r1.type("fleet shot in 2s frobnicate").last?.hasPrefix("err usage") == true)
        #expect(r1.type("fleet shot in 2s record pause").last?.hasPrefix("err usage") == true)
        #expect(r1.type("fleet arm x \(past) capture").last?.hasPrefix("err unsupported fleet arm comes over MQTT only") == true)
        #expect(fleet.loop.perform { fleet.rigs.allSatisfy { $0.supervisor.captureService.running == nil } }, "a refused shot arms nothing")
        // A receiving rig refuses an instant already past by its clock.
        try observer.publish("tripod/g/cmd", "{\"id\":\"late\",\"line\":\"fleet arm late \(past) capture\"}")
        let r2 = FleetTopics(group: "g", rig: "r2")
        #expect(fleet.pump { !observer.replies(r2, id: "late").isEmpty })
        let late = try #require(observer.replies(r2, id: "late").first)
        #expect(late["ok"] as? Bool == false && late["code"] as? String == "out-of-range", "\(late)")
        #expect((late["message"] as? String)?.contains("earliest that would have worked") == true, "\(late)")
        // The shot, with r3 gone.
        let reply = try #require(r1.type("fleet shot in 1500ms capture").last)
        #expect(reply.hasPrefix("ok shot=") && fields(reply)["rigs"] == "r1,r2", "\(reply)")
        #expect(fleet.pump { fleet["r2"].supervisor.captureService.running != nil })
        fleet.advance(by: .milliseconds(2500))
        #expect(fleet.pump { r1.output.lines.contains { $0.hasPrefix("event fleet.shot ") } }, "\(r1.output.lines)")
        let summary = fields(try #require(r1.output.lines.first { $0.hasPrefix("event fleet.shot ") }))
        #expect(summary["missing"] == "r3" && summary["answered"] == "2" && summary["asked"] == "2", "\(summary)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: r1.captures + "/" + (summary["report"] ?? "")))) as? [String: Any])
        #expect(report["missing"] as? [String] == ["r3"])
        #expect(report["offlineWhenSent"] as? [String] == ["r3"])
        let rigs = try #require(report["rigs"] as? [String: [String: Any]])
        #expect(rigs["r3"]?["status"] as? String == "missing")
        #expect(rigs["r2"]?["status"] as? String == "complete")
        #expect(try fleet["r3"].sidecars().isEmpty)
        // fleet status: every rig seen, online or offline, its state and clock.
        let typed = r1.type("fleet status")
        #expect(typed.last == "ok broker=connected rigs=3 online=2", "\(typed)")
        // One line per rig (a long one wraps onto "#   " lines).
        let status = typed.reduce(into: [String]()) { lines, line in
            if line.hasPrefix("#   "), let last = lines.popLast() { lines.append(last + " " + line.dropFirst(4)) } else { lines.append(line) }
        }
        #expect(status.contains { $0.hasPrefix("# r3 offline") }, "\(status)")
        #expect(status.contains { $0.hasPrefix("# r2 online state=ready") && $0.contains("clock=synchronised error.us=250") }, "\(status)")
    }

    /// A rig whose disk is full: its part fails, the others complete, and the report says which.
    @Test func aRigWithAFullDiskFailsItsPartAndTheReportSaysWhich() throws {
        let fleet = try LoopFleet(names: ["r1", "r2", "r3"], fullDisk: ["r2"])
        defer { fleet.rigs.forEach { $0.stop() }; fleet.removeWork() }
        #expect(fleet.waitUntilEveryRigSeesEveryRig())
        let reply = try #require(fleet["r1"].type("fleet shot in 2s capture").last)
        #expect(reply.hasPrefix("ok shot="), "\(reply)")
        #expect(fleet.pump { ["r1", "r3"].allSatisfy { fleet[$0].supervisor.captureService.running != nil } })
        fleet.advance(by: .milliseconds(3000))
        #expect(fleet.pump { fleet["r1"].output.lines.contains { $0.hasPrefix("event fleet.shot ") } }, "\(fleet["r1"].output.lines)")
        let summary = fields(try #require(fleet["r1"].output.lines.first { $0.hasPrefix("event fleet.shot ") }))
        #expect(summary["failed"] == "r2" && summary["missing"] == "none" && summary["answered"] == "3", "\(summary)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fleet["r1"].captures + "/" + (summary["report"] ?? "")))) as? [String: Any])
        #expect(report["failed"] as? [String] == ["r2"])
        let rigs = try #require(report["rigs"] as? [String: [String: Any]])
        #expect(rigs["r2"]?["status"] as? String == "failed", "\(rigs["r2"] ?? [:])")
        #expect((rigs["r2"]?["reason"] as? String)?.contains("room") == true, "\(rigs["r2"] ?? [:])")
        #expect(rigs["r1"]?["status"] as? String == "complete" && rigs["r3"]?["status"] as? String == "complete")
        #expect(try fleet["r2"].sidecars().isEmpty)
        #expect(try fleet["r3"].sidecars().first?.shot?.id == fields(reply)["shot"])
    }

    /// `record start` and `record stop` as shots: each rig's recording begins with the first frame
    /// at or after the start's instant and ends with the last frame before the stop's; the video's
    /// sidecar records the start shot.
    @Test func aRecordingStartsAndStopsAtSharedInstants() throws {
        let fleet = try LoopFleet(names: ["r1", "r2"])
        defer { fleet.rigs.forEach { $0.stop() }; fleet.removeWork() }
        #expect(fleet.waitUntilEveryRigSeesEveryRig())
        let r1 = fleet["r1"]
        let started = fields(try #require(r1.type("fleet shot in 2s record start").last))
        let startID = try #require(started["shot"], "\(started)")
        #expect(fleet.pump { fleet.rigs.allSatisfy { $0.supervisor.recorder.hasArmedShot == true } })
        fleet.advance(by: .milliseconds(2500))
        #expect(fleet.pump { r1.output.lines.contains { $0.hasPrefix("event fleet.shot id=\(startID) ") } }, "\(r1.output.lines)")
        let startSummary = fields(try #require(r1.output.lines.first { $0.hasPrefix("event fleet.shot id=\(startID) ") }))
        #expect(startSummary["answered"] == "2" && startSummary["failed"] == "none", "\(startSummary) \(r1.output.lines)")
        #expect(fleet.loop.perform { fleet.rigs.allSatisfy { $0.supervisor.recorder.isRecording == true } })
        let stopped = fields(try #require(r1.type("fleet shot in 2s record stop").last))
        let stopID = try #require(stopped["shot"], "\(stopped)")
        fleet.advance(by: .milliseconds(3500))
        #expect(fleet.pump { r1.output.lines.contains { $0.hasPrefix("event fleet.shot id=\(stopID) ") }
            && fleet.rigs.allSatisfy { $0.supervisor.recorder.isRecording == false } }, "\(r1.output.lines)")
        let stopSummary = fields(try #require(r1.output.lines.first { $0.hasPrefix("event fleet.shot id=\(stopID) ") }))
        #expect(stopSummary["answered"] == "2" && stopSummary["failed"] == "none", "\(stopSummary)")
        let startReport = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: r1.captures + "/" + (startSummary["report"] ?? "")))) as? [String: Any])
        let stopReport = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: r1.captures + "/" + (stopSummary["report"] ?? "")))) as? [String: Any])
        let startRigs = try #require(startReport["rigs"] as? [String: [String: Any]])
        let stopRigs = try #require(stopReport["rigs"] as? [String: [String: Any]])
        for rig in fleet.rigs {
            let videos = captureFiles(rig.captures).filter { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("VID_") && $0.hasSuffix(".json") }
            #expect(videos.count == 1, "\(rig.name): \(videos)")
            let path = try #require(videos.first)
            let sidecar = try JSONDecoder().decode(VideoSidecar.self, from: Data(contentsOf: URL(fileURLWithPath: rig.captures + "/" + path)))
            let shot = try #require(sidecar.shot, "\(rig.name): no shot in the video's sidecar")
            #expect(shot.id == startID)
            #expect(sidecar.framesWritten > 10, "\(rig.name): \(sidecar.framesWritten) frames")
            let frame = (sidecar.lastSensorTimestampNanoseconds - sidecar.firstSensorTimestampNanoseconds) / Int64(max(1, sidecar.framesWritten - 1))
            let first = try #require(shot.firstExposureWallClockNanoseconds)
            let offset = first - shot.targetWallClockNanoseconds
            #expect(offset >= 0 && offset < frame + frame / 10, "\(rig.name): first frame \(offset) ns after the start; a frame is \(frame) ns")
            #expect(abs(Double(first) / 1e9 - (sidecar.startWallClockSeconds ?? 0)) < 1e-6)
            #expect(startRigs[rig.name]?["sidecar"] as? String == path, "\(rig.name): \(startRigs[rig.name] ?? [:])")
            // The stop: the last frame written began before the stop's instant, the next one at or after it.
            let stopOffset = try #require(stopRigs[rig.name]?["offsetMicroseconds"] as? Double, "\(rig.name): \(stopRigs[rig.name] ?? [:])")
            #expect(stopOffset >= 0 && stopOffset * 1000 < Double(frame + frame / 10), "\(rig.name): stop \(stopOffset) µs after its instant")
            let stopTarget = try #require(FleetCommandMessage.parseTime(stopped["at"] ?? ""))
            let lastWall = sidecar.lastSensorTimestampNanoseconds + (first - sidecar.firstSensorTimestampNanoseconds)
            #expect(Double(lastWall) / 1e9 < stopTarget.timeIntervalSince1970, "\(rig.name): the last frame began after the stop's instant")
            #expect(Double(lastWall + frame + frame / 10) / 1e9 >= stopTarget.timeIntervalSince1970, "\(rig.name): frames before the stop's instant are missing")
        }
    }

    /// The broker restarts while a shot is armed, and the shot's command is delivered again after the
    /// rigs reconnect (as QoS 1 may): each rig still takes the shot once and answers once.
    @Test func aShotRunsOnceAcrossABrokerRestart() throws {
        let fleet = try LoopFleet(names: ["b1", "b2"])
        defer { fleet.rigs.forEach { $0.stop() }; fleet.removeWork() }
        #expect(fleet.waitUntilEveryRigSeesEveryRig())
        let before = try MQTTObserver(broker: fleet.broker)
        let reply = try #require(fleet["b1"].type("fleet shot in 20s capture").last)
        let id = try #require(fields(reply)["shot"], "\(reply)")
        #expect(fleet.pump { fleet.rigs.allSatisfy { $0.fleet.armedShots.contains(id) } })
        #expect(waitUntil { before.messages(on: "tripod/g/cmd").count == 1 })
        let command = try #require(before.messages(on: "tripod/g/cmd").first?.payload)
        fleet.broker.stop()
        try fleet.broker.start()
        // The rigs reconnect (libmosquitto's own retry, then the client's on the loop) and say they are
        // online again, however long a busy machine takes (a minute at most: a safety net).
        let observer = try MQTTObserver(broker: fleet.broker)
        let reconnected = waitUntil {
            fleet.advance(by: .milliseconds(100), step: .milliseconds(20))
            return fleet.rigs.allSatisfy { observer.messages(on: "tripod/g/\($0.name)/state").last?.payload == "online" }
        }
        #expect(reconnected)
        try observer.publish("tripod/g/cmd", command)  // delivered again after the reconnect
        fleet.advance(by: .seconds(21), step: .milliseconds(20))
        #expect(fleet.pump { fleet["b1"].output.lines.contains { $0.hasPrefix("event fleet.shot ") } }, "\(fleet["b1"].output.lines)")
        let summary = fields(try #require(fleet["b1"].output.lines.first { $0.hasPrefix("event fleet.shot ") }))
        #expect(summary["answered"] == "2" && summary["failed"] == "none", "\(summary)")
        for rig in fleet.rigs {
            #expect(fleet.loop.perform { rig.supervisor.captureService.bracketsSaved } == 1, "\(rig.name) took the shot once")
            #expect(try rig.sidecars().count == 1, "\(rig.name)")
        }
        #expect(observer.replies(FleetTopics(group: "g", rig: "b2"), id: id).count == 1, "b2 answered once")
    }

    /// A broker that shuts down publishes every client's Last Will, the sender's own included: the
    /// sender's part answers locally, so hearing `offline` for itself never ends the shot without it.
    @Test func theSendersOwnPartCountsWhenItsLastWillIsHeard() throws {
        let fleet = try LoopFleet(names: ["s1", "s2"])
        defer { fleet.rigs.forEach { $0.stop() }; fleet.removeWork() }
        #expect(fleet.waitUntilEveryRigSeesEveryRig())
        let observer = try MQTTObserver(broker: fleet.broker)
        let reply = try #require(fleet["s1"].type("fleet shot in 3s capture").last)
        let id = try #require(fields(reply)["shot"], "\(reply)")
        #expect(fleet.pump { fleet.rigs.allSatisfy { $0.fleet.armedShots.contains(id) } })
        for rig in ["s1", "s2"] { try observer.publish("tripod/g/\(rig)/state", "offline") }
        #expect(fleet.pump { fleet["s1"].fleet.rigsSeen["s1"]?.state == "offline" && fleet["s1"].fleet.rigsSeen["s2"]?.state == "offline" })
        #expect(!fleet["s1"].output.lines.contains { $0.hasPrefix("event fleet.shot ") }, "the shot ended before the sender's own part")
        fleet.advance(by: .milliseconds(3500))
        #expect(fleet.pump { fleet["s1"].output.lines.contains { $0.hasPrefix("event fleet.shot ") } }, "\(fleet["s1"].output.lines)")
        let summary = fields(try #require(fleet["s1"].output.lines.first { $0.hasPrefix("event fleet.shot ") }))
        #expect(summary["missing"]?.contains("s1") == false, "\(summary)")
        #expect(summary["report"]?.hasPrefix("20") == true, "next to the sender's own captures: \(summary)")
    }

    /// A rig killed with `kill -9` after it armed a shot: its Last Will marks it offline, the sender
    /// stops waiting for it, and the report names it missing while the others complete.
    @Test func aRigKilledDuringAShotIsNamedMissing() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let rigs = [try FleetRig(broker: broker.port, rig: "k1"), try FleetRig(broker: broker.port, rig: "k2"), try FleetRig(broker: broker.port, rig: "k3")]
        defer { rigs.forEach { $0.stop(); $0.removeWork() } }
        for rig in rigs { #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)") }
        #expect(waitUntil { rigs.allSatisfy { $0.ctl("fleet status")?.hasPrefix("ok broker=connected rigs=3 online=3") == true } },
                "\(rigs[0].ctl("fleet status") ?? "")")
        let reply = try #require(rigs[0].ctl("fleet shot in 4s capture"))
        let id = try #require(fields(reply)["shot"], "\(reply)")
        // k3 armed (its fleet.armed event is on the broker), then dies before the instant.
        #expect(waitUntil { observer.messages(on: "tripod/g/k3/events").contains { $0.payload.contains("fleet.armed") && $0.payload.contains(id) } })
        rigs[2].kill9()
        #expect(waitUntil(seconds: 30) { observer.messages(on: "tripod/g/k3/state").last?.payload == "offline" }, "the Last Will")
        #expect(waitUntil(seconds: 60) { captureFiles(rigs[0].captures).contains { $0.hasSuffix("/SHOT_\(id).json") } }, "\(rigs[0].log)")
        let path = try #require(captureFiles(rigs[0].captures).first { $0.hasSuffix("/SHOT_\(id).json") })
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: rigs[0].captures + "/" + path))) as? [String: Any])
        #expect(report["asked"] as? [String] == ["k1", "k2", "k3"], "\(report)")
        #expect(report["answered"] as? [String] == ["k1", "k2"], "\(report)")
        #expect(report["missing"] as? [String] == ["k3"], "\(report)")
        let entries = try #require(report["rigs"] as? [String: [String: Any]])
        #expect(entries["k1"]?["status"] as? String == "complete" && entries["k2"]?["status"] as? String == "complete", "\(entries)")
        #expect(entries["k3"]?["status"] as? String == "missing", "\(entries)")
    }

    /// The same with `tripod run --board sim-small` processes (the wiring `tripod run` does, the real
    /// loop and clock): the shot reaches both rigs and the sender's report lists them. Real time here,
    /// so only what no load can change is checked: no rig's first exposure is before the instant
    /// (a busy machine can only make it later).
    @Test func aShotBetweenTripodRunProcesses() throws {
        let broker = try Broker()
        let observer = try MQTTObserver(broker: broker)
        let rigs = [try FleetRig(broker: broker.port, rig: "p1"), try FleetRig(broker: broker.port, rig: "p2")]
        defer { rigs.forEach { $0.stop(); $0.removeWork() } }
        for rig in rigs { #expect(waitUntil { observer.sawOnlineThenStatus(rig.topics) }, "\(rig.log)") }
        // Each rig has seen the other's state once it published a status after the other's online.
        #expect(waitUntil { rigs.allSatisfy { $0.ctl("fleet status")?.hasPrefix("ok broker=connected rigs=2 online=2") == true } },
                "\(rigs[0].ctl("fleet status") ?? "")")
        let reply = try #require(rigs[0].ctl("fleet shot in 3s capture"))
        #expect(reply.hasPrefix("ok shot=") && fields(reply)["rigs"] == "p1,p2", "\(reply)")
        let id = try #require(fields(reply)["shot"])
        #expect(waitUntil(seconds: 90) { captureFiles(rigs[0].captures).contains { $0.hasSuffix("/SHOT_\(id).json") } }, "\(rigs[0].log)")
        let path = try #require(captureFiles(rigs[0].captures).first { $0.hasSuffix("/SHOT_\(id).json") })
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: rigs[0].captures + "/" + path))) as? [String: Any])
        #expect(report["answered"] as? [String] == ["p1", "p2"], "\(report)")
        let entries = try #require(report["rigs"] as? [String: [String: Any]])
        for rig in rigs {
            let offset = try #require(entries[rig.topics.rig]?["offsetMicroseconds"] as? Double, "\(entries)")
            #expect(offset >= 0, "\(rig.topics.rig): first exposure \(offset) µs before the instant")
            print("fleet: tripod run \(rig.topics.rig): first exposure \(String(format: "%.0f", offset)) µs after the instant (real time)")
        }
        // The report is written before the summary is logged: wait for the line, not assume it.
        #expect(waitUntil(seconds: 30) { rigs[0].log.contains("fleet.shot id=\(id)") }, "the summary is logged when the console that asked has gone")
    }

    /// A rig asked to stop while its shot waits for a far instant stops now (its part fails,
    /// answered as such), rather than holding the stop until the instant.
    @Test func aStopDoesNotWaitForAShotsInstant() throws {
        let fleet = try LoopFleet(names: ["r1", "r2"])
        defer { fleet.rigs.forEach { $0.stop() }; fleet.removeWork() }
        #expect(fleet.waitUntilEveryRigSeesEveryRig())
        let observer = try MQTTObserver(broker: fleet.broker)
        let answer = try #require(fleet["r1"].type("fleet shot in 30s capture").last)
        let id = try #require(fields(answer)["shot"], "\(answer)")
        let r2 = fleet["r2"]
        #expect(fleet.pump { r2.supervisor.captureService.running != nil })
        fleet.loop.perform { r2.supervisor.requestStop(reason: "test") }
        fleet.advance(by: .milliseconds(200))
        #expect(fleet.pump { r2.supervisor.state == .stopped }, "the stop waited for the shot")
        let topics = FleetTopics(group: "g", rig: "r2")
        #expect(waitUntil { !observer.replies(topics, id: id).isEmpty })
        let reply = try #require(observer.replies(topics, id: id).first)
        let values = reply["values"] as? [String: String] ?? [:]
        #expect(values["status"] == "failed" && values["reason"]?.contains("stopping") == true, "\(reply)")
    }
}
