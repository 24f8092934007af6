import CTIFFShim
import Hardware

/// Where libtiff's bytes go while a DNG is built (`tripod_tiff_open_sink`): every positioned write
/// is passed on to a `StorageStream` (a temp file on the card, or memory) at once, and noted in a
/// ledger of the file's final bytes, so that afterwards
/// - libtiff can read back what it wrote (it reads the header to link directories), and the
///   writer can patch a directory entry (`read(at:count:)`, `write(_:at:)`);
/// - the SHA-256 of the file is taken from the bytes as they went out, in file order, with every
///   later patch applied (libtiff seeks back to fill in the first IFD's offset in the header and the
///   SubIFD's in IFD0, so the bytes do not go out in file order).
///
/// The ledger copies libtiff's own writes (tags, directories: a few KiB). The image data is not
/// copied: before handing libtiff a strip or tile, the writer names it (`expect`), and the write
/// that carries exactly that pointer and count is noted by reference (an array kept alive, or
/// memory the caller keeps valid until `sha256()` returns). Used from one thread at a time.
final class TIFFSink {
    /// Where a piece of the file's bytes is.
    enum Source {
        case array([UInt8], start: Int)
        case pointer(UnsafeRawPointer)

        func advanced(by n: Int) -> Source {
            switch self {
            case .array(let bytes, let start): return .array(bytes, start: start + n)
            case .pointer(let p): return .pointer(p + n)
            }
        }

        func withBytes<R>(count: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            switch self {
            case .array(let bytes, let start):
                return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
            case .pointer(let p):
                return try body(UnsafeRawBufferPointer(start: p, count: count))
            }
        }
    }

    /// Bytes `offset..<offset+count` of the file.
    struct Segment {
        var offset: Int
        var count: Int
        var source: Source
        var end: Int { offset + count }
    }

    let stream: any StorageStream
    /// The file's final bytes, by offset, never overlapping; the gaps are zeros.
    private(set) var segments: [Segment] = []
    /// The first storage error (the libtiff call that hit it fails; the writer throws this instead).
    private(set) var failure: (any Error)?
    /// The next piece of image data libtiff will write, named by the writer.
    private var expected: (pointer: UnsafeRawPointer, count: Int, source: Source)?
    /// Image data written since the stream was last asked to start writing back.
    private var sinceWriteback = 0
    /// Every this many bytes of image data, the stream is asked to start writing back
    /// (`StorageStream.startWriteback`), so the card works while the rest is built.
    static let writebackInterval = 4 << 20

    init(stream: any StorageStream) { self.stream = stream }

    /// The file's size: the end of its last byte written.
    var size: Int { segments.last?.end ?? 0 }

    /// The callbacks `tripod_tiff_open_sink` takes; `self` must outlive the TIFF.
    var callbacks: tripod_tiff_sink {
        tripod_tiff_sink(context: Unmanaged.passUnretained(self).toOpaque(), write: { context, bytes, count, offset in
            guard let context, let bytes else { return -1 }
            let sink = Unmanaged<TIFFSink>.fromOpaque(context).takeUnretainedValue()
            return sink.libtiffWrote(UnsafeRawBufferPointer(start: bytes, count: count), at: Int(offset)) ? Int64(count) : -1
        }, read: { context, bytes, count, offset in
            guard let context, let bytes else { return -1 }
            let sink = Unmanaged<TIFFSink>.fromOpaque(context).takeUnretainedValue()
            return sink.read(into: UnsafeMutableRawBufferPointer(start: bytes, count: count), at: Int(offset)) ? Int64(count) : -1
        })
    }

    /// Names the image data libtiff is about to write (TIFFWriteRawStrip/TIFFWriteRawTile pass the
    /// pointer through): that write is noted by reference instead of copied.
    func expect(_ bytes: UnsafeRawBufferPointer, from source: Source) {
        expected = bytes.baseAddress.map { ($0, bytes.count, source) }
    }

    private func libtiffWrote(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        var source = Source.array(Array(bytes), start: 0)
        var imageData = false
        if let expected, expected.pointer == bytes.baseAddress, expected.count == bytes.count {
            source = expected.source
            self.expected = nil
            imageData = true
        }
        do { try write(bytes, at: offset, source: source) } catch {
            failure = failure ?? error
            return false
        }
        if imageData {
            sinceWriteback += bytes.count
            if sinceWriteback >= Self.writebackInterval { stream.startWriteback(); sinceWriteback = 0 }
        }
        return true
    }

    /// Writes `bytes` at `offset` through the stream and notes them (a patch of the writer's own).
    func write(_ bytes: [UInt8], at offset: Int) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset, source: .array(bytes, start: 0)) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int, source: Source) throws {
        if stream.offset != Int64(offset) { try stream.seek(to: Int64(offset)) }
        try stream.write(bytes)
        note(Segment(offset: offset, count: bytes.count, source: source))
    }

    /// Puts `new` in the ledger over whatever it overwrites.
    private func note(_ new: Segment) {
        guard new.count > 0 else { return }
        if new.offset >= size { segments.append(new); return }  // the usual case: appended
        var kept: [Segment] = []
        kept.reserveCapacity(segments.count + 2)
        for s in segments {
            if s.end <= new.offset || s.offset >= new.end { kept.append(s); continue }
            if s.offset < new.offset { kept.append(Segment(offset: s.offset, count: new.offset - s.offset, source: s.source)) }
            if s.end > new.end {
                kept.append(Segment(offset: new.end, count: s.end - new.end, source: s.source.advanced(by: new.end - s.offset)))
            }
        }
        let at = kept.firstIndex { $0.offset > new.offset } ?? kept.count
        kept.insert(new, at: at)
        segments = kept
    }

    /// Copies the file's bytes `offset..<offset+buffer.count` (zeros in gaps); false past the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        guard offset >= 0, offset + buffer.count <= size else { return false }
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        let end = offset + buffer.count
        for s in segments where s.end > offset && s.offset < end {
            let from = max(s.offset, offset), to = min(s.end, end)
            s.source.advanced(by: from - s.offset).withBytes(count: to - from) { piece in
                UnsafeMutableRawBufferPointer(rebasing: buffer[(from - offset)...]).copyMemory(from: piece)
            }
        }
        return true
    }

    /// The file's bytes `offset..<offset+count`.
    func read(at offset: Int, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBytes { read(into: $0, at: offset) }
        guard ok else { throw MediaError(.encoding, "DNG: bytes \(offset)..<\(offset + count) are past the end of the file (\(size) bytes)") }
        return bytes
    }

    /// The SHA-256 of the file's bytes, in file order (gaps as zeros).
    func sha256() throws -> String {
        var hash = SHA256()
        let zeros = [UInt8](repeating: 0, count: 4096)
        var at = 0
        for s in segments {
            var gap = s.offset - at
            while gap > 0 { let n = min(gap, zeros.count); zeros.withUnsafeBufferPointer { hash.update(UnsafeBufferPointer(rebasing: $0[..<n])) }; gap -= n }
            s.source.withBytes(count: s.count) { hash.update($0.bindMemory(to: UInt8.self)) }
            at = s.end
        }
        return try hash.finalizeHex()
    }
}

/// Lower-case hex of `bytes`.
public func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
}
