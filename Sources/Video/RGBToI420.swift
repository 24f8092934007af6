import CFFmpegShim
import Hardware

/// Converts packed RGB frames (a camera without a separate video stream, such as vimc) to the
/// I420 frames the encoder takes, with libswscale (`tripod_sws_rgb_to_i420`): Rec. 709, limited
/// range, like libcamera's YUV420 video streams. Used on the encoder queue only; keeps one cached
/// SwsContext.
final class RGBToI420 {
    private var context: OpaquePointer?

    deinit { tripod_sws_free(context) }

    /// `frame` as I420 (returned as is when it already is), same sequence and timestamps.
    func convert(_ frame: VideoFrame) throws(VideoError) -> VideoFrame {
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
            result = tripod_sws_rgb_to_i420(&context, frame.bytes.base.assumingMemoryBound(to: UInt8.self), Int32(frame.stride),
                                            Int32(layout.rawValue), Int32(size.width), Int32(size.height),
                                            target.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(size.width))
        }
        try checkAV(result, "libswscale \(frame.pixelFormat) → YUV420 of frame \(frame.sequence)")
        converted.wallClockNanoseconds = frame.wallClockNanoseconds
        converted.exposure = frame.exposure
        return converted
    }
}
