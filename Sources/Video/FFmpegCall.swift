import CFFmpeg
import CFFmpegShim

/// FFmpeg's message for an AVERROR code (av_strerror).
func describeAVError(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 128)
    tripod_av_describe(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Throws `kind` naming `call` when an FFmpeg call returned a negative AVERROR.
@discardableResult
func checkAV(_ result: Int32, _ call: String, _ kind: VideoError.Kind = .encoding) throws(VideoError) -> Int32 {
    if result < 0 { throw VideoError(kind, "\(call): \(describeAVError(result))") }
    return result
}

/// The microsecond time base of every PTS the encoder and muxers get.
let microsecondTimeBase = AVRational(num: 1, den: 1_000_000)
