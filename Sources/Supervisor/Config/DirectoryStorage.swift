import Foundation
import Hardware

#if canImport(Glibc)
import Glibc
#endif

/// `Storage` on a directory of the real file system (`/var/lib/tripod`), with POSIX calls.
///
/// `writeAtomically` writes a hidden temp file beside the target (`.NAME.tmp-PID-N`), `fsync`s it,
/// `rename(2)`s it over the target and `fsync`s the directory: a reader (or the next boot, after
/// `kill -9` or power loss) sees the old file or the new one, never a torn one. Temp files left by
/// a killed writer are hidden from `list` and deleted by `removeStaleTemporaryFiles`.
public final class DirectoryStorage: Storage {
    /// A step of an atomic write, reported to `faultHook` (tests simulate a crash at each).
    enum WriteStep: Hashable, Sendable {
        case openedTemporary
        case wrote(byteCount: Int)
        case syncedTemporary
        case renamed
        case syncedDirectory
    }

    public let root: String
    public var rootDescription: String { root }
    /// Called after each step of an atomic write. If it throws, the write stops right there with no
    /// clean-up, as if the process had been killed: the file system is left as a crash leaves it.
    let faultHook: ((WriteStep) throws -> Void)?
    /// Largest `write(2)` per call; small values let tests stop a write half-way.
    let writeChunkBytes: Int
    private var temporaryCounter = 0

    /// Storage under `root` (an absolute directory path, created when missing).
    public convenience init(root: String) throws {
        try self.init(root: root, writeChunkBytes: 1 << 20, faultHook: nil)
    }

    init(root: String, writeChunkBytes: Int, faultHook: ((WriteStep) throws -> Void)?) throws {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        self.writeChunkBytes = max(1, writeChunkBytes)
        self.faultHook = faultHook
        do {
            try FileManager.default.createDirectory(atPath: self.root, withIntermediateDirectories: true)
        } catch {
            throw HardwareError(.permission, "\(root): cannot create the storage directory: \(error)")
        }
    }

    private func absolute(_ path: String) throws -> String {
        try validateStoragePath(path)
        return root + "/" + path
    }

    public func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let target = try absolute(path)
        let slash = target.lastIndex(of: "/") ?? target.startIndex
        let directory = String(target[..<slash])
        let name = String(target[target.index(after: slash)...])
        temporaryCounter += 1
        let temporary = "\(directory)/.\(name).tmp-\(getpid())-\(temporaryCounter)"

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 { throw posixError("open(O_CREAT|O_EXCL)", temporary) }
        var closed = false
        var temporaryExists = true
        defer {
            if !closed { close(fd) }
            if temporaryExists { unlink(temporary) }
        }
        do {
            try faultHook?(.openedTemporary)
            var offset = 0
            while offset < bytes.count {
                let count = min(writeChunkBytes, bytes.count - offset)
                let written = bytes.withUnsafeBytes { buffer -> Int in
                    guard let base = buffer.baseAddress else { return 0 }
                    return write(fd, base + offset, count)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError("write", temporary)
                }
                if written == 0 { throw HardwareError(.io, "\(temporary): write made no progress") }
                offset += written
                try faultHook?(.wrote(byteCount: offset))
            }
            if fsync(fd) != 0 { throw posixError("fsync", temporary) }
            try faultHook?(.syncedTemporary)
            closed = true
            if close(fd) != 0 { throw posixError("close", temporary) }
            if rename(temporary, target) != 0 { throw posixError("rename to \(target)", temporary) }
            temporaryExists = false
            try faultHook?(.renamed)
            try syncDirectory(directory)
            try faultHook?(.syncedDirectory)
        } catch let crash as SimulatedCrash {
            // A killed process cleans nothing up: leave the temp file where it is.
            temporaryExists = false
            throw crash
        }
    }

    private func syncDirectory(_ directory: String) throws {
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD < 0 { throw posixError("open(O_DIRECTORY)", directory) }
        defer { close(dirFD) }
        if fsync(dirFD) != 0 { throw posixError("fsync", directory) }
    }

    public func read(_ path: String) throws -> [UInt8] {
        let file = try absolute(path)
        guard let data = FileManager.default.contents(atPath: file) else {
            if access(file, R_OK) != 0 { throw posixError("open", file) }
            throw HardwareError(.io, "\(file): read failed")
        }
        return [UInt8](data)
    }

    public func fileExists(_ path: String) -> Bool {
        guard let file = try? absolute(path) else { return false }
        return access(file, F_OK) == 0
    }

    public func list(_ directory: String) throws -> [String] {
        let dir = directory.isEmpty ? root : try absolute(directory)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    public func createDirectory(_ path: String) throws {
        let dir = try absolute(path)
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw HardwareError(.permission, "\(dir): mkdir failed: \(error)")
        }
    }

    public func remove(_ path: String) throws {
        let file = try absolute(path)
        if unlink(file) != 0 { throw posixError("unlink", file) }
    }

    public func freeBytes() throws -> Int64 {
        var info = statvfs()
        if statvfs(root, &info) != 0 { throw posixError("statvfs", root) }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Deletes temp files a killed writer left in `directory` ("" for the root); returns their names.
    @discardableResult
    public func removeStaleTemporaryFiles(in directory: String = "") throws -> [String] {
        let dir = directory.isEmpty ? root : try absolute(directory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        let stale = names.filter { $0.hasPrefix(".") && $0.contains(".tmp-") }
        for name in stale where unlink(dir + "/" + name) != 0 { throw posixError("unlink", dir + "/" + name) }
        return stale.sorted()
    }

    private func posixError(_ call: String, _ path: String) -> HardwareError {
        let code = errno
        let kind: HardwareError.Kind
        switch code {
        case ENOENT, ENOTDIR: kind = .notFound
        case EACCES, EPERM, EROFS: kind = .permission
        case ENOSPC, EDQUOT: kind = .noSpace
        case EIO: kind = .io
        case EBUSY: kind = .busy
        default: kind = .other
        }
        return HardwareError(kind, "\(path): \(call) failed: \(String(cString: strerror(code)))", errno: code)
    }
}

/// Thrown by a `DirectoryStorage.faultHook` (tests) to stop a write as `kill -9` would.
struct SimulatedCrash: Error, CustomStringConvertible {
    var step: DirectoryStorage.WriteStep
    init(at step: DirectoryStorage.WriteStep) { self.step = step }
    var description: String { "simulated crash after \(step)" }
}
