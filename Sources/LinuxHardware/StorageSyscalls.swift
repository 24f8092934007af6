import Glibc
import Hardware
import Syscalls

/// The system calls `PosixStorage` makes, in one place (apple/swift-system style) so tests can
/// force ENOSPC, EIO, EINTR or short writes at any of them. Each call is made once: retrying
/// EINTR is the caller's job, so injected EINTRs exercise the real retry loops.
protocol StorageSyscalls: Sendable {
    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(SyscallError) -> Int32
    /// One write(2); may write fewer bytes than asked.
    func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int
    /// One read(2); 0 at end of file.
    func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int
    func fsync(_ fd: Int32) throws(SyscallError)
    /// lseek(2) with SEEK_SET; the new offset.
    func seek(_ fd: Int32, to offset: Int64) throws(SyscallError) -> Int64
    func close(_ fd: Int32) throws(SyscallError)
    func rename(_ from: String, _ to: String) throws(SyscallError)
    func unlink(_ path: String) throws(SyscallError)
    func mkdir(_ path: String, _ mode: mode_t) throws(SyscallError)
    func rmdir(_ path: String) throws(SyscallError)
    /// lstat(2) succeeded.
    func exists(_ path: String) -> Bool
    /// opendir/readdir: every name but "." and "..".
    func listDirectory(_ path: String) throws(SyscallError) -> [String]
    /// statvfs(2) (as fstatvfs on the opened directory): f_bavail × f_frsize.
    func availableBytes(_ path: String) throws(SyscallError) -> Int64
}

/// The real calls, straight to Glibc.
struct SystemStorageSyscalls: StorageSyscalls {
    private func check(_ result: Int32) throws(SyscallError) {
        if result < 0 { throw SyscallError(errno: Glibc.errno) }
    }

    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(SyscallError) -> Int32 {
        let fd = Glibc.open(path, flags, mode)
        try check(fd)
        return fd
    }

    func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int {
        let n = Glibc.write(fd, buffer.baseAddress, buffer.count)
        if n < 0 { throw SyscallError(errno: Glibc.errno) }
        return n
    }

    func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int {
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n < 0 { throw SyscallError(errno: Glibc.errno) }
        return n
    }

    func fsync(_ fd: Int32) throws(SyscallError) { try check(Glibc.fsync(fd)) }

    func seek(_ fd: Int32, to offset: Int64) throws(SyscallError) -> Int64 {
        let result = Glibc.lseek(fd, off_t(offset), SEEK_SET)
        if result < 0 { throw SyscallError(errno: Glibc.errno) }
        return Int64(result)
    }
    func close(_ fd: Int32) throws(SyscallError) { try check(Glibc.close(fd)) }
    func rename(_ from: String, _ to: String) throws(SyscallError) { try check(Glibc.rename(from, to)) }
    func unlink(_ path: String) throws(SyscallError) { try check(Glibc.unlink(path)) }
    func mkdir(_ path: String, _ mode: mode_t) throws(SyscallError) { try check(Glibc.mkdir(path, mode)) }
    func rmdir(_ path: String) throws(SyscallError) { try check(Glibc.rmdir(path)) }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    func listDirectory(_ path: String) throws(SyscallError) -> [String] {
        guard let dir = opendir(path) else { throw SyscallError(errno: Glibc.errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    func availableBytes(_ path: String) throws(SyscallError) -> Int64 {
        // fstatvfs: the name `statvfs` resolves to the struct in Swift, not the call.
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try check(fd)
        defer { Glibc.close(fd) }
        var info = statvfs()
        try check(fstatvfs(fd, &info))
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}

/// HardwareError kind for an errno from a storage call (the one mapping, `HardwareError.Kind(errno:)`).
func storageErrorKind(_ code: Int32) -> HardwareError.Kind { HardwareError.Kind(errno: code) }
