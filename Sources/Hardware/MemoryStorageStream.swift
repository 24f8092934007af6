/// A `StorageStream` into memory: the bytes written, in an array that grows (a write past the end
/// leaves zeros in the gap, as a file does). For files built in memory, and storages that cannot
/// stream. Used from one thread at a time.
public final class MemoryStorageStream: StorageStream {
    /// The file so far.
    public private(set) var bytes: [UInt8] = []
    public private(set) var offset: Int64 = 0
    public var size: Int64 { Int64(bytes.count) }

    /// An empty stream with room for `capacity` bytes before the array has to grow.
    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    public func write(_ buffer: UnsafeRawBufferPointer) throws {
        let start = Int(offset), end = start + buffer.count
        if start > bytes.count { bytes.append(contentsOf: repeatElement(0, count: start - bytes.count)) }
        let overlap = min(end, bytes.count) - start
        if overlap > 0, let source = buffer.baseAddress {
            bytes.withUnsafeMutableBytes { $0.baseAddress.map { ($0 + start).copyMemory(from: source, byteCount: overlap) } }
        }
        if end > bytes.count {
            let tail = UnsafeRawBufferPointer(rebasing: buffer[max(overlap, 0)...])
            tail.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0) }
        }
        offset = Int64(end)
    }

    public func seek(to target: Int64) throws {
        guard target >= 0 else { throw HardwareError(.invalidArgument, "memory stream: seek to \(target)") }
        offset = target
    }

    public func sync() throws {}
    public func close() throws {}
}
