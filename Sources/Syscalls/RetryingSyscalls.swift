import Glibc
import Hardware

/// The seam's one EINTR retry: every call of `raw` again while it fails with EINTR (a signal
/// interrupted it), except close(2) and connect(2), whose EINTR does not mean "nothing happened".
/// Only EINTR: a short write, EAGAIN and every other errno reach the caller as they came.
/// `SystemSyscalls()` is this around `GlibcSyscalls`; tests put it around `FaultInjectingSyscalls`,
/// so an EINTR they inject is retried here.
public struct RetryingSyscalls<Raw: SystemCalls>: SystemCalls {
    /// The calls made once (the real ones, or a test double).
    public let raw: Raw

    public init(_ raw: Raw) { self.raw = raw }

    /// `call` (one call of `raw`) again while it fails with EINTR: the retry itself, for calls a
    /// module adds to the seam (libi2c's SMBus calls).
    public func retrying<T>(_ call: () throws(SyscallError) -> T) throws(SyscallError) -> T {
        while true {
            do { return try call() } catch where error.errno == EINTR { continue }
        }
    }

    // MARK: descriptors

    public func open(_ path: String, _ flags: Int32, mode: mode_t) throws(SyscallError) -> Int32 {
        try retrying { () throws(SyscallError) in try raw.open(path, flags, mode: mode) }
    }
    public func close(_ fd: Int32) throws(SyscallError) { try raw.close(fd) }
    public func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int {
        try retrying { () throws(SyscallError) in try raw.read(fd, buffer) }
    }
    public func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int {
        try retrying { () throws(SyscallError) in try raw.write(fd, buffer) }
    }
    public func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, waits: Bool) throws(SyscallError) -> Int {
        try retrying { () throws(SyscallError) in try raw.send(fd, buffer, waits: waits) }
    }
    public func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) throws(SyscallError) -> Int16 {
        try retrying { () throws(SyscallError) in try raw.poll(fd, events: events, timeoutMilliseconds: timeoutMilliseconds) }
    }
    public func isSocket(_ fd: Int32) -> Bool { raw.isSocket(fd) }
    public func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.ioctl(fd, request, value: value) }
    }
    public func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.ioctl(fd, request, pointer: pointer) }
    }
    public func shutdown(_ fd: Int32) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.shutdown(fd) }
    }
    public func terminalAttributes(_ fd: Int32) throws(SyscallError) -> termios {
        try retrying { () throws(SyscallError) in try raw.terminalAttributes(fd) }
    }
    public func setTerminalAttributes(_ fd: Int32, _ attributes: termios) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.setTerminalAttributes(fd, attributes) }
    }
    public func unixStreamSocket() throws(SyscallError) -> Int32 {
        try retrying { () throws(SyscallError) in try raw.unixStreamSocket() }
    }
    public func bind(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.bind(fd, address) }
    }
    public func listen(_ fd: Int32, backlog: Int32) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.listen(fd, backlog: backlog) }
    }
    public func accept(_ fd: Int32) throws(SyscallError) -> Int32 {
        try retrying { () throws(SyscallError) in try raw.accept(fd) }
    }
    public func connect(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError) { try raw.connect(fd, address) }
    public func chmod(_ path: String, _ mode: mode_t) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.chmod(path, mode) }
    }
    public func netlinkSocket(protocol: Int32) throws(SyscallError) -> Int32 {
        try retrying { () throws(SyscallError) in try raw.netlinkSocket(protocol: `protocol`) }
    }
    public func bind(_ fd: Int32, netlinkGroups groups: UInt32) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.bind(fd, netlinkGroups: groups) }
    }
    public func multicastSocket(group: String, port: UInt16, interface: String?, receiving: Bool) throws(SyscallError) -> Int32 {
        try retrying { () throws(SyscallError) in try raw.multicastSocket(group: group, port: port, interface: interface, receiving: receiving) }
    }

    // MARK: files

    public func fsync(_ fd: Int32) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.fsync(fd) }
    }
    public func startWriteback(_ fd: Int32) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.startWriteback(fd) }
    }
    public func seek(_ fd: Int32, to offsetBytes: Int64) throws(SyscallError) -> Int64 {
        try retrying { () throws(SyscallError) in try raw.seek(fd, to: offsetBytes) }
    }
    public func rename(_ from: String, _ to: String) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.rename(from, to) }
    }
    public func unlink(_ path: String) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.unlink(path) }
    }
    public func mkdir(_ path: String, _ mode: mode_t) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.mkdir(path, mode) }
    }
    public func rmdir(_ path: String) throws(SyscallError) {
        try retrying { () throws(SyscallError) in try raw.rmdir(path) }
    }
    public func exists(_ path: String) -> Bool { raw.exists(path) }
    public func listDirectory(_ path: String) throws(SyscallError) -> [String] {
        try retrying { () throws(SyscallError) in try raw.listDirectory(path) }
    }
    public func availableBytes(_ path: String) throws(SyscallError) -> Int64 {
        try retrying { () throws(SyscallError) in try raw.availableBytes(path) }
    }
    public func realPath(_ path: String) throws(SyscallError) -> String {
        try retrying { () throws(SyscallError) in try raw.realPath(path) }
    }
}
