import Glibc
import Hardware
import Syscalls

/// Files that grow front to back (videos): open(O_EXCL) under the final name, write(2) in a loop,
/// lseek(2) for a container's index, fsync. Every call goes through the syscall seam, so tests can
/// inject ENOSPC or EIO mid-file.
extension PosixStorage: StreamingStorage {
    public func createStream(_ path: String) throws -> any StorageStream {
        try validateStoragePath(path)
        let file = absolute(path)
        let fd = try calling("open \(file)") { () throws(SyscallError) in
            try sys.open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
        }
        do {
            try syncDirectory(split(file).directory)
        } catch {
            try? sys.close(fd)
            throw error
        }
        return PosixStorageStream(storage: self, fd: fd, path: file)
    }
}

/// One open file of `PosixStorage.createStream`, or the temp file of a streamed `writeAtomically`.
final class PosixStorageStream: StorageStream {
    private let storage: PosixStorage
    private var fd: Int32?
    private let path: String
    private(set) var offset: Int64 = 0
    private(set) var size: Int64 = 0

    init(storage: PosixStorage, fd: Int32, path: String) {
        self.storage = storage; self.fd = fd; self.path = path
    }

    deinit { if let fd { try? storage.sys.close(fd) } }

    private func descriptor() throws -> Int32 {
        guard let fd else { throw HardwareError(.invalidArgument, "\(path): already closed") }
        return fd
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        let fd = try descriptor()
        var done = 0
        while done < bytes.count {
            let n = try storage.calling("write \(path)") { () throws(SyscallError) in
                try storage.sys.write(fd, UnsafeRawBufferPointer(rebasing: bytes[done...]))
            }
            if n <= 0 { throw HardwareError(.io, "\(path): write returned \(n)", errno: EIO) }
            done += n
            offset += Int64(n)
            size = max(size, offset)
        }
    }

    func seek(to target: Int64) throws {
        let fd = try descriptor()
        offset = try storage.calling("lseek \(path)") { () throws(SyscallError) in
            try storage.sys.seek(fd, to: target)
        }
    }

    func sync() throws {
        let fd = try descriptor()
        try storage.calling("fsync \(path)") { () throws(SyscallError) in try storage.sys.fsync(fd) }
    }

    /// sync_file_range(SYNC_FILE_RANGE_WRITE) through the seam; a failure is left to the fsync to report.
    func startWriteback() {
        guard let fd else { return }
        try? storage.sys.startWriteback(fd)
    }

    /// Closes without fsync, if still open (a streamed atomic write that failed: its temp file goes).
    func abandon() {
        guard let fd else { return }
        self.fd = nil
        try? storage.sys.close(fd)
    }

    func close() throws {
        let fd = try descriptor()
        self.fd = nil
        do {
            try storage.calling("fsync \(path)") { () throws(SyscallError) in try storage.sys.fsync(fd) }
        } catch {
            try? storage.sys.close(fd)
            throw error
        }
        do { try storage.sys.close(fd) } catch { throw storage.hardwareError(error, "close \(path)") }
    }
}
