/// The pixels of one stream of one completed frame: read-only, owned or memory-mapped.
///
/// Immutable after creation. For libcamera buffers the bytes are an mmap of the dmabuf and
/// `release` returns the buffer to the camera once the last reference goes.
public final class FrameBuffer: @unchecked Sendable {
    public let pixelFormat: PixelFormat
    public let size: PixelSize
    /// Bytes per line.
    public let stride: Int
    private let owned: [UInt8]?
    private let mapped: UnsafeRawBufferPointer?
    private let release: (@Sendable () -> Void)?
    /// Writes the bytes at their first access (simulated frames), then nil.
    private let pending: LockedValue<Render?>?
    private struct Render: Sendable { let write: @Sendable (UnsafeMutableRawBufferPointer) -> Void }
    /// The same frame drawn about `smallerWidth` wide, straight from what it shows, or nil. The
    /// simulated camera gives its processed frames one, as an ISP's second, smaller output: a
    /// preview reads it instead of drawing the whole frame only to scale it down. Lazily drawn too.
    public let smaller: FrameBuffer?
    /// The width of `smaller` (the browser remote's preview width).
    public static let smallerWidth = 640

    /// A buffer that owns its bytes (simulated frames, tests).
    public init(pixelFormat: PixelFormat, size: PixelSize, stride: Int, bytes: [UInt8]) {
        self.pixelFormat = pixelFormat; self.size = size; self.stride = stride
        self.owned = bytes; self.mapped = nil; self.release = nil; self.pending = nil; self.smaller = nil
    }

    /// A buffer over memory someone else owns; `release` runs when this object goes away.
    public init(pixelFormat: PixelFormat, size: PixelSize, stride: Int,
                mapping: UnsafeRawBufferPointer, release: @escaping @Sendable () -> Void) {
        self.pixelFormat = pixelFormat; self.size = size; self.stride = stride
        self.owned = nil; self.mapped = mapping; self.release = release; self.pending = nil; self.smaller = nil
    }

    /// A buffer over `memory` that `render` fills at the first access to the bytes, on the thread
    /// that asks, once (a simulated stream nobody reads is never drawn); `release` runs when this
    /// object goes away. `render` must write every byte. `smaller`: the same frame drawn smaller.
    public init(pixelFormat: PixelFormat, size: PixelSize, stride: Int, memory: UnsafeMutableRawBufferPointer,
                render: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Void, release: @escaping @Sendable () -> Void,
                smaller: FrameBuffer? = nil) {
        self.pixelFormat = pixelFormat; self.size = size; self.stride = stride
        self.owned = nil; self.mapped = UnsafeRawBufferPointer(memory); self.release = release
        self.pending = LockedValue(Render(write: render))
        self.smaller = smaller
    }

    /// False while a lazily rendered buffer's bytes are still to be drawn.
    public var isRendered: Bool { pending?.withLock { $0 == nil } ?? true }

    deinit { release?() }

    public var byteCount: Int { owned?.count ?? mapped?.count ?? 0 }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let owned { return try owned.withUnsafeBytes(body) }
        if let pending, let mapped {
            // Drawn under the lock: a second reader waits for the bytes rather than see them half done.
            pending.withLock { render in
                guard let write = render?.write else { return }
                render = nil
                write(UnsafeMutableRawBufferPointer(mutating: mapped))
            }
        }
        return try body(mapped ?? UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// A copy of the bytes.
    public var bytes: [UInt8] { owned ?? withUnsafeBytes { Array($0) } }
}
