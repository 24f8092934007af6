import Foundation
import Hardware
import Lifecycle
import Logging
import Syscalls

/// The local control socket (AF_UNIX stream) that `tripod ctl` talks to. Each connection is a
/// console session of its own, in its own mode; a stuck client only fills its own output buffer.
public final class ControlSocketServer: @unchecked Sendable {
    public let path: String
    private let listener: Int32
    private let syscalls: any SystemCalls
    /// Output queued per client before lines are dropped (a client that never reads loses output).
    public static let outputLimitBytes = 256 << 10
    /// Clients connected at once at most (each costs a reader and a writer thread); one more is
    /// told so and closed.
    public let maximumClients: Int
    /// Clients connected now (their descriptor not yet closed).
    private let connected = LockedValue(0)
    /// Clients refused because `maximumClients` were connected.
    private let refused = LockedValue(0)

    /// Binds and listens at `path` (`socket`, `bind`, `listen`, through `syscalls`), replacing a
    /// stale socket file.
    public init(path: String, maximumClients: Int = 8, syscalls: any SystemCalls = SystemSyscalls()) throws(StartupError) {
        self.path = path
        self.maximumClients = max(1, maximumClients)
        self.syscalls = syscalls
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let fd: Int32
        do { fd = try syscalls.unixStreamSocket() }
        catch { throw StartupError("control socket \(path): socket: \(error)") }
        try? syscalls.unlink(path)
        let address: sockaddr_un
        do { address = try unixAddress(path) } catch { try? syscalls.close(fd); throw error }
        do throws(SyscallError) {
            try syscalls.bind(fd, address)
            try syscalls.listen(fd, backlog: 8)
        } catch {
            try? syscalls.close(fd)
            throw StartupError("control socket \(path): \(error)")
        }
        try? syscalls.chmod(path, 0o660)
        listener = fd
    }

    /// accept(2) errors that pass: the process or the system is out of descriptors or memory for
    /// a moment (EMFILE, ENFILE, ENOBUFS, ENOMEM); the listener still works.
    public static func isMomentaryShortage(_ error: SyscallError) -> Bool {
        [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errno)
    }

    /// Accepts connections on a thread; each becomes a `.control` session on the loop. When the
    /// process runs out of descriptors (EMFILE), the failure is logged once and accepting resumes
    /// after `retry` (the waiting client is taken once a descriptor is free).
    public func serve(supervisor: LoopBound<any ConsoleHost>, retry: Duration = .milliseconds(100)) {
        let listener = self.listener, syscalls = self.syscalls, path = self.path
        let loop = supervisor.loop
        let connected = self.connected, refused = self.refused, maximum = maximumClients
        let thread = Thread {
            var failing = false
            while true {
                let client: Int32
                do throws(SyscallError) { client = try syscalls.accept(listener) }
                catch {
                    if error.errno == ECONNABORTED { continue }
                    guard ControlSocketServer.isMomentaryShortage(error) else { return }  // listener closed
                    if !failing {
                        let message = error.hardwareError("control socket \(path): accept").message
                        loop.execute { supervisor.value.log.warning("\(message); accepting again every \(retry)") }
                    }
                    failing = true
                    usleep(UInt32(retry.secondsValue * 1_000_000))
                    continue
                }
                failing = false
                let admitted = connected.withLock { count -> Bool in
                    guard count < maximum else { return false }
                    count += 1
                    return true
                }
                guard admitted else {
                    refused.withLock { $0 += 1 }
                    let line = Array("err busy \(maximum) control clients are connected, the most allowed; close one and try again\n".utf8)
                    _ = line.withUnsafeBytes { try? syscalls.send(client, $0, waits: false) }
                    try? syscalls.close(client)
                    continue
                }
                let shared = SharedDescriptor(client, users: 2, onClosed: { connected.withLock { $0 -= 1 } }, syscalls: syscalls)
                loop.execute {
                    let s = supervisor.value
                    let writer = DescriptorWriter(shared: shared, limitBytes: ControlSocketServer.outputLimitBytes)
                    let session = s.attach(name: "ctl#\(client)", kind: .control, output: writer)
                    DescriptorReader.feeding(session, of: s, loop: loop, ended: { s, c in
                        if !c.isClosed { c.output.close(); s.detach(c) }
                    }) { DescriptorReader(shared: shared, loop: loop, onBytes: $0, onEnd: $1) }
                }
            }
        }
        thread.name = "tripod-control-accept"
        thread.start()
    }

    /// Clients connected now, and those refused so far (for tests and `status`).
    public var clientCounts: (connected: Int, refused: Int) { (connected.current, refused.current) }

    /// Stops accepting and removes the socket file.
    public func shutdown() {
        try? syscalls.shutdown(listener)
        try? syscalls.close(listener)
        try? syscalls.unlink(path)
    }
}

/// `tripod ctl`: sends one line, prints the reply (info lines, then the ok/err line).
public enum ControlClient {
    /// Exit status: 0 for ok, 1 for err, 2 when the supervisor cannot be reached.
    public static func send(line: String, socketPath: String, syscalls: any SystemCalls = SystemSyscalls()) -> Int32 {
        let fd: Int32
        do { fd = try syscalls.unixStreamSocket() } catch { return fail("socket: \(error)") }
        defer { try? syscalls.close(fd) }
        guard let address = try? unixAddress(socketPath) else { return fail("socket path too long: \(socketPath)") }
        do { try syscalls.connect(fd, address) }
        catch { return fail("cannot reach the supervisor at \(socketPath): \(error); is tripod running?") }
        let request = Array((line + "\n").utf8)
        guard request.withUnsafeBytes({ try? syscalls.write(fd, $0) }) == request.count else {
            return fail("write to \(socketPath) failed")
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SyscallError) -> Int in try syscalls.read(fd, raw) }
            }
            guard case .success(let n) = read, n > 0 else { return fail("the supervisor closed the connection before replying") }
            pending += buffer[0..<n]
            while let newline = pending.firstIndex(of: 0x0A) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                print(text)
                if text.hasPrefix("ok") || text.hasPrefix("{\"type\":\"reply\",\"ok\":true") { return 0 }
                if text.hasPrefix("err") || text.hasPrefix("{\"type\":\"reply\",\"ok\":false") { return 1 }
            }
        }
    }

    private static func fail(_ message: String) -> Int32 {
        Logger.writeIgnoringErrors(STDERR_FILENO, "tripod ctl: \(message)\n")
        return 2
    }
}

/// A `sockaddr_un` for `path`; throws when the path does not fit.
public func unixAddress(_ path: String) throws(StartupError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { throw StartupError("socket path \(path) is longer than \(capacity - 1) bytes") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return address
}
