import Foundation
import Hardware
import Media
import Testing
import TestSupport
@testable import Supervisor

/// The process-level cells of the fault matrix: `kill -9` in each phase (then a restart on the same
/// captures), and a stuck loop seen by the watchdog on a notify socket. Each prints a FAULT-CELL line.
@Suite(.serialized) struct ProcessFaultTests {
    /// Visible files under the dated folders, hidden temp files, and image files no sidecar names
    /// (or whose size differs from the sidecar's record).
    static func disk(_ captures: String) -> (images: Int, temps: Int, sidecars: [String], mismatched: [String]) {
        let fm = FileManager.default
        var images = 0, temps = 0, statuses: [String] = [], mismatched: [String] = []
        var named: [String: Int] = [:]
        var onDisk: [String: Int] = [:]
        for folder in (try? fm.contentsOfDirectory(atPath: captures)) ?? [] {
            let path = captures + "/" + folder
            for name in (try? fm.contentsOfDirectory(atPath: path)) ?? [] {
                if name.hasPrefix(".") && name.contains(".tmp-") { temps += 1; continue }
                let full = path + "/" + name
                let size = (try? fm.attributesOfItem(atPath: full)[.size] as? Int) ?? nil
                if name.hasSuffix(".json"), let data = fm.contents(atPath: full), let s = try? BracketSidecar.decode(Array(data)) {
                    statuses.append(s.result.status.rawValue)
                    for frame in s.frames { for file in frame.files { named[folder + "/" + file.name] = file.bytes } }
                }
                if name.hasSuffix(".dng") || name.hasSuffix(".jpg") { images += 1; onDisk[folder + "/" + name] = size ?? -1 }
            }
            if folder.hasPrefix(".") && folder.contains(".tmp-") { temps += 1 }
        }
        for (file, size) in onDisk where named[file] != nil && named[file] != size { mismatched.append(file) }
        for (file, _) in named where onDisk[file] == nil { mismatched.append("missing " + file) }
        return (images, temps, statuses, mismatched)
    }

    @Test(arguments: ["idle", "bracket", "writing", "recording"])
    func killNineThenRestart(phase: String) throws {
        let first = try RunningTripod()
        let work = first.work
        defer { try? FileManager.default.removeItem(atPath: work) }
        #expect(first.ask("set capture.format both")?.hasPrefix("ok") == true)
        #expect(first.waitForFrames(), "the camera never streamed")
        var video: String?
        if phase == "recording" {
            let started = first.ask("record start") ?? "none"
            #expect(started.hasPrefix("ok recording="), "\(started)")
            video = SimulatedBoardHarness.field("file", in: started).map { first.captures + "/" + $0 }
            // Fragments reach the disk at each keyframe (1 s of video): wait for 2 s of encoded
            // frames, however slowly a loaded machine runs the child, so at least one is written.
            _ = waitUntil(seconds: 120, every: .milliseconds(100)) {  // a safety net, not a verdict on speed
                let status = first.ask("status") ?? ""
                return Int(SimulatedBoardHarness.field("recording.frames", in: status) ?? "") ?? 0 >= 60
            }
        } else if phase != "idle" {
            #expect(first.ask("bracket ev 31 0.2")?.hasPrefix("ok bracket=") == true)
            if phase == "writing" {
                // Until the first file (or its temp file) is on disk: frames are being encoded and written.
                _ = waitUntil(every: .milliseconds(2)) {
                    let d = Self.disk(first.captures)
                    return d.images + d.temps > 0
                }
            }
        }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let killed = Self.disk(first.captures)
        // A recording killed mid-way leaves a fragmented MP4 that plays up to its last fragment.
        let playable = try video.map { try probe($0).framePTS.count }
        let second = try RunningTripod(work: work)
        let status = second.ask("status") ?? "none"
        let after = Self.disk(second.captures)
        let next = second.ask("capture") ?? "none"
        // A loaded machine encodes slowly: wait, within reason.
        let done = waitUntil(seconds: 120) {
            Self.disk(second.captures).sidecars.filter { $0 == "complete" }.count > killed.sidecars.filter { $0 == "complete" }.count
        }
        print("FAULT-CELL kill-9 | \(phase) | said: (killed: nothing) | restart: \(status.prefix(24))… "
              + "| recovered: \(done ? "yes" : "no: " + next) | disk after kill: \(killed.images) image(s), \(killed.temps) temp file(s), "
              + "sidecars \(killed.sidecars)\(playable.map { "; the video plays \($0) frame(s)" } ?? ""); "
              + "after restart: \(after.temps) temp file(s), mismatched \(after.mismatched)")
        if let playable { #expect(playable >= 15, "at least the fragments before the kill play") }
        #expect(status.hasPrefix("ok state=ready"))
        #expect(after.temps == 0, "the restart removes the temp files a kill left, in the dated folders too")
        #expect(after.mismatched.isEmpty, "every file a sidecar names is complete: \(after.mismatched)")
        #expect(done, "a capture after the restart completes")
    }

    /// The loop stuck for 3 s (`sim hang 3`) while idle, in a long bracket, or while recording: the
    /// watchdog pings stop (systemd would restart the service); when the loop runs again the pings
    /// resume, the bracket ends, and the recording stops with its lost frames counted.
    @Test(arguments: ["idle", "bracket", "recording"])
    func aStuckLoopStopsTheWatchdogPingsOnTheNotifySocket(phase: String) throws {
        let manager = try FakeNotifySocket()
        let tripod = try RunningTripod(environment: ["NOTIFY_SOCKET": manager.path, "WATCHDOG_USEC": "1000000"])
        defer { try? FileManager.default.removeItem(atPath: tripod.work) }
        var pings: [Double] = []
        let start = Date()
        /// Collects pings until `done` holds; `seconds` is a safety net for a process that stopped
        /// pinging, not a measure of speed (a busy machine only makes it wait longer).
        func collect(until done: () -> Bool, atMost seconds: Double = 60) {
            let end = Date().addingTimeInterval(seconds)
            while true {
                for message in manager.drain() where message.contains("WATCHDOG=1") { pings.append(Date().timeIntervalSince(start)) }
                if done() || Date() >= end { return }
                usleep(10_000)
            }
        }
        switch phase {
        case "bracket": #expect(tripod.ask("bracket manual 1s@100 1s@100 1s@100 1s@100")?.hasPrefix("ok bracket=") == true)
        case "recording": #expect(tripod.ask("record start")?.hasPrefix("ok recording=") == true)
        default: break
        }
        collect(until: { pings.count >= 2 })
        let before = pings.count
        // The reply to `sim hang 3` comes once the loop runs again: the pings after it are the
        // resumed ones.
        let hung = LockedValue<String?>(nil)
        let answeredAt = LockedValue<Double?>(nil)
        let asker = Thread {
            let reply = tripod.ask("sim hang 3")
            answeredAt.withLock { $0 = Date().timeIntervalSince(start) }
            hung.withLock { $0 = reply }
        }
        asker.start()
        collect(until: { answeredAt.current != nil })
        let resumedAfter = answeredAt.current ?? .infinity
        collect(until: { pings.contains { $0 > resumedAfter } })
        let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }
        let longest = gaps.max() ?? 0
        let resumed = pings.filter { $0 > resumedAfter }.count
        var after = "ok"
        switch phase {
        case "bracket":
            // The bracket ends by itself afterwards (done, or failed saying why): never stuck.
            // A safety net: four 1 s frames, then the writes.
            let ended = waitUntil(seconds: 120, every: .milliseconds(100)) {
                let idle = (tripod.ask("status") ?? "").contains("capture=idle")
                // Read on as systemd does: a full notify socket would block the supervisor's sd_notify.
                _ = manager.drain()
                return idle
            }
            after = (tripod.ask("status").flatMap { SimulatedBoardHarness.field("brackets", in: $0) }).map { "brackets \($0)" } ?? "no status"
            #expect(ended, "the bracket ends after the loop runs again")
        case "recording":
            after = tripod.ask("record stop") ?? "none"
            #expect(after.hasPrefix("ok stopping="), "\(after)")
        default: break
        }
        print("FAULT-CELL stuck-loop | \(phase) | said: \(hung.current ?? "nothing yet") | pings before \(before), longest gap "
              + String(format: "%.2f s", longest) + " (WATCHDOG_USEC 1 s: systemd would restart the service) | resumed after: \(resumed) ping(s) | then: \(after)")
        #expect(before >= 2, "pings every half timeout while the loop runs")
        #expect(longest >= 2.5, "no ping while the loop is stuck: gaps \(gaps)")
        #expect(resumed >= 1, "pings resume when the loop runs again")
        // Stop it while still reading the notify socket (its STOPPING=1 must not find it full).
        tripod.process.terminate()
        _ = waitUntil { _ = manager.drain(); return !tripod.process.isRunning }
    }
}
