import Foundation
import Glibc
import Hardware
import LinuxHardware

/// A `Storage` standing in for an SD card in benchmarks: the real `PosixStorage` underneath, with
/// every write paced by a token bucket on bytes, so files land no faster than `bytesPerSecond`.
///
/// Each write first goes to the real directory; then the bucket is refilled for the time passed
/// and charged the write's bytes, and a deficit is slept off (`nanosleep`). A write therefore takes
/// max(the real write, its bytes at the card's rate), less whatever burst the bucket had saved
/// (at most `burstBytes`, a card's small write cache). Reads, listings and checks are not paced.
/// Used from one thread at a time.
final class PacedStorage: Storage {
    let inner: PosixStorage
    let bytesPerSecond: Double
    let burstBytes: Double
    private var tokens: Double
    private var refilledAt: Int64
    /// Nanoseconds spent sleeping for the pace, in total.
    private(set) var pacedNanoseconds: Int64 = 0
    /// Bytes charged so far.
    private(set) var bytesWritten: Int64 = 0

    init(root: String, bytesPerSecond: Double, burstBytes: Double = 1_048_576) throws {
        guard bytesPerSecond > 0, burstBytes >= 0 else {
            throw HardwareError(.invalidArgument, "paced storage: rate \(bytesPerSecond) B/s and burst \(burstBytes) B must be positive")
        }
        inner = try PosixStorage(root: root)
        self.bytesPerSecond = bytesPerSecond
        self.burstBytes = burstBytes
        tokens = burstBytes
        refilledAt = monotonicNanoseconds()
    }

    var rootDescription: String { inner.rootDescription + " (paced at \(String(format: "%.0f", bytesPerSecond / 1e6)) MB/s)" }

    func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try inner.writeAtomically(bytes, to: path)
        pace(bytes.count)
    }

    /// Streamed: each write of the stream is paced as it is made, so the card's pace overlaps
    /// whatever the writer does between writes (a DNG's preview, its tags).
    func writeAtomically<R>(to path: String, streaming body: (any StorageStream) throws -> R) throws -> R {
        try inner.writeAtomically(to: path) { stream in try body(PacedStream(inner: stream, storage: self)) }
    }

    func read(_ path: String) throws -> [UInt8] { try inner.read(path) }
    func fileExists(_ path: String) -> Bool { inner.fileExists(path) }
    func list(_ directory: String) throws -> [String] { try inner.list(directory) }
    func createDirectory(_ path: String) throws { try inner.createDirectory(path) }
    func remove(_ path: String) throws { try inner.remove(path) }
    func freeBytes() throws -> Int64 { try inner.freeBytes() }

    /// Charges `count` bytes and sleeps until the bucket is no longer in deficit.
    fileprivate func pace(_ count: Int) {
        let now = monotonicNanoseconds()
        tokens = min(burstBytes, tokens + Double(now - refilledAt) * bytesPerSecond / 1e9)
        refilledAt = now
        tokens -= Double(count)
        bytesWritten += Int64(count)
        guard tokens < 0 else { return }
        let wait = Int64((-tokens / bytesPerSecond * 1e9).rounded(.up))
        var request = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
        pacedNanoseconds += wait
        // The sleep paid the deficit: the bucket is empty, and refills from now.
        tokens = 0
        refilledAt = monotonicNanoseconds()
    }
}

/// A stream of `PacedStorage`: every write is charged to the bucket after it is made.
private final class PacedStream: StorageStream {
    let inner: any StorageStream
    let storage: PacedStorage
    init(inner: any StorageStream, storage: PacedStorage) { self.inner = inner; self.storage = storage }
    var offset: Int64 { inner.offset }
    var size: Int64 { inner.size }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try inner.write(bytes)
        storage.pace(bytes.count)
    }
    func seek(to offset: Int64) throws { try inner.seek(to: offset) }
    func sync() throws { try inner.sync() }
    func close() throws { try inner.close() }
    func startWriteback() { inner.startWriteback() }
}
