import Foundation
import Hardware
import Lifecycle
import Logging
import ManualLoop
import SimulatedHardware
import Startup
import Supervisor

/// Supervisor start to ready on the simulated board, two ways, against the cost of starting the
/// process at all (`tripod --version`) in the same run:
/// - in process: `TripodMain.prepare` + `Supervisor.start` (board graph, camera open, streaming);
/// - the real binary: spawn `tripod run` to the `READY=1` it sends on a fake `NOTIFY_SOCKET`.
struct StartupBenchmark: Benchmark {
    static let name = "startup"
    static let summary = "supervisor start to ready and to READY=1, simulated board"

    func run() throws -> BenchmarkReport {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-bench-startup-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tripod").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw StartupError("\(binary) is missing; build it with swift build -c release --product tripod")
        }

        var inProcess: [Double] = []
        for i in 0..<20 {
            var arguments = RunArguments()
            arguments.board = "sim"
            arguments.captures = work.appendingPathComponent("captures").path
            arguments.state = work.appendingPathComponent("state-\(i)").path
            arguments.socket = work.appendingPathComponent("s\(i).sock").path
            let loop = ManualEventLoop()
            let start = monotonicNanoseconds()
            try loop.perform { () throws(StartupError) in
                let prepared = try TripodMain.prepare(arguments, loop: loop, log: Logger.discard, notifier: NullServiceNotifier())
                try prepared.supervisor.start()
                prepared.supervisor.requestStop(reason: "benchmark")
                prepared.flush()
            }
            inProcess.append(Double(monotonicNanoseconds() - start) / 1e6)
        }

        var toReady: [Double] = []
        for i in 0..<10 {
            toReady.append(try timeToReady(binary: binary, work: work, index: i))
        }
        var processFloor: [Double] = []
        for _ in 0..<10 {
            let start = monotonicNanoseconds()
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = ["--version"]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            processFloor.append(Double(monotonicNanoseconds() - start) / 1e6)
        }

        func row(_ name: String, _ v: [Double]) -> [String] {
            [name, String(v.count), format(percentile(v, 50)), format(percentile(v, 90)), format(v.max() ?? .nan)]
        }
        let ratio = percentile(toReady, 50) / percentile(processFloor, 50)
        return BenchmarkReport(
            columns: ["measure", "runs", "p50 ms", "p90 ms", "max ms"],
            rows: [row("in process: prepare + start to ready", inProcess),
                   row("tripod run: spawn to READY=1", toReady),
                   row("reference: spawn tripod --version to exit", processFloor),
                   ["ratio READY=1 / bare process start (p50)", "", format(ratio), "", ""]],
            notes: ["simulated board (IMX708, MPU-6050 on the simulated bus), real clock, release build",
                    "READY=1 is read from a Unix datagram socket passed as NOTIFY_SOCKET, as systemd would"],
            metrics: ["in_process_p50_ms": percentile(inProcess, 50), "ready_p50_ms": percentile(toReady, 50),
                      "process_floor_p50_ms": percentile(processFloor, 50), "ready_over_floor": ratio])
    }

    /// Spawns `tripod run` with a fake NOTIFY_SOCKET and returns ms until READY=1 arrives.
    private func timeToReady(binary: String, work: URL, index: Int) throws -> Double {
        let socketPath = work.appendingPathComponent("notify-\(index).sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw StartupError("socket failed") }
        defer { close(fd); unlink(socketPath) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(socketPath.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw StartupError("bind \(socketPath) failed") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["run", "--board", "sim", "--console", "stdio",
                       "--captures", work.appendingPathComponent("captures").path,
                       "--state", work.appendingPathComponent("state-p\(index)").path,
                       "--socket", work.appendingPathComponent("p\(index).sock").path]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = socketPath
        p.environment = environment
        let stdin = Pipe()
        p.standardInput = stdin
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        let start = monotonicNanoseconds()
        try p.run()
        defer {
            try? stdin.fileHandleForWriting.close()
            p.waitUntilExit()
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw StartupError("no READY=1 from tripod run within 10 s") }
            let text = String(decoding: buffer[0..<n], as: UTF8.self)
            if text.split(separator: "\n").contains("READY=1") { return Double(monotonicNanoseconds() - start) / 1e6 }
        }
    }

    private func format(_ v: Double) -> String { String(format: "%.2f", v) }
}
