import Boards
import Foundation
import Hardware
import Lifecycle
import LinuxHardware
import Settings
import Startup
import Supervisor
import Transports

/// Round-trip latency of `get exposure.iso` over a pseudo-terminal (the serial console path, raw at
/// 115200) and over the Unix control socket, against a reference in the same run: a trivial Python
/// line-echo server (tools/bench.d/console_echo_reference.py) on the same two transports.
struct ConsoleBenchmark: Benchmark {
    static let name = "console"
    static let summary = "get round trip over a pty and the control socket vs a Python echo server"
    static let requests = 2000

    func run() throws -> BenchmarkReport {
        let work = NSTemporaryDirectory() + "tripod-bench-console-\(getpid())"
        try FileManager.default.createDirectory(atPath: work + "/captures", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        // Tripod: the supervisor on the simulated board, its own loop on a thread.
        let loop = PosixEventLoop()
        let catalog = BoardCatalog.standard()
        let devices = try BoardFactory.build(board: try catalog.board("sim"), catalog: catalog, loop: loop,
                                             capturesDirectory: work + "/captures", log: .discard)
        let supervisor = Supervisor(devices: devices, loop: loop, log: .discard)
        let tripodPTY = try PseudoTerminal()
        let socketPath = work + "/tripod.sock"
        let started = DispatchSemaphore(value: 0)
        let bound = LoopBound(supervisor, loop: loop)
        let slave = tripodPTY.slavePath
        loop.execute {
            try? bound.value.start()
            _ = try? ConsoleTransports.serveControlSocket(path: socketPath, supervisor: bound.value)
            ConsoleTransports.serveSerial(path: slave, supervisor: bound.value)
            started.signal()
        }
        let loopThread = Thread { loop.run() }
        loopThread.start()
        started.wait()
        defer { loop.stop() }

        // Reference: the echo server on its own pty and socket.
        let referencePTY = try PseudoTerminal()
        let referenceSocket = work + "/reference.sock"
        let script = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("../../../tools/bench.d/console_echo_reference.py").standardized.path
        let reference = Process()
        reference.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reference.arguments = ["python3", FileManager.default.fileExists(atPath: script) ? script : "tools/bench.d/console_echo_reference.py",
                               referencePTY.slavePath, referenceSocket]
        let ready = Pipe()
        reference.standardOutput = ready
        try reference.run()
        defer { reference.terminate() }
        _ = ready.fileHandleForReading.availableData  // "ready"

        let line = Array("get \(SettingsTable.exposureISO.key)\r".utf8)
        _ = try LineClient(descriptor: tripodPTY.master).roundTrips(Array("\r".utf8), count: 1, until: "type help")
        let tripodPtyTimes = try LineClient(descriptor: tripodPTY.master).roundTrips(line, count: Self.requests)
        let referencePtyTimes = try LineClient(descriptor: referencePTY.master).roundTrips(line, count: Self.requests)
        let tripodSocket = try LineClient(unixSocket: socketPath)
        let tripodSocketTimes = try tripodSocket.roundTrips(line, count: Self.requests)
        let referenceSocketClient = try LineClient(unixSocket: referenceSocket)
        let referenceSocketTimes = try referenceSocketClient.roundTrips(line, count: Self.requests)

        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        for (transport, mine, theirs) in [("pty 115200", tripodPtyTimes, referencePtyTimes),
                                          ("unix socket", tripodSocketTimes, referenceSocketTimes)] {
            let p50 = percentile(mine, 50), p99 = percentile(mine, 99)
            let r50 = percentile(theirs, 50), r99 = percentile(theirs, 99)
            rows.append([transport, fmt(p50), fmt(p99), fmt(r50), fmt(r99), String(format: "%.2f", p50 / r50), String(format: "%.2f", p99 / r99)])
            let key = transport.hasPrefix("pty") ? "pty" : "socket"
            metrics["\(key).p50_us"] = p50; metrics["\(key).p99_us"] = p99
            metrics["\(key).ratio_p50"] = p50 / r50; metrics["\(key).ratio_p99"] = p99 / r99
        }
        return BenchmarkReport(
            columns: ["transport", "tripod p50 µs", "tripod p99 µs", "echo p50 µs", "echo p99 µs", "ratio p50", "ratio p99"],
            rows: rows,
            notes: ["\(Self.requests) sequential `get \(SettingsTable.exposureISO.key)` round trips per row (send line, read to the ok line)",
                    "reference: Python select() echo server on the same kind of pty (raw, 115200) and Unix socket",
                    "tripod runs the simulated board (camera streaming) on its loop meanwhile"],
            metrics: metrics)
    }

    private func fmt(_ v: Double) -> String { String(format: "%.1f", v) }
}

/// A pseudo-terminal pair: `open("/dev/ptmx")`, then `ioctl(TIOCSPTLCK)` to unlock the slave and
/// `ioctl(TIOCGPTN)` for its number (what posix_openpt/unlockpt/ptsname do; Glibc's Swift module
/// does not export those). The master stays here; the slave is /dev/pts/N.
final class PseudoTerminal {
    let master: Int32
    let slavePath: String
    static let TIOCGPTN: UInt = 0x8004_5430
    static let TIOCSPTLCK: UInt = 0x4004_5431

    init() throws {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw StartupError("open /dev/ptmx: \(String(cString: strerror(errno)))") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, Self.TIOCSPTLCK, &unlock) == 0, ioctl(master, Self.TIOCGPTN, &number) == 0 else {
            let reason = String(cString: strerror(errno))
            close(master)
            throw StartupError("/dev/ptmx: ioctl: \(reason)")
        }
        slavePath = "/dev/pts/\(number)"
        // The master side raw too, so nothing is translated on the way.
        var tio = termios()
        if tcgetattr(master, &tio) == 0 { cfmakeraw(&tio); tcsetattr(master, TCSANOW, &tio) }
    }

    deinit { close(master) }
}

/// Sends a line and times until a reply line (`ok`/`err`, or one containing `until`) comes back.
final class LineClient {
    let descriptor: Int32
    private let owns: Bool
    private var pending: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor; owns = false }

    init(unixSocket path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes); raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw StartupError("connect \(path): \(String(cString: strerror(errno)))") }
        descriptor = fd; owns = true
    }

    deinit { if owns { close(descriptor) } }

    /// Microseconds per round trip.
    func roundTrips(_ line: [UInt8], count: Int, until marker: String? = nil) throws -> [Double] {
        var times: [Double] = []
        times.reserveCapacity(count)
        for _ in 0..<count {
            let start = monotonicNanoseconds()
            guard line.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == line.count else {
                throw StartupError("write: \(String(cString: strerror(errno)))")
            }
            try readReply(until: marker)
            times.append(Double(monotonicNanoseconds() - start) / 1000)
        }
        return times
    }

    private func readReply(until marker: String?) throws {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            while let newline = pending.firstIndex(of: 0x0A) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if let marker, text.contains(marker) { return }
                if marker == nil && (text.contains("ok ") || text.contains("err ")) { return }
            }
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n <= 0 { throw StartupError("read: connection closed") }
            pending += buffer[0..<n]
        }
    }
}
