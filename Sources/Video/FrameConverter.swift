import CFFmpegShim
import Hardware

/// Makes the I420 frames the encoder takes, with libswscale (`tripod_sws_to_i420`): packed RGB
/// frames (a camera without a separate video stream, such as vimc) are converted (Rec. 709,
/// limited range, like libcamera's YUV420 video streams), and a frame with a stabilization crop
/// has that rectangle cut out and scaled back to the frame's size; a frame with a warp (video
/// stabilization's rotation) is warped after that. Used on the encoder queue only;
/// keeps one cached SwsContext.
final class FrameConverter {
    private var context: OpaquePointer?

    deinit { tripod_sws_free(context) }

    /// `frame` as an I420 frame of its own (even) size, cropped when it carries a crop; returned
    /// as is when it is I420 without a crop. Same sequence and timestamps.
    func convert(_ frame: VideoFrame) throws(VideoError) -> VideoFrame {
        guard let warp = frame.warp else { return try cropOrConvert(frame) }
        var plain = frame
        plain.warp = nil
        plain.crop = nil
        let source = try cropOrConvert(plain)
        var warped = try VideoFrame(size: source.size, stride: source.size.width, sequence: source.sequence,
                                    sensorTimestamp: source.sensorTimestamp) { target in
            guard let base = target.baseAddress else { return }
            warp.warp(source: UnsafeRawPointer(source.bytes.base), sourceStride: source.stride, into: base,
                      targetStride: source.size.width, size: source.size)
        }
        warped.wallClockNanoseconds = frame.wallClockNanoseconds
        warped.exposure = frame.exposure
        warped.stabilized = frame.stabilized
        return warped
    }

    /// `frame` converted to I420 and cut to its crop (as it is when already I420 without one).
    private func cropOrConvert(_ frame: VideoFrame) throws(VideoError) -> VideoFrame {
        guard frame.pixelFormat != .yuv420 || frame.crop != nil else { return frame }
        let layout: tripod_packed_rgb
        switch frame.pixelFormat {
        case .yuv420: layout = TRIPOD_I420
        case .bgr888: layout = TRIPOD_RGB_RGB24      // libcamera's BGR888 is R, G, B in memory
        case .rgb888: layout = TRIPOD_RGB_BGR24      // and RGB888 is B, G, R
        case .xrgb8888: layout = TRIPOD_RGB_BGRX32
        default: throw VideoError(.invalidArgument, "video cannot convert \(frame.pixelFormat)")
        }
        let size = PixelSize(width: frame.size.width & ~1, height: frame.size.height & ~1)
        var crop = frame.crop ?? PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        if layout == TRIPOD_I420 { crop.x &= ~1; crop.y &= ~1 }
        guard crop.x >= 0, crop.y >= 0, crop.width > 0, crop.height > 0,
              crop.x + crop.width <= frame.size.width, crop.y + crop.height <= frame.size.height else {
            throw VideoError(.invalidArgument, "frame \(frame.sequence): crop \(crop) is outside the \(frame.size) frame")
        }
        var result: Int32 = 0
        var converted = try VideoFrame(size: size, stride: size.width, sequence: frame.sequence,
                                       sensorTimestamp: frame.sensorTimestamp) { target in
            result = tripod_sws_to_i420(&context, frame.bytes.base.assumingMemoryBound(to: UInt8.self), Int32(frame.stride),
                                        Int32(layout.rawValue), Int32(frame.size.height),
                                        Int32(crop.x), Int32(crop.y), Int32(crop.width), Int32(crop.height),
                                        target.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(size.width),
                                        Int32(size.width), Int32(size.height))
        }
        try checkAV(result, "libswscale \(frame.pixelFormat) \(crop) → YUV420 \(size) of frame \(frame.sequence)")
        converted.wallClockNanoseconds = frame.wallClockNanoseconds
        converted.exposure = frame.exposure
        converted.stabilized = frame.stabilized
        return converted
    }
}
