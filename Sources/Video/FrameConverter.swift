import CFFmpegShim
import Hardware

/// Makes the I420 frames the encoder takes, with libswscale (`tripod_sws_to_i420`): packed RGB
/// frames (a camera without a separate video stream, such as vimc) are converted (Rec. 709,
/// limited range, like libcamera's YUV420 video streams); a frame with a warp (video
/// stabilization's rotation) is warped after that. Used on the encoder queue only;
/// keeps one cached SwsContext.
final class FrameConverter {
    private var context: OpaquePointer?

    deinit { tripod_sws_free(context) }

    /// `frame` as an I420 frame of its own (even) size, warped when it carries a warp; returned
    /// as is when it is I420 without one. Same sequence and timestamps.
    func convert(_ frame: VideoFrame) throws(VideoError) -> VideoFrame {
        let source = try toI420(frame)
        guard let warp = frame.warp else { return source }
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

    /// `frame` converted to I420 (as it is when already I420).
    private func toI420(_ frame: VideoFrame) throws(VideoError) -> VideoFrame {
        guard frame.pixelFormat != .yuv420 else { return frame }
        let layout: tripod_packed_rgb
        switch frame.pixelFormat {
        case .bgr888: layout = TRIPOD_RGB_RGB24      // libcamera's BGR888 is R, G, B in memory
        case .rgb888: layout = TRIPOD_RGB_BGR24      // and RGB888 is B, G, R
        case .xrgb8888: layout = TRIPOD_RGB_BGRX32
        default: throw VideoError(.invalidArgument, "video cannot convert \(frame.pixelFormat)")
        }
        let size = PixelSize(width: frame.size.width & ~1, height: frame.size.height & ~1)
        var result: Int32 = 0
        var converted = try VideoFrame(size: size, stride: size.width, sequence: frame.sequence,
                                       sensorTimestamp: frame.sensorTimestamp) { target in
            result = tripod_sws_to_i420(&context, frame.bytes.base.assumingMemoryBound(to: UInt8.self), Int32(frame.stride),
                                        Int32(layout.rawValue), Int32(frame.size.height),
                                        0, 0, Int32(size.width), Int32(size.height),
                                        target.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(size.width),
                                        Int32(size.width), Int32(size.height))
        }
        try checkAV(result, "libswscale \(frame.pixelFormat) → YUV420 \(size) of frame \(frame.sequence)")
        converted.wallClockNanoseconds = frame.wallClockNanoseconds
        converted.exposure = frame.exposure
        converted.stabilized = frame.stabilized
        return converted
    }
}
