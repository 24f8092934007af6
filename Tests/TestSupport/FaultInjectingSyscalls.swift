import Foundation
import Glibc
import Hardware
import Transports
import Syscalls

/// The real calls (`GlibcSyscalls`, each made once) with faults injected, below the seam's EINTR
/// retry: put it in `RetryingSyscalls(faults)` as the firmware's code gets it, so an injected
/// EINTR is retried by the seam and reaches the double again (counted, logged).
///
/// `fail(.accept, errno: EMFILE)` makes the next accept fail, then accept works again;
/// `fail(.write, call: 3, errno: EIO)` makes the third write from now fail. Writes can be capped
/// (`maximumWriteBytes`) to force short writes, the process can be "killed" after N calls (every
/// later call is refused without touching the disk, as after `kill -9`), and every call that can
/// fail is logged ("open /path", "write /path", "rename a -> b"). Thread-safe: the transports call
/// it from their own threads. Open so that an in-memory device (a fake i2c-dev node, a V4L2
/// subdevice, a uevent socket) can take over some calls.
open class FaultInjectingSyscalls: SystemCalls, @unchecked Sendable {
    /// The calls faults can be injected at (`socket` and `bind` are the Unix and the netlink ones;
    /// `statvfs` is `availableBytes`).
    public enum Call: String, Sendable {
        case open, read, write, send, poll, ioctl, shutdown, terminalAttributes, setTerminalAttributes
        case socket, bind, listen, accept, connect, chmod
        case fsync, writeback, seek, close, rename, unlink, mkdir, statvfs, realpath
    }
    /// The storage tests' name for the calls.
    public typealias Operation = Call

    public let real = GlibcSyscalls()
    private let lock = NSLock()
    // Guarded by `lock`:
    private var counts: [Call: Int] = [:]
    /// errno by call number (1-based, counted from the first call) per call.
    private var faults: [Call: [Int: Int32]] = [:]
    private var callsBeforeKill: Int?
    private var killedValue = false
    private var logValue: [String] = []
    private var descriptors: [Int32: String] = [:]
    private var maximumWriteBytesValue: Int?
    private var keepsLogValue = true

    public init() {}

    /// Real calls whose next `call` fails with `errno`.
    public static func failing(_ call: Call, _ errno: Int32) -> FaultInjectingSyscalls {
        let syscalls = FaultInjectingSyscalls()
        syscalls.fail(call, errno: errno)
        return syscalls
    }

    /// The next `times` calls of `call` (after the faults already queued for it) fail with `errno`.
    public func fail(_ call: Call, errno: Int32, times: Int = 1) {
        lock.withLock {
            var n = (counts[call] ?? 0) + 1
            for _ in 0..<times {
                while faults[call]?[n] != nil { n += 1 }
                faults[call, default: [:]][n] = errno
            }
        }
    }

    /// The `n`th (1-based, counted from now) call of `call` fails with `errno`.
    public func fail(_ call: Call, call n: Int, errno: Int32) {
        lock.withLock { faults[call, default: [:]][(counts[call] ?? 0) + n] = errno }
    }

    /// Simulates `kill -9` after `n` more calls: from then on every call fails with ECANCELED and
    /// does nothing, so clean-up code cannot undo what a crash leaves.
    public func kill(afterCalls n: Int) { lock.withLock { callsBeforeKill = n } }

    /// True once a call was refused because of `kill(afterCalls:)`.
    public var killed: Bool { lock.withLock { killedValue } }

    /// How many times `call` was made so far, failed calls included.
    public func count(_ call: Call) -> Int { lock.withLock { counts[call] ?? 0 } }

    /// "fsync /path", "rename a -> b", … in call order.
    public var log: [String] { lock.withLock { logValue } }

    /// False to stop logging (a writer that runs until killed would grow the log without bound).
    public var keepsLog: Bool {
        get { lock.withLock { keepsLogValue } }
        set { lock.withLock { keepsLogValue = newValue } }
    }

    /// At most this many bytes per write(2), when set.
    public var maximumWriteBytes: Int? {
        get { lock.withLock { maximumWriteBytesValue } }
        set { lock.withLock { maximumWriteBytesValue = newValue } }
    }

    /// Counts `call`, logs `entry`, and throws its fault, if one is due.
    public func step(_ call: Call, _ entry: @autoclosure () -> String = "") throws(SyscallError) {
        let text = keepsLog ? entry() : ""  // outside the lock: `entry` may read `name(_:)`
        let code: Int32? = lock.withLock {
            if let remaining = callsBeforeKill {
                if remaining == 0 { killedValue = true; return ECANCELED }
                callsBeforeKill = remaining - 1
            }
            let n = (counts[call] ?? 0) + 1
            counts[call] = n
            if keepsLogValue { logValue.append(text.isEmpty ? call.rawValue : text) }
            return faults[call]?.removeValue(forKey: n)
        }
        if let code { throw SyscallError(errno: code) }
    }

    /// The path `fd` was opened with, or "fd N".
    public func name(_ fd: Int32) -> String { lock.withLock { descriptors[fd] ?? "fd \(fd)" } }

    // MARK: descriptors

    open func open(_ path: String, _ flags: Int32, mode: mode_t) throws(SyscallError) -> Int32 {
        try step(.open, "open \(path)")
        let fd = try real.open(path, flags, mode: mode)
        lock.withLock { descriptors[fd] = path }
        return fd
    }
    open func close(_ fd: Int32) throws(SyscallError) {
        let path = name(fd)
        lock.withLock { _ = descriptors.removeValue(forKey: fd) }
        do { try step(.close, "close \(path)") } catch {
            try? real.close(fd)  // like Linux: the descriptor is gone even when close reports an error
            throw error
        }
        try real.close(fd)
    }
    open func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int {
        try step(.read, "read \(name(fd))")
        return try real.read(fd, buffer)
    }
    open func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int {
        try step(.write, "write \(name(fd))")
        let count = min(buffer.count, maximumWriteBytes ?? buffer.count)
        return try real.write(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
    open func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, waits: Bool) throws(SyscallError) -> Int {
        try step(.send, "send \(name(fd))")
        return try real.send(fd, buffer, waits: waits)
    }
    open func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) throws(SyscallError) -> Int16 {
        try step(.poll, "poll \(name(fd))")
        return try real.poll(fd, events: events, timeoutMilliseconds: timeoutMilliseconds)
    }
    open func isSocket(_ fd: Int32) -> Bool { real.isSocket(fd) }
    open func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError) {
        try step(.ioctl, "ioctl \(name(fd))")
        try real.ioctl(fd, request, value: value)
    }
    open func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError) {
        try step(.ioctl, "ioctl \(name(fd))")
        try real.ioctl(fd, request, pointer: pointer)
    }
    open func shutdown(_ fd: Int32) throws(SyscallError) {
        try step(.shutdown, "shutdown \(name(fd))")
        try real.shutdown(fd)
    }
    open func terminalAttributes(_ fd: Int32) throws(SyscallError) -> termios {
        try step(.terminalAttributes, "tcgetattr \(name(fd))")
        return try real.terminalAttributes(fd)
    }
    open func setTerminalAttributes(_ fd: Int32, _ attributes: termios) throws(SyscallError) {
        try step(.setTerminalAttributes, "tcsetattr \(name(fd))")
        try real.setTerminalAttributes(fd, attributes)
    }
    open func unixStreamSocket() throws(SyscallError) -> Int32 {
        try step(.socket, "socket AF_UNIX")
        return try real.unixStreamSocket()
    }
    open func bind(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError) {
        try step(.bind, "bind \(name(fd))")
        try real.bind(fd, address)
    }
    open func listen(_ fd: Int32, backlog: Int32) throws(SyscallError) {
        try step(.listen, "listen \(name(fd))")
        try real.listen(fd, backlog: backlog)
    }
    open func accept(_ fd: Int32) throws(SyscallError) -> Int32 {
        try step(.accept, "accept \(name(fd))")
        return try real.accept(fd)
    }
    open func connect(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError) {
        try step(.connect, "connect \(name(fd))")
        try real.connect(fd, address)
    }
    open func chmod(_ path: String, _ mode: mode_t) throws(SyscallError) {
        try step(.chmod, "chmod \(path)")
        try real.chmod(path, mode)
    }
    open func netlinkSocket(protocol: Int32) throws(SyscallError) -> Int32 {
        try step(.socket, "socket AF_NETLINK")
        return try real.netlinkSocket(protocol: `protocol`)
    }
    open func bind(_ fd: Int32, netlinkGroups groups: UInt32) throws(SyscallError) {
        try step(.bind, "bind \(name(fd))")
        try real.bind(fd, netlinkGroups: groups)
    }
    open func multicastSocket(group: String, port: UInt16, interface: String?, receiving: Bool) throws(SyscallError) -> Int32 {
        try step(.socket, "socket AF_INET \(group):\(port)")
        return try real.multicastSocket(group: group, port: port, interface: interface, receiving: receiving)
    }

    // MARK: files

    open func fsync(_ fd: Int32) throws(SyscallError) {
        try step(.fsync, "fsync \(name(fd))")
        try real.fsync(fd)
    }
    open func startWriteback(_ fd: Int32) throws(SyscallError) {
        try step(.writeback, "writeback \(name(fd))")
        try real.startWriteback(fd)
    }
    open func seek(_ fd: Int32, to offsetBytes: Int64) throws(SyscallError) -> Int64 {
        try step(.seek, "seek \(name(fd)) \(offsetBytes)")
        return try real.seek(fd, to: offsetBytes)
    }
    open func rename(_ from: String, _ to: String) throws(SyscallError) {
        try step(.rename, "rename \(from) -> \(to)")
        try real.rename(from, to)
    }
    open func unlink(_ path: String) throws(SyscallError) {
        try step(.unlink, "unlink \(path)")
        try real.unlink(path)
    }
    open func mkdir(_ path: String, _ mode: mode_t) throws(SyscallError) {
        try step(.mkdir, "mkdir \(path)")
        try real.mkdir(path, mode)
    }
    open func rmdir(_ path: String) throws(SyscallError) { try real.rmdir(path) }
    open func exists(_ path: String) -> Bool { real.exists(path) }
    open func listDirectory(_ path: String) throws(SyscallError) -> [String] { try real.listDirectory(path) }
    open func availableBytes(_ path: String) throws(SyscallError) -> Int64 {
        try step(.statvfs, "statvfs \(path)")
        return try real.availableBytes(path)
    }
    open func realPath(_ path: String) throws(SyscallError) -> String {
        try step(.realpath, "realpath \(path)")
        return try real.realPath(path)
    }
}
