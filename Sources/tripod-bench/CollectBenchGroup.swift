import Foundation
import Hardware
import Settings
import TestSupport

/// One group of release `tripod run` rigs for `tools/bench collect`, each its own process serving
/// its remote on 127.0.0.1 with the collection key, on the bench's mosquitto; and one shot's
/// collection by `tripod collect`, then by curl (the reference).
final class CollectBenchGroup {
    let name: String
    let rigs: [RunningTripod]
    /// Each rig's `http://127.0.0.1:PORT`, in the order of `rigs` (r1, r2, ...).
    let remotes: [String]
    /// Each rig's remote token (curl's `Authorization: Bearer`).
    let tokens: [String]
    let brokerPort: Int

    init(name: String, board: String, count: Int, brokerPort: Int, key: String) throws {
        self.name = name
        self.brokerPort = brokerPort
        var rigs: [RunningTripod] = []
        for i in 1...count {
            rigs.append(try RunningTripod(board: board, config: [
                "\(SettingsTable.fleetBroker.key) = mqtt://127.0.0.1:\(brokerPort)", "\(SettingsTable.fleetGroup.key) = \(name)", "\(SettingsTable.fleetRig.key) = r\(i)",
                // JPEG + lossless DNG: the defaults.
                "\(SettingsTable.remoteListen.key) = 127.0.0.1:0", "\(SettingsTable.remoteCollect.key) = \(key)",
            ]))
        }
        self.rigs = rigs
        let sender = rigs[0]
        guard waitUntil(seconds: 120, { Int(SimulatedBoardField.value("online", in: sender.ask("fleet status") ?? "") ?? "") == count }) else {
            throw HardwareError(.timeout, "collect: \(name): the sender does not see \(count) rigs online")
        }
        remotes = rigs.compactMap { SimulatedBoardField.value("remote", in: $0.ask("status") ?? "") }
        tokens = rigs.compactMap { SimulatedBoardField.value("token", in: $0.ask("remote token") ?? "") }
        guard remotes.count == count, tokens.count == count else { throw HardwareError(.timeout, "collect: \(name): not every rig serves its remote") }
    }

    func remove() { for rig in rigs { try? FileManager.default.removeItem(atPath: rig.work) } }

    /// `fleet shot in 2s capture` from r1; the shot's id and instant once the sender's report is
    /// written (every rig's reply in).
    func shoot(reportWithin seconds: Double) throws -> (id: String, at: Date) {
        let sender = rigs[0]
        let reply = sender.ask("fleet shot in 2s capture") ?? "none"
        guard reply.hasPrefix("ok"), let id = SimulatedBoardField.value("shot", in: reply),
              let at = SimulatedBoardField.value("at", in: reply).flatMap(FleetTime.parse) else {
            throw HardwareError(.invalidArgument, "collect: fleet shot: \(reply)")
        }
        guard waitUntil(seconds: seconds, { FleetBenchmark.report(id, under: sender.captures) != nil }) else {
            throw HardwareError(.timeout, "collect: no report of \(id)")
        }
        return (id, at)
    }

    /// One shot collected by a `tripod collect --shot ID` process into `into`, then the same
    /// files fetched by `curl --parallel --parallel-max 8`.
    struct Sample {
        /// The whole collect process, wall seconds.
        var process: Double
        /// Its start until the broker's retained state was in (its `ready` line).
        var ready: Double
        /// Its collection phase: parts, transfers, checks, renames (its summary's `seconds`).
        var phase: Double
        /// The whole curl process, wall seconds.
        var curl: Double
        /// From the shot's instant to the collector's exit.
        var fromInstant: Double
        var megabytes: Double
        /// CPU seconds (user + system) of the collector and of curl.
        var collectCPU: Double
        var curlCPU: Double
    }

    /// Each shot's files as curl fetches them (rig index, name, path on the rig, bytes), from the
    /// first collection's manifest.
    private var curlFiles: [String: [(rig: Int, name: String, path: String, bytes: Int)]] = [:]

    /// `curlFirst`: curl's turn before the collector's (the shot collected once already), so that
    /// neither is always the one that runs right after something else.
    ///
    /// `othersNice`: the collector and curl run at this nice value (`nice -n`), as the other
    /// machines they are on a real fleet.
    func collect(_ shot: (id: String, at: Date), tripod: String, key: String, into: String, curlFirst: Bool = false,
                 othersNice: Int32 = 0) throws -> Sample {
        var curl: (seconds: Double, cpu: Double)?
        if curlFirst, curlFiles[shot.id] != nil { curl = try curlFetch(shot.id, into: into + "-curl", nice: othersNice) }
        let cpuBefore = Self.childrenCPUSeconds()
        let started = Date()
        let (status, output) = Self.run(tripod, ["collect", "--broker", "mqtt://127.0.0.1:\(brokerPort)", "--group", name, "--into", into,
                                                 "--key", key, "--shot", shot.id, "--deadline", "120"], nice: othersNice)
        let ended = Date()
        let cpuCollect = Self.childrenCPUSeconds() - cpuBefore
        guard status == 0 else { throw HardwareError(.invalidArgument, "collect: tripod collect --shot \(shot.id) ended with \(status)") }
        let lines = output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let phase = (lines.last { $0["type"] as? String == "summary" }?["seconds"] as? Double) ?? .nan
        let ready = (lines.first { $0["type"] as? String == "ready" }?["seconds"] as? Double) ?? .nan
        if curlFiles[shot.id] == nil {
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(into)/\(shot.id)/manifest.json"))) as? [String: Any]
            var list: [(rig: Int, name: String, path: String, bytes: Int)] = []
            for (rig, entry) in ((manifest?["rigs"] as? [String: [String: Any]]) ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard let index = Int(rig.dropFirst()), index >= 1, index <= rigs.count else { continue }
                for file in (entry["files"] as? [[String: Any]]) ?? [] {
                    guard let path = file["rigPath"] as? String, let name = file["name"] as? String else { continue }
                    list.append((index, name, path, (file["bytes"] as? Int) ?? 0))
                }
            }
            curlFiles[shot.id] = list
        }
        if curl == nil { curl = try curlFetch(shot.id, into: into + "-curl", nice: othersNice) }
        try? FileManager.default.removeItem(atPath: into)
        try? FileManager.default.removeItem(atPath: into + "-curl")
        return Sample(process: ended.timeIntervalSince(started), ready: ready, phase: phase, curl: curl?.seconds ?? .nan,
                      fromInstant: ended.timeIntervalSince(shot.at), megabytes: Double((curlFiles[shot.id] ?? []).reduce(0) { $0 + $1.bytes }) / 1e6,
                      collectCPU: cpuCollect, curlCPU: curl?.cpu ?? .nan)
    }

    /// The shot's files fetched by `curl --parallel --parallel-max 8` into `into`, with each rig's
    /// own remote token (the collection key is never a bearer secret: its holder signs each
    /// request); its wall and CPU seconds.
    private func curlFetch(_ shot: String, into: String, nice: Int32) throws -> (seconds: Double, cpu: Double) {
        var arguments = ["-s", "--parallel", "--parallel-max", "8"]
        var previous = 0
        for file in curlFiles[shot] ?? [] {
            if file.rig != previous {
                arguments += (previous == 0 ? [] : ["--next"]) + ["--fail", "-H", "Authorization: Bearer " + tokens[file.rig - 1]]
                previous = file.rig
            }
            arguments += ["-o", "\(into)/r\(file.rig)/\(file.name)", "--create-dirs", "\(remotes[file.rig - 1])/captures/\(file.path)"]
        }
        let cpuBefore = Self.childrenCPUSeconds()
        let started = Date()
        let (status, _) = Self.run("/usr/bin/curl", arguments, nice: nice)
        let seconds = Date().timeIntervalSince(started)
        guard status == 0 else { throw HardwareError(.invalidArgument, "collect: curl ended with \(status)") }
        return (seconds, Self.childrenCPUSeconds() - cpuBefore)
    }

    /// Sets every thread of `rig` to nice value `nice` (setpriority on each task of
    /// /proc/PID/task; Linux keeps the value per thread, and threads started later inherit it from
    /// the one that starts them). It models the rig being another machine.
    static func renice(_ rig: RunningTripod, to nice: Int32) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(rig.process.processIdentifier)/task")) ?? []
        for task in tasks.compactMap({ UInt32($0) }) { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), task, nice) }
    }

    /// User + system CPU seconds of every child waited for so far (getrusage RUSAGE_CHILDREN).
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Runs `executable` with `arguments` (TestSupport's `runProcess`); its exit status and
    /// standard output, -1 and nothing when it cannot be started.
    /// `nice` above 0 runs it under `nice -n`.
    static func run(_ executable: String, _ arguments: [String], nice: Int32 = 0) -> (Int32, String) {
        let (executable, arguments) = nice > 0 ? ("/usr/bin/nice", ["-n", String(nice), executable] + arguments) : (executable, arguments)
        guard let (status, output) = try? runProcess(executable, arguments) else { return (-1, "") }
        return (status, String(decoding: output, as: UTF8.self))
    }
}
