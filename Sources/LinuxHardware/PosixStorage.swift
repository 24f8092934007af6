import Glibc
import Hardware
import Syscalls

/// The real `Storage`: files under a root directory, each write atomic and durable.
///
/// `writeAtomically`: open a hidden temp file in the same directory with O_EXCL, write it all
/// (continuing short writes; the seam retries EINTR) or let the caller stream it (a DNG built as
/// it is written), fsync, close, rename over the target, fsync the directory. Every call goes through the syscall seam (`SystemCalls`, module Syscalls).
/// On any failure before the rename the temp file is removed, so the target keeps its old
/// content or stays absent: never partial. Errors are `HardwareError`s naming the path and call.
public final class PosixStorage: Storage, Sendable {
    /// The root directory, as given (absolute, or relative to the working directory).
    public let root: String
    public var rootDescription: String { root }
    let sys: any SystemCalls
    private let tempCounter = LockedValue<UInt64>(0)

    /// Storage under `root`, created (with parents) when missing.
    public convenience init(root: String) throws {
        try self.init(root: root, syscalls: SystemSyscalls())
    }

    init(root: String, syscalls: any SystemCalls) throws {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.sys = syscalls
        var prefix = self.root.hasPrefix("/") ? "" : "."
        for part in self.root.split(separator: "/") {
            prefix += "/" + part
            try makeDirectory(prefix)
        }
    }

    public func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try writeAtomically(to: path) { stream in try bytes.withUnsafeBytes { try stream.write($0) } }
    }

    /// The one atomic write: `body` streams into the temp file (writes, seeks back), then fsync,
    /// close, rename, fsync of the directory. A throw from `body` or any call closes and unlinks
    /// the temp file and rethrows the error as it is.
    public func writeAtomically<R>(to path: String, streaming body: (any StorageStream) throws -> R) throws -> R {
        try validateStoragePath(path)
        let target = absolute(path)
        let (directory, name) = split(target)
        let serial = tempCounter.withLock { value in value += 1; return value }
        let temp = "\(directory)/.\(name).tmp-\(getpid())-\(serial)"
        let fd = try calling("open \(temp)") { () throws(SyscallError) in
            try sys.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
        }
        let stream = PosixStorageStream(storage: self, fd: fd, path: temp)
        let result: R
        do {
            result = try body(stream)
            try stream.close()  // fsync, close
            do { try sys.rename(temp, target) } catch { throw hardwareError(error, "rename \(temp) to \(target)") }
        } catch {
            stream.abandon()
            try? sys.unlink(temp)
            throw error
        }
        try syncDirectory(directory)
        return result
    }

    public func read(_ path: String) throws -> [UInt8] {
        try validateStoragePath(path)
        let file = absolute(path)
        let fd = try calling("open \(file)") { () throws(SyscallError) in try sys.open(file, O_RDONLY | O_CLOEXEC) }
        defer { try? sys.close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try chunk.withUnsafeMutableBytes { buffer in
                try calling("read \(file)") { () throws(SyscallError) in try sys.read(fd, buffer) }
            }
            if n == 0 { return result }
            result += chunk[0..<n]
        }
    }

    public func fileExists(_ path: String) -> Bool {
        (try? validateStoragePath(path)) != nil && sys.exists(absolute(path))
    }

    /// Names in `directory` ("" for the root), hidden and temp files excluded, sorted.
    public func list(_ directory: String) throws -> [String] {
        try listAll(directory).filter { !$0.hasPrefix(".") }
    }

    public func createDirectory(_ path: String) throws {
        try validateStoragePath(path)
        var prefix = root
        for part in path.split(separator: "/") {
            prefix += "/" + part
            try makeDirectory(prefix)
        }
    }

    public func remove(_ path: String) throws {
        try validateStoragePath(path)
        let file = absolute(path)
        do { try sys.unlink(file) } catch {
            guard error.errno == EISDIR else { throw hardwareError(error, "unlink \(file)") }
            do { try sys.rmdir(file) } catch { throw hardwareError(error, "rmdir \(file)") }
        }
    }

    public func freeBytes() throws -> Int64 {
        do { return try sys.availableBytes(root) } catch { throw hardwareError(error, "statvfs \(root)") }
    }

    /// Removes temp files a crash left in `directory` ("" for the root); returns how many.
    /// Call at start, before any write.
    @discardableResult
    public func removeStaleTemporaryFiles(in directory: String) throws -> Int {
        let stale = try listAll(directory).filter { $0.hasPrefix(".") && $0.contains(".tmp-") }
        let base = directory.isEmpty ? root : absolute(directory)
        for name in stale {
            do { try sys.unlink(base + "/" + name) } catch { throw hardwareError(error, "unlink \(base)/\(name)") }
        }
        return stale.count
    }

    /// Removes temp files a crash left in the root and in every folder directly under it (the
    /// dated capture folders); returns how many. Call at start, before any write.
    @discardableResult
    public func removeStaleTemporaryFilesInFolders() throws -> Int {
        var removed = try removeStaleTemporaryFiles(in: "")
        for name in try listAll("") where !name.hasPrefix(".") {
            // Only folders: a file there is not listable (ENOTDIR), and is skipped.
            do { _ = try sys.listDirectory(root + "/" + name) } catch { continue }
            removed += try removeStaleTemporaryFiles(in: name)
        }
        return removed
    }

    // MARK: - Helpers

    private func listAll(_ directory: String) throws -> [String] {
        if !directory.isEmpty { try validateStoragePath(directory) }
        let path = directory.isEmpty ? root : absolute(directory)
        do { return try sys.listDirectory(path).sorted() } catch {
            if error.errno == ENOENT { return [] }
            throw hardwareError(error, "opendir \(path)")
        }
    }

    private func makeDirectory(_ path: String) throws {
        do { try sys.mkdir(path, 0o755) } catch {
            guard error.errno == EEXIST else { throw hardwareError(error, "mkdir \(path)") }
        }
    }

    /// fsync of a directory, so a rename in it survives power loss.
    func syncDirectory(_ directory: String) throws {
        let fd = try calling("open \(directory)") { () throws(SyscallError) in
            try sys.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { try? sys.close(fd) }
        try calling("fsync \(directory)") { () throws(SyscallError) in try sys.fsync(fd) }
    }

    func absolute(_ path: String) -> String { root + "/" + path }

    func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// Runs one call of the seam (which retries EINTR); its errno becomes a HardwareError naming `call`.
    func calling<R>(_ call: String, _ body: () throws(SyscallError) -> R) throws -> R {
        do { return try body() } catch { throw hardwareError(error, call) }
    }

    func hardwareError(_ error: SyscallError, _ call: String) -> HardwareError {
        HardwareError(HardwareError.Kind(errno: error.errno), "\(call): \(String(cString: strerror(error.errno)))", errno: error.errno)
    }
}
