import CJPEGShim
import Foundation
import Hardware

/// Writes an RGB frame as a baseline JPEG through libjpeg-turbo (jpeg_CreateCompress,
/// jpeg_mem_dest, jpeg_write_scanlines behind a setjmp guard in CJPEGShim) with an EXIF APP1
/// segment from `ExifEncoder`.
public enum JPEGWriter {
    /// The JPEG file bytes for `frame` (`PixelFormat.bgr888`: memory R,G,B; `.rgb888`: B,G,R).
    /// `quality` is libjpeg's 1...100. Throws `MediaError` (.invalidFrame, .notYet, .encoding).
    public static func encode(_ frame: FrameBuffer, exif: CaptureExif, quality: Int = 92) throws -> [UInt8] {
        try compress(frame, app1: ExifEncoder.app1Payload(exif), quality: quality)
    }

    /// The JPEG file bytes for `frame` without metadata (the browser remote's preview).
    public static func encode(_ frame: FrameBuffer, quality: Int) throws -> [UInt8] {
        try compress(frame, app1: [], quality: quality)
    }

    /// The JPEG of `frame` with `app1` as its APP1 segment (none when empty): tripod_jpeg_compress.
    static func compress(_ frame: FrameBuffer, app1: [UInt8], quality: Int) throws -> [UInt8] {
        let order: tripod_jpeg_order
        switch frame.pixelFormat {
        case .bgr888: order = TRIPOD_JPEG_RGB
        case .rgb888: order = TRIPOD_JPEG_BGR
        default:
            throw MediaError(.notYet, "not yet: JPEG from \(frame.pixelFormat) (only BGR888/RGB888 frames)")
        }
        let width = frame.size.width, height = frame.size.height
        guard width > 0, height > 0, frame.stride >= width * 3,
              frame.byteCount >= frame.stride * (height - 1) + width * 3 else {
            throw MediaError(.invalidFrame, "RGB frame \(frame.size): \(frame.byteCount) bytes with stride \(frame.stride) cannot be a JPEG")
        }
        // Straight into the returned array: room for 1 byte per pixel (q92 of a noisy 12 MP frame
        // takes about half that); only past it does libjpeg grow a buffer of its own, copied once here.
        let capacity = width * height + app1.count + 65_536
        var message = [CChar](repeating: 0, count: 256)
        var spilled: [UInt8]?
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var out: UnsafeMutablePointer<UInt8>?
            var count = 0
            let ok = frame.withUnsafeBytes { pixels in
                tripod_jpeg_compress(pixels.bindMemory(to: UInt8.self).baseAddress, UInt32(width), UInt32(height),
                                     frame.stride, order, Int32(min(max(quality, 1), 100)), app1, app1.count,
                                     buffer.baseAddress, buffer.count, &out, &count, &message, message.count)
            }
            initialized = 0
            guard ok == 1, let out else { failed = true; return }
            if out == buffer.baseAddress {
                initialized = count
            } else {
                spilled = Array(UnsafeBufferPointer(start: out, count: count))
                free(out)
            }
        }
        guard !failed else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw MediaError(.encoding, "JPEG: libjpeg compress \(frame.size) failed: \(text)")
        }
        return spilled ?? bytes
    }
}
