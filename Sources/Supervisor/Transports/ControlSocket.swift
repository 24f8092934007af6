import Foundation
import Hardware

/// The local control socket (AF_UNIX stream) that `tripod ctl` talks to. Each connection is a
/// console session of its own, in its own mode; a stuck client only fills its own output buffer.
final class ControlSocketServer: @unchecked Sendable {
    let path: String
    private let listener: Int32
    /// Output queued per client before lines are dropped (a client that never reads loses output).
    static let outputLimitBytes = 256 << 10
    /// Clients connected at once at most (each costs a reader and a writer thread); one more is
    /// told so and closed.
    let maximumClients: Int
    /// Clients connected now (their descriptor not yet closed).
    private let connected = LockedValue(0)
    /// Clients refused because `maximumClients` were connected.
    private let refused = LockedValue(0)

    /// Binds and listens at `path` (`socket`, `bind`, `listen`), replacing a stale socket file.
    init(path: String, maximumClients: Int = 8) throws(StartupError) {
        self.path = path
        self.maximumClients = max(1, maximumClients)
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw StartupError("control socket \(path): socket: \(String(cString: strerror(errno)))") }
        unlink(path)
        var address = try unixAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw StartupError("control socket \(path): \(reason)")
        }
        chmod(path, 0o660)
        listener = fd
    }

    /// Accepts connections on a thread; each becomes a `.control` session on the loop.
    func serve(supervisor: LoopBound<Supervisor>) {
        let listener = self.listener
        let loop = supervisor.loop
        let connected = self.connected, refused = self.refused, maximum = maximumClients
        let thread = Thread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return  // listener closed
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                let admitted = connected.withLock { count -> Bool in
                    guard count < maximum else { return false }
                    count += 1
                    return true
                }
                guard admitted else {
                    refused.withLock { $0 += 1 }
                    let line = Array("err busy \(maximum) control clients are connected, the most allowed; close one and try again\n".utf8)
                    _ = line.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                    close(client)
                    continue
                }
                let shared = SharedDescriptor(client, users: 2, onClosed: { connected.withLock { $0 -= 1 } })
                loop.execute {
                    let s = supervisor.value
                    let writer = DescriptorWriter(shared: shared, limitBytes: ControlSocketServer.outputLimitBytes)
                    let session = s.attach(name: "ctl#\(client)", kind: .control, output: writer)
                    let pair = LoopBound((s, session), loop: loop)
                    _ = DescriptorReader(shared: shared, loop: loop, onBytes: { bytes in
                        let (s, c) = pair.value
                        s.receive(bytes: bytes, from: c)
                    }, onEnd: { _ in
                        let (s, c) = pair.value
                        if !c.isClosed { c.output.close(); s.detach(c) }
                    })
                }
            }
        }
        thread.name = "tripod-control-accept"
        thread.start()
    }

    /// Clients connected now, and those refused so far (for tests and `status`).
    var clientCounts: (connected: Int, refused: Int) { (connected.current, refused.current) }

    /// Stops accepting and removes the socket file.
    func shutdown() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }
}

/// `tripod ctl`: sends one line, prints the reply (info lines, then the ok/err line).
enum ControlClient {
    /// Exit status: 0 for ok, 1 for err, 2 when the supervisor cannot be reached.
    static func send(line: String, socketPath: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return fail("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard var address = try? unixAddress(socketPath) else { return fail("socket path too long: \(socketPath)") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            return fail("cannot reach the supervisor at \(socketPath): \(String(cString: strerror(errno))); is tripod running?")
        }
        let request = Array((line + "\n").utf8)
        guard request.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == request.count else {
            return fail("write to \(socketPath) failed")
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return fail("the supervisor closed the connection before replying") }
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
func unixAddress(_ path: String) throws(StartupError) -> sockaddr_un {
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
