import Glibc
import Hardware
import Syscalls

/// The real descriptor calls with errnos injected at chosen calls (the descriptor seam, as
/// `FaultInjectingSyscalls` is for storage): `fail(.accept, errno: EMFILE)` makes the next accept
/// fail with EMFILE, then accept works again. Thread-safe: the transports call it from their own
/// threads. Open so that an in-memory device (a fake i2c-dev node) can take over some calls.
open class FaultInjectingDescriptorSyscalls: DescriptorSyscalls, @unchecked Sendable {
    /// The calls faults can be injected at (`socket` and `bind` are the Unix and the netlink ones).
    public enum Call: String, Sendable {
        case open, read, write, send, ioctl, shutdown, terminalAttributes, setTerminalAttributes
        case socket, bind, listen, accept, connect, unlink, chmod
    }

    public let real = SystemDescriptorSyscalls()
    private let faults = LockedValue<[Call: [Int32]]>([:])
    private let counts = LockedValue<[Call: Int]>([:])

    public init() {}

    /// Real calls whose next `call` fails with `errno`.
    public static func failing(_ call: Call, _ errno: Int32) -> FaultInjectingDescriptorSyscalls {
        let syscalls = FaultInjectingDescriptorSyscalls()
        syscalls.fail(call, errno: errno)
        return syscalls
    }

    /// The next `times` calls of `call` (after the faults already queued for it) fail with `errno`.
    public func fail(_ call: Call, errno: Int32, times: Int = 1) {
        faults.withLock { $0[call, default: []] += Array(repeating: errno, count: times) }
    }

    /// How many times `call` was made so far, failed calls included.
    public func count(_ call: Call) -> Int { counts.current[call] ?? 0 }

    /// Counts `call` and throws its next queued fault, if any.
    public func step(_ call: Call) throws(SyscallError) {
        counts.withLock { $0[call, default: 0] += 1 }
        let fault = faults.withLock { queued -> Int32? in
            guard var list = queued[call], !list.isEmpty else { return nil }
            let first = list.removeFirst()
            queued[call] = list
            return first
        }
        if let fault { throw SyscallError(errno: fault) }
    }

    /// `body` (the real call) after `call`'s next queued fault, if any.
    private func through<T>(_ call: Call, _ body: () throws(SyscallError) -> T) throws(SyscallError) -> T {
        try step(call)
        return try body()
    }

    open func open(_ path: String, _ flags: Int32) throws(SyscallError) -> Int32 { try through(.open) { () throws(SyscallError) in try real.open(path, flags) } }
    open func close(_ fd: Int32) { real.close(fd) }
    open func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int { try through(.read) { () throws(SyscallError) in try real.read(fd, buffer) } }
    open func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int { try through(.write) { () throws(SyscallError) in try real.write(fd, buffer) } }
    open func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, waits: Bool) throws(SyscallError) -> Int { try through(.send) { () throws(SyscallError) in try real.send(fd, buffer, waits: waits) } }
    open func isSocket(_ fd: Int32) -> Bool { real.isSocket(fd) }
    open func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError) { try through(.ioctl) { () throws(SyscallError) in try real.ioctl(fd, request, value: value) } }
    open func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError) { try through(.ioctl) { () throws(SyscallError) in try real.ioctl(fd, request, pointer: pointer) } }
    open func shutdown(_ fd: Int32) throws(SyscallError) { try through(.shutdown) { () throws(SyscallError) in try real.shutdown(fd) } }
    open func terminalAttributes(_ fd: Int32) throws(SyscallError) -> termios { try through(.terminalAttributes) { () throws(SyscallError) in try real.terminalAttributes(fd) } }
    open func setTerminalAttributes(_ fd: Int32, _ attributes: termios) throws(SyscallError) { try through(.setTerminalAttributes) { () throws(SyscallError) in try real.setTerminalAttributes(fd, attributes) } }
    open func unixStreamSocket() throws(SyscallError) -> Int32 { try through(.socket) { () throws(SyscallError) in try real.unixStreamSocket() } }
    open func bind(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError) { try through(.bind) { () throws(SyscallError) in try real.bind(fd, address) } }
    open func listen(_ fd: Int32, backlog: Int32) throws(SyscallError) { try through(.listen) { () throws(SyscallError) in try real.listen(fd, backlog: backlog) } }
    open func accept(_ fd: Int32) throws(SyscallError) -> Int32 { try through(.accept) { () throws(SyscallError) in try real.accept(fd) } }
    open func connect(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError) { try through(.connect) { () throws(SyscallError) in try real.connect(fd, address) } }
    open func unlink(_ path: String) throws(SyscallError) { try through(.unlink) { () throws(SyscallError) in try real.unlink(path) } }
    open func chmod(_ path: String, _ mode: mode_t) throws(SyscallError) { try through(.chmod) { () throws(SyscallError) in try real.chmod(path, mode) } }
    open func netlinkSocket(protocol: Int32) throws(SyscallError) -> Int32 { try through(.socket) { () throws(SyscallError) in try real.netlinkSocket(protocol: `protocol`) } }
    open func bind(_ fd: Int32, netlinkGroups groups: UInt32) throws(SyscallError) { try through(.bind) { () throws(SyscallError) in try real.bind(fd, netlinkGroups: groups) } }
}
