import Foundation

/// A real mosquitto on 127.0.0.1 for the fleet's tests and `tools/bench fleet`, and the small
/// helpers around it.
/// Fails a test with a message (a helper's `throw`).
public struct FleetTestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}


/// A TCP port on 127.0.0.1 that nothing listens on now (bound with port 0, then released).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw FleetTestFailure("socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
            guard bind(fd, pointer, length) == 0 else { return -1 }
            return getsockname(fd, pointer, &length)
        }
    }
    guard bound == 0 else { throw FleetTestFailure("bind 127.0.0.1:0: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// True when something accepts TCP connections on 127.0.0.1:`port`.
public func isListening(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// A real mosquitto broker on 127.0.0.1, on its own port, with its config in a temporary directory;
/// stopped when released.
public final class Broker {
    public let port: Int
    public let directory: String
    private var process: Process?

    /// Starts one now (`start: false`: only chooses the port, for a broker that comes up later).
    public init(port chosen: Int? = nil, start: Bool = true, extraConfig: [String] = []) throws {
        port = try chosen ?? freeLoopbackPort()
        directory = NSTemporaryDirectory() + "tripod-broker-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A client's queue of QoS 1 messages far above mosquitto's default of 1,000 (beyond which
        // it drops the newest): a test that floods a rig counts the rig's own drops, not the
        // broker's when the rig's network thread falls behind on a busy machine.
        let config = ["listener \(port) 127.0.0.1", "persistence false", "max_queued_messages 100000"]
            + (extraConfig.isEmpty ? ["allow_anonymous true"] : extraConfig)
        try (config.joined(separator: "\n") + "\n").write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        if start { try self.start() }
    }

    public func start() throws {
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        broker.arguments = ["-c", directory + "/mosquitto.conf"]
        broker.standardInput = FileHandle.nullDevice
        broker.standardOutput = FileHandle.nullDevice
        broker.standardError = FileHandle.nullDevice
        try broker.run()
        process = broker
        guard waitUntil(seconds: 30, { isListening(port) || !broker.isRunning }), broker.isRunning else {
            throw FleetTestFailure("mosquitto did not start on 127.0.0.1:\(port) (tools/setup installs it)")
        }
    }

    /// SIGKILL: a broker that crashes (SIGTERM may be blocked in the mask it inherits from the test process).
    public func stop() {
        guard let process else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        self.process = nil
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

