import Foundation
import Hardware
import LinuxHardware

/// A `StreamingStorage` over a real directory whose streams fail with ENOSPC (or EIO) once
/// `failAfterBytes` bytes were written in total, and whose free space can be set.
public final class FaultyStorage: StreamingStorage, @unchecked Sendable {
    private let real: PosixStorage
    private let lock = NSLock()
    private var written = 0
    public var failAfterBytes: Int?
    public var fault: HardwareError = HardwareError(.noSpace, "write: No space left on device (injected)", errno: ENOSPC)
    public var freeBytesOverride: Int64?
    /// When set, the first stream write waits for it (a stalled disk), after signalling `stalled`.
    public var gate: DispatchSemaphore?
    public let stalled = DispatchSemaphore(value: 0)

    public init(root: String) throws { real = try PosixStorage(root: root) }

    public var rootDescription: String { real.rootDescription }
    public func writeAtomically(_ bytes: [UInt8], to path: String) throws { try real.writeAtomically(bytes, to: path) }
    public func read(_ path: String) throws -> [UInt8] { try real.read(path) }
    public func fileExists(_ path: String) -> Bool { real.fileExists(path) }
    public func list(_ directory: String) throws -> [String] { try real.list(directory) }
    public func createDirectory(_ path: String) throws { try real.createDirectory(path) }
    public func remove(_ path: String) throws { try real.remove(path) }
    public func freeBytes() throws -> Int64 { try freeBytesOverride ?? real.freeBytes() }

    public func createStream(_ path: String) throws -> any StorageStream {
        FaultyStream(inner: try real.createStream(path), owner: self)
    }

    /// How many of `count` bytes may still be written (nil: all).
    fileprivate func allow(_ count: Int) -> Int? {
        if let gate = lock.withLock({ () -> DispatchSemaphore? in defer { self.gate = nil }; return self.gate }) {
            stalled.signal()
            gate.wait()
        }
        return lock.withLock {
            guard let limit = failAfterBytes else { return nil }
            let allowed = max(0, min(count, limit - written))
            written += allowed
            return allowed == count ? nil : allowed
        }
    }
}

private final class FaultyStream: StorageStream {
    let inner: any StorageStream
    let owner: FaultyStorage
    init(inner: any StorageStream, owner: FaultyStorage) { self.inner = inner; self.owner = owner }
    var offset: Int64 { inner.offset }
    var size: Int64 { inner.size }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let allowed = owner.allow(bytes.count) {
            // Like a full disk: part of the write lands, then the error.
            try inner.write(UnsafeRawBufferPointer(rebasing: bytes[0..<allowed]))
            throw owner.fault
        }
        try inner.write(bytes)
    }
    func seek(to offset: Int64) throws { try inner.seek(to: offset) }
    func sync() throws { try inner.sync() }
    func close() throws { try inner.close() }
}
