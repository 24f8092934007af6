import Foundation
import Hardware
import Testing
import TestSupport
@testable import Fleet
@testable import FleetConsole

/// A group of `tripod run --board sim-small` rig processes with their remotes on 127.0.0.1 (a
/// fixed port each, so a rig started again is found where it was) and the collection key, and a
/// mosquitto (docs/collect.md).
final class CollectFleet {
    let broker: Broker
    let observer: MQTTObserver
    let work: String
    let key: String
    var rigs: [String: FleetRig] = [:]
    var ports: [String: Int] = [:]
    /// Config lines every rig gets besides the fleet's and the remote's.
    let extraConfig: [String]

    /// Config lines of one rig only, by name.
    let rigConfig: [String: [String]]
    /// The board the rigs run (`tripod run --board`).
    let board: String

    /// `broker`: one the test configured (a password file, a TLS listener); `observer`: the
    /// test's own broker user, when it needs one.
    init(names: [String], broker given: Broker? = nil, observer user: (name: String, password: String)? = nil, extraConfig: [String] = [],
         rigConfig: [String: [String]] = [:], board: String = "sim-small", before: (String) throws -> Void = { _ in }) throws {
        self.extraConfig = extraConfig
        self.rigConfig = rigConfig
        self.board = board
        broker = try given ?? Broker()
        observer = try MQTTObserver(broker: broker, user: user?.name, password: user?.password)
        work = NSTemporaryDirectory() + "tripod-collect-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        key = work + "/collect-key"
        try (String(repeating: "0123456789abcdef", count: 4) + "\n").write(toFile: key, atomically: true, encoding: .utf8)
        chmod(key, 0o600)
        try before(work)
        for name in names {
            ports[name] = try freeLoopbackPort()
            try start(name)
        }
        let seen = waitUntil(seconds: 60) { names.allSatisfy { self.remote(of: $0) != nil } }
        guard seen else { throw FleetTestFailure("not every rig published its remote in its status:\n" + names.map { rigs[$0]?.log ?? "" }.joined()) }
    }

    /// Starts rig `name` (again: on its work folder, captures and port).
    func start(_ name: String, work existing: String? = nil) throws {
        let port = ports[name] ?? 0
        rigs[name] = try FleetRig(broker: broker.port, rig: name, work: existing,
                             extraConfig: ["remote.listen = 127.0.0.1:\(port)", "remote.collect = \(key)"] + extraConfig + (rigConfig[name] ?? []),
                             board: board)
    }

    /// The `remote` its last retained status gave.
    func remote(of rig: String) -> String? {
        for message in observer.messages(on: "tripod/g/\(rig)/status").reversed() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any],
                  let remote = (object["values"] as? [String: Any])?["remote"] as? String else { continue }
            return remote
        }
        return nil
    }

    /// `fleet shot in 2s ACTION` on `sender`; returns the shot's id once its report is on the broker.
    func shoot(_ action: String = "capture", from sender: String = "r1") throws -> String {
        guard let reply = rigs[sender]?.ctl("fleet shot in 2s \(action)"), reply.hasPrefix("ok ") else {
            throw FleetTestFailure("fleet shot refused: \(rigs[sender]?.ctl("fleet status") ?? "")")
        }
        let id = try #require(fields(reply)["shot"])
        guard waitUntil(seconds: 60, { self.observer.messages(on: "tripod/g/\(sender)/report").contains { $0.payload.contains(id) } }) else {
            throw FleetTestFailure("no report of \(id) on the broker")
        }
        return id
    }

    /// The rig's own copy of every file its sidecar of shot `id` lists (and the sidecar), by name.
    func rigFiles(_ rig: String, shot id: String) throws -> [String: Data] {
        let captures = try #require(rigs[rig]).captures
        var result: [String: Data] = [:]
        for path in captureFiles(captures) {
            let data = try Data(contentsOf: URL(fileURLWithPath: captures + "/" + path))
            guard path.hasSuffix(".json"), (path as NSString).lastPathComponent.hasPrefix("TRP_"), String(decoding: data, as: UTF8.self).contains(id) else { continue }
            let folder = (path as NSString).deletingLastPathComponent
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            result[(path as NSString).lastPathComponent] = data
            for other in captureFiles(captures + "/" + folder) where other.hasPrefix(stem + "_") {
                result[other] = try Data(contentsOf: URL(fileURLWithPath: captures + "/" + folder + "/" + other))
            }
        }
        return result
    }

    func stop() {
        rigs.values.forEach { $0.stop() }
        rigs.values.forEach { $0.removeWork() }
        broker.stop()
        try? FileManager.default.removeItem(atPath: work)
    }
}

/// One `tripod collect` process; its JSON lines on stdout, read as they come.
final class CollectRun: @unchecked Sendable {
    let process = Process()
    private let lines = LockedValue<[String]>([])
    private let errors = LockedValue<String>("")

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try FleetRig.executable())
        process.arguments = ["collect"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let lines = self.lines, errors = self.errors
        let pending = LockedValue("")
        out.fileHandleForReading.readabilityHandler = { handle in
            let chunk = String(decoding: handle.availableData, as: UTF8.self)
            pending.withLock { text in
                text += chunk
                while let newline = text.firstIndex(of: "\n") {
                    let line = String(text[..<newline])
                    text = String(text[text.index(after: newline)...])
                    lines.withLock { $0.append(line) }
                }
            }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let chunk = String(decoding: handle.availableData, as: UTF8.self)
            errors.withLock { $0 += chunk }
        }
        try process.run()
    }

    /// The collector's options for `fleet`'s group, into `into`.
    static func arguments(_ fleet: CollectFleet, into: String, _ extra: [String]) -> [String] {
        ["--broker", "mqtt://127.0.0.1:\(fleet.broker.port)", "--group", "g", "--into", into, "--key", fleet.key] + extra
    }

    var objects: [[String: Any]] {
        lines.current.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    var summary: [String: Any]? { objects.last { $0["type"] as? String == "summary" } }
    var stderr: String { errors.current }

    /// Waits for the end; its exit status.
    func finish(seconds: Double = 120) -> Int32? {
        guard waitUntil(seconds: seconds, { !self.process.isRunning }) else { kill9(); return nil }
        process.waitUntilExit()
        // The last lines: readabilityHandler runs on its own queue.
        _ = waitUntil(seconds: 5) { self.summary != nil || !self.stderr.isEmpty }
        return process.terminationStatus
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// Every regular file below `root`, relative, hidden ones (`.tripod-collect`) left out.
func visibleFiles(_ root: String) -> [String] {
    guard let names = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] else { return [] }
    return names.filter { path in
        var isDirectory: ObjCBool = false
        return !path.split(separator: "/").contains { $0.hasPrefix(".") }
            && FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }.sorted()
}

/// Every regular file in `root`'s `.tripod-collect/partial`, with its size.
func partialFiles(_ root: String) -> [(String, Int)] {
    let partial = root + "/.tripod-collect/partial"
    guard let names = FileManager.default.enumerator(atPath: partial)?.allObjects as? [String] else { return [] }
    return names.compactMap { path in
        guard path.hasSuffix(".part"), let size = (try? FileManager.default.attributesOfItem(atPath: partial + "/" + path))?[.size] as? NSNumber else { return nil }
        return (path, size.intValue)
    }
}

/// A listening TCP socket on 127.0.0.1 at a free port (socket, bind, listen, getsockname): the
/// descriptor and the port.
func loopbackListener(backlog: Int32) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw FleetTestFailure("socket: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
            guard bind(fd, pointer, length) == 0, listen(fd, backlog) == 0 else { return -1 }
            return getsockname(fd, pointer, &length)
        }
    }
    guard bound == 0 else {
        let failure = errno
        close(fd)
        throw FleetTestFailure("bind/listen 127.0.0.1:0: errno \(failure)")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A TCP listener on 127.0.0.1 that stands in for a host a broker user advertises: it keeps the
/// head of each request (up to 16 KiB) and answers 404, then closes the connection.
final class RequestHeadCatcher: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let caught = LockedValue<[String]>([])
    private let stopping = LockedValue(false)
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        let made = try loopbackListener(backlog: 16)
        listener = made.fd
        port = made.port
        let fd = listener
        let caught = self.caught, stopping = self.stopping, done = self.done
        Thread.detachNewThread {
            defer { done.signal() }
            while !stopping.current {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 100) > 0 else { continue }
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { continue }
                var timeout = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var head: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
                while head.count < 16 << 10, !String(decoding: head, as: UTF8.self).contains("\r\n\r\n") {
                    let n = read(connection, &buffer, buffer.count)
                    guard n > 0 else { break }
                    head += buffer[0..<n]
                }
                caught.withLock { $0.append(String(decoding: head, as: UTF8.self)) }
                let answer = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                close(connection)
            }
        }
    }

    /// Every request head received so far.
    var heads: [String] { caught.current }

    /// Stops accepting, waits for the listener's thread, closes the socket.
    func stop() {
        stopping.withLock { $0 = true }
        done.wait()
        close(listener)
    }
}
