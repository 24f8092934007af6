import Foundation
import Hardware

/// Frame memory the simulated camera reuses, as a real camera reuses its buffers: a frame's bytes
/// come back when its last `FrameBuffer` goes, so the next frame writes into pages already mapped
/// (a fresh multi-megabyte allocation every frame spends much of a frame's time in page faults).
final class FramePool: @unchecked Sendable {
    /// Free buffers kept per size; more are released.
    static let keptPerSize = 2
    private let lock = NSLock()
    private var free: [Int: [UnsafeMutableRawPointer]] = [:]

    deinit {
        for (_, buffers) in free { for p in buffers { p.deallocate() } }
    }

    /// A frame of `byteCount` bytes written by `fill` when they are first read (on the reader's
    /// thread); `fill` must write every byte. `smaller`: the same frame drawn smaller (FrameBuffer.smaller).
    func frame(format: PixelFormat, size: PixelSize, stride: Int, byteCount: Int, smaller: FrameBuffer? = nil,
               fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Void) -> FrameBuffer {
        let memory = take(byteCount)
        let returned = Returned(pool: self, memory: memory)
        return FrameBuffer(pixelFormat: format, size: size, stride: stride, memory: memory, render: fill,
                           release: { returned.give() }, smaller: smaller)
    }

    private func take(_ byteCount: Int) -> UnsafeMutableRawBufferPointer {
        let reused: UnsafeMutableRawPointer? = lock.withLock { free[byteCount]?.popLast() }
        return UnsafeMutableRawBufferPointer(start: reused ?? .allocate(byteCount: max(byteCount, 1), alignment: 64), count: byteCount)
    }

    fileprivate func give(_ memory: UnsafeMutableRawBufferPointer) {
        guard let base = memory.baseAddress else { return }
        let kept = lock.withLock {
            guard free[memory.count, default: []].count < Self.keptPerSize else { return false }
            free[memory.count, default: []].append(base)
            return true
        }
        if !kept { base.deallocate() }
    }

    /// A frame's memory on its way back to the pool (the buffer's release runs on any thread).
    private struct Returned: @unchecked Sendable {
        let pool: FramePool
        let memory: UnsafeMutableRawBufferPointer
        func give() { pool.give(memory) }
    }
}
