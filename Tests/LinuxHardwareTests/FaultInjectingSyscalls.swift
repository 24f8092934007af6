import Foundation
import Glibc
import Hardware
import Syscalls
@testable import LinuxHardware

/// Real system calls with scripted faults: the Nth call of an operation fails with an errno
/// (EINTR included), writes can be capped to force short writes, the process can be "killed"
/// after N calls (every later call is refused without touching the disk, as after `kill -9`),
/// and every call is logged.
final class FaultInjectingSyscalls: StorageSyscalls, @unchecked Sendable {
    enum Operation: String, Sendable { case open, write, read, fsync, seek, close, rename, unlink, mkdir, statvfs }

    private let real = SystemStorageSyscalls()
    private let lock = NSLock()
    private var counts: [Operation: Int] = [:]
    private var faults: [Operation: [Int: Int32]] = [:]
    /// At most this many bytes per write(2), when set.
    var maximumWriteBytes: Int?
    /// "fsync /path", "rename a -> b", … in call order.
    private(set) var log: [String] = []
    /// False to stop logging (a writer that runs until killed would grow the log without bound).
    var keepsLog = true
    /// Calls still allowed before the simulated kill; nil when no kill is armed.
    private var callsBeforeKill: Int?
    /// True once a call was refused because of `kill(afterCalls:)`.
    private(set) var killed = false

    /// Simulates `kill -9` after `n` more calls (of the logged operations): from then on every call
    /// fails with ECANCELED and does nothing, so clean-up code cannot undo what a crash leaves.
    func kill(afterCalls n: Int) {
        lock.withLock { callsBeforeKill = n }
    }

    /// Makes the `n`th (1-based, counted from now) call of `operation` fail with `code`.
    func fail(_ operation: Operation, call n: Int = 1, errno code: Int32) {
        lock.withLock { faults[operation, default: [:]][(counts[operation] ?? 0) + n] = code }
    }

    private func step(_ operation: Operation, _ entry: String) throws(SyscallError) {
        let code: Int32? = lock.withLock {
            if let remaining = callsBeforeKill {
                if remaining == 0 { killed = true; return ECANCELED }
                callsBeforeKill = remaining - 1
            }
            let n = (counts[operation] ?? 0) + 1
            counts[operation] = n
            if keepsLog { log.append(entry) }
            return faults[operation]?.removeValue(forKey: n)
        }
        if let code { throw SyscallError(errno: code) }
    }

    private var descriptors: [Int32: String] = [:]

    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(SyscallError) -> Int32 {
        try step(.open, "open \(path)")
        let fd = try real.open(path, flags, mode)
        lock.withLock { descriptors[fd] = path }
        return fd
    }
    func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int {
        try step(.write, "write \(name(fd))")
        let count = min(buffer.count, maximumWriteBytes ?? buffer.count)
        return try real.write(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
    func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int {
        try step(.read, "read \(name(fd))")
        return try real.read(fd, buffer)
    }
    func fsync(_ fd: Int32) throws(SyscallError) {
        try step(.fsync, "fsync \(name(fd))")
        try real.fsync(fd)
    }
    func seek(_ fd: Int32, to offset: Int64) throws(SyscallError) -> Int64 {
        try step(.seek, "seek \(name(fd)) \(offset)")
        return try real.seek(fd, to: offset)
    }
    func close(_ fd: Int32) throws(SyscallError) {
        let path = name(fd)
        lock.withLock { _ = descriptors.removeValue(forKey: fd) }
        do { try step(.close, "close \(path)") } catch {
            try? real.close(fd)  // like Linux: the descriptor is gone even when close reports an error
            throw error
        }
        try real.close(fd)
    }
    func rename(_ from: String, _ to: String) throws(SyscallError) {
        try step(.rename, "rename \(from) -> \(to)")
        try real.rename(from, to)
    }
    func unlink(_ path: String) throws(SyscallError) {
        try step(.unlink, "unlink \(path)")
        try real.unlink(path)
    }
    func mkdir(_ path: String, _ mode: mode_t) throws(SyscallError) {
        try step(.mkdir, "mkdir \(path)")
        try real.mkdir(path, mode)
    }
    func rmdir(_ path: String) throws(SyscallError) { try real.rmdir(path) }
    func exists(_ path: String) -> Bool { real.exists(path) }
    func listDirectory(_ path: String) throws(SyscallError) -> [String] { try real.listDirectory(path) }
    func availableBytes(_ path: String) throws(SyscallError) -> Int64 {
        try step(.statvfs, "statvfs \(path)")
        return try real.availableBytes(path)
    }

    private func name(_ fd: Int32) -> String { lock.withLock { descriptors[fd] ?? "fd \(fd)" } }
}

/// A fresh directory under the system temporary directory.
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "tripod-storage-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A storage over a fresh temporary directory (or `subdirectory` of it) whose system calls go
/// through a `FaultInjectingSyscalls` that writes at most `maximumWriteBytes` a call; the caller
/// removes `directory` when done.
func makeFaultInjectedStorage(subdirectory: String = "", maximumWriteBytes: Int? = nil) throws
    -> (directory: String, syscalls: FaultInjectingSyscalls, storage: PosixStorage) {
    let directory = try makeTemporaryDirectory()
    let syscalls = FaultInjectingSyscalls()
    if let maximumWriteBytes { syscalls.maximumWriteBytes = maximumWriteBytes }
    do { return (directory, syscalls, try PosixStorage(root: directory + subdirectory, syscalls: syscalls)) }
    catch { try? FileManager.default.removeItem(atPath: directory); throw error }
}

/// Every name in a directory, hidden files included (what a person with `ls -a` would see).
func allNames(_ directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
}
