/// Where captures and state go. Paths are relative to the storage root; nothing can escape it.
public protocol Storage: AnyObject {
    /// The root, for messages ("/var/lib/tripod/captures").
    var rootDescription: String { get }
    /// Writes `bytes` to `path` atomically: temp file, fsync, rename, fsync of the directory.
    /// Afterwards the file is either complete or absent; never partial.
    func writeAtomically(_ bytes: [UInt8], to path: String) throws
    /// Writes `path` atomically as `body` streams it into the stream it is given (writes, seeks
    /// back): the same temp file, fsync, rename and directory fsync as `writeAtomically`, so a
    /// file built while it is written is also complete or absent. When `body` throws, or any
    /// call fails, nothing is left (no file, no temp file) and the error is rethrown as it is.
    /// `body` must not sync or close the stream. A storage that cannot stream builds the file
    /// in memory (`MemoryStorageStream`) and writes it with `writeAtomically`.
    func writeAtomically<R>(to path: String, streaming body: (any StorageStream) throws -> R) throws -> R
    /// Reads a whole file.
    func read(_ path: String) throws -> [UInt8]
    func fileExists(_ path: String) -> Bool
    /// Names in a directory (empty when it does not exist), temp files excluded. `list("")` lists the root.
    func list(_ directory: String) throws -> [String]
    /// Creates a directory and its parents.
    func createDirectory(_ path: String) throws
    func remove(_ path: String) throws
    /// Free bytes available to this process (`statvfs`: f_bavail × f_frsize).
    func freeBytes() throws -> Int64
}

extension Storage {
    public func writeAtomically<R>(to path: String, streaming body: (any StorageStream) throws -> R) throws -> R {
        let stream = MemoryStorageStream()
        let result = try body(stream)
        try writeAtomically(stream.bytes, to: path)
        return result
    }
}

/// Checks a relative storage path: no absolute paths, no "..", no empty or hidden components.
public func validateStoragePath(_ path: String) throws {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard !path.isEmpty, !path.hasPrefix("/"),
          parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.hasPrefix(".") }),
          !path.contains("\0") else {
        throw HardwareError(.invalidArgument, "path \"\(path)\" is outside the storage root or not allowed")
    }
}

/// A file written front to back while it grows (a video), with seeks back for a container's index.
///
/// Unlike `writeAtomically`, the bytes are visible under the final name as they are written, so a
/// crash leaves what was written so far (a fragmented MP4 stays playable up to its last fragment).
/// Used from one thread at a time.
public protocol StorageStream: AnyObject {
    /// Writes all of `bytes` at the current offset (short writes and EINTR retried).
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Moves the write offset to `offset` bytes from the start (lseek SEEK_SET).
    func seek(to offset: Int64) throws
    /// The current write offset.
    var offset: Int64 { get }
    /// The file's size: the furthest byte written.
    var size: Int64 { get }
    /// Makes what was written durable (fsync).
    func sync() throws
    /// Syncs and closes; the stream is unusable afterwards.
    func close() throws
    /// Asks for what was written so far to start going to the medium, without waiting for it, so
    /// that a later sync has less to wait for (work done meanwhile overlaps the card's). A hint:
    /// a stream that cannot does nothing, and errors show at the sync.
    func startWriteback()
}

extension StorageStream {
    public func startWriteback() {}
}

/// A `Storage` that can also grow files front to back.
public protocol StreamingStorage: Storage, Sendable {
    /// Creates `path` (which must not exist) for writing front to back; its directory entry is
    /// made durable at once.
    func createStream(_ path: String) throws -> any StorageStream
}
