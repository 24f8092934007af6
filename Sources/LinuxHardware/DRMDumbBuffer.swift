import CDRM
import Glibc
import Hardware

/// One scan-out buffer: a dumb buffer (`DRM_IOCTL_MODE_CREATE_DUMB` via `drmModeCreateDumbBuffer`),
/// registered as a framebuffer (`drmModeAddFB2`) and mapped (`DRM_IOCTL_MODE_MAP_DUMB` via
/// `drmModeMapDumbBuffer`, then `mmap`). Destroyed in reverse order by `release()`.
final class DRMDumbBuffer {
    let size: PixelSize
    let format: DRMScanoutFormat
    private(set) var handle: UInt32 = 0
    private(set) var framebufferID: UInt32 = 0
    private(set) var pitch = 0
    private(set) var byteCount = 0
    private(set) var memory: UnsafeMutableRawPointer?
    private let card: DRMCard

    init(card: DRMCard, size: PixelSize, format: DRMScanoutFormat) throws(HardwareError) {
        self.card = card; self.size = size; self.format = format
        var pitch32: UInt32 = 0, bytes: UInt64 = 0
        try card.check(drmModeCreateDumbBuffer(card.fd, UInt32(size.width), UInt32(size.height),
                                               UInt32(format.bitsPerPixel), 0, &handle, &pitch32, &bytes),
                       "drmModeCreateDumbBuffer \(size) \(format.rawValue)")
        pitch = Int(pitch32); byteCount = Int(bytes)
        do throws(HardwareError) {
            var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
            var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch32, 0, 0, 0)
            var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
            let result = withUnsafePointer(to: &handles) { h in
                withUnsafePointer(to: &pitches) { p in
                    withUnsafePointer(to: &offsets) { o in
                        drmModeAddFB2(card.fd, UInt32(size.width), UInt32(size.height), format.fourcc,
                                      UnsafeRawPointer(h).assumingMemoryBound(to: UInt32.self),
                                      UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self),
                                      UnsafeRawPointer(o).assumingMemoryBound(to: UInt32.self), &framebufferID, 0)
                    }
                }
            }
            try card.check(result, "drmModeAddFB2 \(size) \(format.rawValue)")
            var offset: UInt64 = 0
            try card.check(drmModeMapDumbBuffer(card.fd, handle, &offset), "drmModeMapDumbBuffer")
            let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, card.fd, off_t(offset))
            guard let mapped, mapped != MAP_FAILED else { throw DRMCard.error(errno, "\(card.path): mmap dumb buffer") }
            memory = mapped
            memset(mapped, 0, byteCount)
        } catch {
            release()
            throw error
        }
    }

    /// Writes an XRGB8888 image of exactly `size` into the buffer, converting to its format.
    func write(_ pixels: [UInt32]) {
        guard let memory, pixels.count == size.area, pitch * size.height <= byteCount else { return }
        pixels.withUnsafeBufferPointer { DRMPixelPacking.pack($0, size: size, format: format, into: memory, pitch: pitch) }
    }

    /// Unmaps, removes the framebuffer and destroys the dumb buffer; safe to call twice.
    func release() {
        if let memory { munmap(memory, byteCount); self.memory = nil }
        if framebufferID != 0 { _ = drmModeRmFB(card.fd, framebufferID); framebufferID = 0 }
        if handle != 0 { _ = drmModeDestroyDumbBuffer(card.fd, handle); handle = 0 }
    }

    deinit { release() }
}
