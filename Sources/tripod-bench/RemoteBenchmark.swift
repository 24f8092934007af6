import Foundation
import Hardware
import Settings
import TestSupport

/// The browser remote against the release `tripod run --board sim` on the real clock, streaming
/// 1920x1080@30: preview latency on the loopback (a frame's SensorTimestamp, CLOCK_MONOTONIC, to the
/// last byte of its JPEG read by the client), frames per second encoded (`remote preview`: the camera
/// side's work) and delivered, and tripod's CPU per client with 1, 4 and 16 MJPEG clients, and the
/// dropped frames of a 1080p30 recording with 16 clients watching (and what they received) beside
/// the same recording with none (the reference).
struct RemoteBenchmark: Benchmark {
    static let name = "remote"
    static let summary = "MJPEG preview latency p50/p99, fps and CPU with 1/4/16 clients; a 1080p30 recording's drops with 16 watching vs none"
    static let windowSeconds = 6.0
    static let recordSeconds = 8.0

    func run() throws -> BenchmarkReport {
        let tripod = try RunningTripod()
        func ask(_ line: String) throws -> String {
            let reply = tripod.ask(line)
            guard let reply, reply.hasPrefix("ok") else {
                throw HardwareError(.invalidArgument, "remote bench: \(line): \(reply ?? "no reply within 10 s")")
            }
            return reply
        }
        _ = try ask("format 1920x1080@30")
        _ = try ask("set \(SettingsTable.remoteListen.key) 127.0.0.1:0")
        let listen = try ask("get \(SettingsTable.remoteListen.key)")
        guard let port = listen.split(separator: " ").first(where: { $0.hasPrefix("active=") })
            .flatMap({ Int($0.split(separator: ":").last ?? "") }) else {
            throw HardwareError(.invalidArgument, "remote bench: \(listen)")
        }
        let token = String(try ask("remote token").dropFirst("ok token=".count))
        usleep(1_500_000)  // AE and AWB settle
        let pid = tripod.process.processIdentifier
        let idle = Self.cpuCores(pid: pid) { usleep(UInt32(Self.windowSeconds * 1e6)) }

        var rows: [[String]] = []
        var metrics: [String: Double] = ["cpu.idle.cores": idle]
        func cameraFrame() -> Int {
            (tripod.ask("status") ?? "").split(separator: " ").first { $0.hasPrefix("frame=") }.flatMap { Int($0.dropFirst(6)) } ?? 0
        }
        /// The preview's encodings so far (`remote preview`): the camera side's work for the clients.
        func encoded() -> Int {
            (tripod.ask("remote preview") ?? "").split(separator: " ").first { $0.hasPrefix("encoded=") }.flatMap { Int($0.dropFirst(8)) } ?? 0
        }
        for clients in [1, 4, 16] {
            var results: [ClientResult] = []
            let firstFrame = cameraFrame(), firstEncoded = encoded()
            let cores = Self.cpuCores(pid: pid) { results = Self.watch(clients: clients, port: port, token: token, seconds: Self.windowSeconds) }
            let cameraFPS = Double(cameraFrame() - firstFrame) / Self.windowSeconds
            let encodedFPS = Double(encoded() - firstEncoded) / Self.windowSeconds
            let latencies = results.flatMap(\.latenciesMilliseconds)
            let fps = results.map { Double($0.frames) / Self.windowSeconds }
            let p50 = percentile(latencies, 50), p99 = percentile(latencies, 99)
            let perClient = (cores - idle) / Double(clients)
            rows.append(["\(clients) client\(clients == 1 ? "" : "s")", String(format: "%.1f", p50), String(format: "%.1f", p99), "< 100",
                         String(format: "%.1f", cameraFPS), String(format: "%.1f", encodedFPS),
                         String(format: "%.1f", fps.min() ?? 0), String(format: "%.1f", fps.max() ?? 0),
                         String(format: "%.1f%%", cores * 100), String(format: "%.2f%%", perClient * 100)])
            metrics["latency.p50.ms.\(clients)"] = p50
            metrics["latency.p99.ms.\(clients)"] = p99
            metrics["fps.min.\(clients)"] = fps.min() ?? 0
            metrics["fps.camera.\(clients)"] = cameraFPS
            metrics["fps.encoded.\(clients)"] = encodedFPS
            if cameraFPS > 0 { metrics["fps.delivered.ratio.\(clients)"] = (fps.min() ?? 0) / min(cameraFPS, 30) }
            metrics["cpu.cores.\(clients)"] = cores
            metrics["cpu.per.client.cores.\(clients)"] = perClient
        }

        // The recording beside 16 clients, and the reference: the same recording with none.
        // The clients' own results are kept, to show they were served while the recording ran.
        func record(watchers: Int) throws -> (frames: Int, dropped: Int, clients: [ClientResult], encodedFPS: Double) {
            _ = try ask("record start")
            var status = ""
            let served = LockedValue<[ClientResult]>([])
            let done = DispatchSemaphore(value: 0)
            let watch = Thread {
                served.withLock { $0 = Self.watch(clients: watchers, port: port, token: token, seconds: Self.recordSeconds) }
                done.signal()
            }
            // (status frame= restarts when the recording reconfigures the camera: recording.frames says it.)
            let firstEncoded = encoded()
            if watchers > 0 { watch.start() }
            usleep(UInt32(Self.recordSeconds * 1e6))
            let encodedFPS = Double(encoded() - firstEncoded) / Self.recordSeconds
            if watchers > 0 { done.wait() }
            status = try ask("status")
            // A loaded machine may answer after the control socket's 10 s: the stop still happens.
            _ = tripod.ask("record stop")
            // The file is finalised before the next recording may start.
            let deadline = Date().addingTimeInterval(60)
            while tripod.ask("status")?.contains("recording=off") != true, Date() < deadline { usleep(100_000) }
            func field(_ key: String) -> Int {
                status.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } ?? -1
            }
            return (field("recording.frames"), field("recording.dropped"), served.current, encodedFPS)
        }
        let alone = try record(watchers: 0)
        let watched = try record(watchers: 16)
        let watchedFPS = watched.clients.map { Double($0.frames) / Self.recordSeconds }
        let watchedLatency = watched.clients.flatMap(\.latenciesMilliseconds)
        rows.append(["record 1080p30, 0 clients (reference)", "", "", "", "", "", "", "",
                     "\(alone.frames) frames", "\(alone.dropped) dropped"])
        rows.append(["record 1080p30, 16 clients", String(format: "%.1f", percentile(watchedLatency, 50)),
                     String(format: "%.1f", percentile(watchedLatency, 99)), "", "",
                     String(format: "%.1f", watched.encodedFPS), String(format: "%.1f", watchedFPS.min() ?? 0),
                     String(format: "%.1f", watchedFPS.max() ?? 0), "\(watched.frames) frames", "\(watched.dropped) dropped"])
        metrics["record.clients.fps.min.16"] = watchedFPS.min() ?? 0
        metrics["record.fps.encoded.16"] = watched.encodedFPS
        metrics["record.dropped.0"] = Double(alone.dropped)
        metrics["record.dropped.16"] = Double(watched.dropped)
        if let p99 = metrics["latency.p99.ms.16"], p99 > 0 { metrics["latency.p99.goal.ratio.16"] = p99 / 100 }
        tripod.process.terminate()
        tripod.process.waitUntilExit()
        return BenchmarkReport(
            columns: ["case", "latency p50 ms", "p99 ms", "goal ms", "camera fps", "encoded fps", "client fps min", "max", "tripod CPU", "CPU per client"],
            rows: rows,
            notes: ["latency: the frame's SensorTimestamp (X-Sensor-Timestamp of its part) to the client's read of its last byte, same CLOCK_MONOTONIC",
                    "CPU: tripod's utime+stime over \(Self.windowSeconds) s as a share of one core; per client: above the idle \(String(format: "%.1f%%", idle * 100)), divided by the clients",
                    "camera-side work: encoded fps (remote preview's encoded= over the window) is one JPEG per camera frame whatever the number of clients (PreviewEncoderTests); camera fps: status frame= over the window; client fps: what each client received (the preview keeps at most 30)",
                    "load average at the end: \(SimulatedRecordingRun.loadAverage()) on \(ProcessInfo.processInfo.activeProcessorCount) cores (the simulated camera renders every frame on this machine)"],
            metrics: metrics)
    }

    struct ClientResult {
        var frames = 0
        var latenciesMilliseconds: [Double] = []
    }

    /// `clients` MJPEG readers for `seconds`, each on its own thread.
    static func watch(clients: Int, port: Int, token: String, seconds: Double) -> [ClientResult] {
        let results = LockedValue<[ClientResult]>([])
        let group = DispatchGroup()
        for _ in 0..<clients {
            group.enter()
            Thread {
                let result = readStream(port: port, token: token, seconds: seconds)
                results.withLock { $0.append(result) }
                group.leave()
            }.start()
        }
        group.wait()
        return results.current
    }

    static func readStream(port: Int, token: String, seconds: Double) -> ClientResult {
        var result = ClientResult()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return result }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return result }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        let end = monotonicNanoseconds() + Int64(seconds * 1e9)
        while monotonicNanoseconds() < end {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            let now = monotonicNanoseconds()
            pending += buffer[0..<n]
            let parts = MJPEGParts.parts(in: pending)
            guard let last = parts.last else { continue }
            for part in parts {
                result.frames += 1
                if let stamp = part.sensorTimestamp { result.latenciesMilliseconds.append(Double(now - stamp) / 1e6) }
            }
            pending.removeSubrange(..<last.end)
        }
        return result
    }

    /// tripod's CPU (utime + stime from /proc/PID/stat) while `body` runs, in cores.
    static func cpuCores(pid: Int32, _ body: () -> Void) -> Double {
        func ticks() -> Double {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return 0 }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
            return (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        }
        let start = ticks(), began = monotonicNanoseconds()
        body()
        let seconds = Double(monotonicNanoseconds() - began) / 1e9
        return (ticks() - start) / Double(sysconf(Int32(_SC_CLK_TCK))) / max(seconds, 1e-3)
    }
}
