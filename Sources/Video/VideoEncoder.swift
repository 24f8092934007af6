import CFFmpeg
import CFFmpegShim
import Hardware

/// One libavcodec encoder (avcodec_send_frame / avcodec_receive_packet), I420 in, packets out.
///
/// PTS are the frames' SensorTimestamps in µs (time base 1/1000000), never a frame counter, so a
/// variable frame rate and dropped frames keep their real timing. No B-frames: packets come out in
/// frame order, one per frame, so a forced keyframe starts a file exactly at its frame.
/// Used from one thread (the recording's encoder queue).
final class VideoEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The FFmpeg encoder in use ("libx264", "h264_v4l2m2m", "mjpeg").
    let encoderName: String
    /// Why the preferred encoder is not the one in use, when it is not.
    let fallbackNote: String?
    /// libx264's preset in use (nil for other encoders), and why it was chosen.
    let preset: String?
    let presetReason: String?
    let size: PixelSize
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    /// Frames sent and not yet out, by PTS.
    private var pending: [Int64: FrameInfo] = [:]
    private var lastPTS: Int64?

    /// Opens `settings.encoderName` (or the software encoder) for `size`; falls back to the
    /// software encoder with a note when the preferred one is missing or refuses to open.
    /// FFmpeg logs errors only (libx264's per-file statistics would fill the journal).
    private static let quietLog: Void = tripod_av_quiet(AV_LOG_ERROR)

    init(settings: VideoSettings, size: PixelSize, presetReason: String? = nil) throws(VideoError) {
        Self.quietLog
        try settings.validate()
        var candidates = [settings.softwareEncoderName]
        if let preferred = settings.encoderName, preferred != settings.softwareEncoderName { candidates.insert(preferred, at: 0) }
        var notes: [String] = []
        var opened: (UnsafeMutablePointer<AVCodecContext>, String)?
        for name in candidates {
            do {
                opened = (try Self.open(name, settings: settings, size: size), name)
                break
            } catch {
                notes.append(error.message)
            }
        }
        guard let (context, name) = opened else {
            throw VideoError(.encoderUnavailable, notes.joined(separator: "; "))
        }
        guard let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            var c: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&c)
            throw VideoError(.encoding, "av_frame_alloc/av_packet_alloc: out of memory")
        }
        self.context = context; self.encoderName = name; self.size = size
        preset = name == "libx264" ? settings.x264Preset ?? "medium" : nil
        self.presetReason = preset == nil ? nil : presetReason
        self.frame = frame; self.packet = packet
        fallbackNote = notes.isEmpty ? nil : notes.joined(separator: "; ") + "; using \(name)"
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    private static func open(_ name: String, settings: VideoSettings, size: PixelSize) throws(VideoError) -> UnsafeMutablePointer<AVCodecContext> {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw VideoError(.encoderUnavailable, "encoder \(name) is not in this FFmpeg build")
        }
        let wanted = settings.codec == .h264 ? AV_CODEC_ID_H264 : AV_CODEC_ID_MJPEG
        guard codec.pointee.id == wanted else {
            throw VideoError(.encoderUnavailable, "encoder \(name) does not encode \(settings.codec.rawValue)")
        }
        guard let made = avcodec_alloc_context3(codec) else {
            throw VideoError(.encoding, "avcodec_alloc_context3(\(name)): out of memory")
        }
        var context: UnsafeMutablePointer<AVCodecContext>? = made
        let c = made
        c.pointee.width = Int32(size.width)
        c.pointee.height = Int32(size.height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = microsecondTimeBase
        c.pointee.framerate = AVRational(num: Int32((settings.captureFramesPerSecond * 1000).rounded()), den: 1000)
        c.pointee.bit_rate = Int64(settings.bitrateBitsPerSecond)
        c.pointee.gop_size = Int32(max(1, (settings.captureFramesPerSecond * settings.keyframeIntervalSeconds).rounded()))
        c.pointee.max_b_frames = 0
        c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER  // SPS/PPS in extradata: MP4 and MKV want them there
        // libcamera's video streams are Rec.709, limited range.
        c.pointee.color_range = AVCOL_RANGE_MPEG
        c.pointee.colorspace = AVCOL_SPC_BT709
        c.pointee.color_primaries = AVCOL_PRI_BT709
        c.pointee.color_trc = AVCOL_TRC_BT709
        if settings.codec == .mjpeg {
            // Limited-range 4:2:0 JPEG is legal but not baseline JFIF: say so to the encoder.
            c.pointee.strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL
        }
        if name == "libx264" {
            for option in settings.x264Options {
                let set = av_opt_set(c, option.name, option.value, AV_OPT_SEARCH_CHILDREN)
                if set < 0 {
                    avcodec_free_context(&context)
                    throw VideoError(.encoderUnavailable, "av_opt_set(\(name), \(option.name)=\(option.value)): \(describeAVError(set))")
                }
            }
            av_opt_set(c.pointee.priv_data, "forced-idr", "1", 0)  // a forced keyframe is an IDR: files can start there
        }
        let result = avcodec_open2(c, codec, nil)
        if result < 0 {
            avcodec_free_context(&context)
            throw VideoError(.encoderUnavailable, "avcodec_open2(\(name)): \(describeAVError(result))")
        }
        return c
    }

    /// True for an H.264 encoder.
    var isH264: Bool { context.pointee.codec_id == AV_CODEC_ID_H264 }

    /// The SPS and PPS from the encoder's extradata when they are in Annex B form (start codes, as
    /// libx264 writes them); empty otherwise (an avcC record is not sent to a byte stream).
    private(set) lazy var annexBParameterSets: [UInt8] = {
        guard let data = context.pointee.extradata, context.pointee.extradata_size >= 4 else { return [] }
        let bytes = [UInt8](UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
        let startsWithStartCode = bytes.starts(with: [0, 0, 1]) || bytes.starts(with: [0, 0, 0, 1])
        return startsWithStartCode ? bytes : []
    }()

    /// Encodes `input`; `forceKeyframe` makes it an IDR. Returns the packets that came out (with a
    /// lookahead, those of earlier frames). A timestamp not after the previous one is refused.
    func encode(_ input: VideoFrame, forceKeyframe: Bool) throws(VideoError) -> [EncodedPacket] {
        guard input.size == size else {
            throw VideoError(.invalidArgument, "frame \(input.sequence) is \(input.size), the recording is \(size)")
        }
        let pts = input.sensorTimestamp.nanoseconds / 1000
        if let lastPTS, pts <= lastPTS {
            throw VideoError(.invalidArgument, "frame \(input.sequence): SensorTimestamp \(input.sensorTimestamp) does not advance")
        }
        av_frame_unref(frame)
        let retained = Unmanaged.passRetained(input.bytes)
        let wrapped = tripod_av_frame_wrap_i420(
            frame, input.bytes.base.assumingMemoryBound(to: UInt8.self), input.bytes.count,
            Int32(size.width), Int32(size.height), Int32(input.stride),
            { opaque, _ in if let opaque { Unmanaged<FrameBytes>.fromOpaque(opaque).release() } },
            retained.toOpaque())
        if wrapped < 0 {
            retained.release()
            try checkAV(wrapped, "wrap frame \(input.sequence)")
        }
        frame.pointee.pts = pts
        frame.pointee.pict_type = forceKeyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        frame.pointee.key_frame = forceKeyframe ? 1 : 0
        lastPTS = pts
        pending[pts] = input.info
        let sent = avcodec_send_frame(context, frame)
        av_frame_unref(frame)
        if sent < 0 {
            pending[pts] = nil
            try checkAV(sent, "avcodec_send_frame(\(encoderName))")
        }
        return try receive()
    }

    /// Drains the encoder at the end: every packet still inside it.
    func flush() throws(VideoError) -> [EncodedPacket] {
        let sent = avcodec_send_frame(context, nil)
        if sent < 0 && sent != tripod_av_error_eof() { try checkAV(sent, "avcodec_send_frame(\(encoderName), flush)") }
        return try receive()
    }

    private func receive() throws(VideoError) -> [EncodedPacket] {
        var out: [EncodedPacket] = []
        while true {
            let result = avcodec_receive_packet(context, packet)
            if result == tripod_av_error_again() || result == tripod_av_error_eof() { return out }
            try checkAV(result, "avcodec_receive_packet(\(encoderName))")
            defer { av_packet_unref(packet) }
            guard let source = pending.removeValue(forKey: packet.pointee.pts) else {
                throw VideoError(.encoding, "\(encoderName) returned a packet with unknown PTS \(packet.pointee.pts)")
            }
            let bytes = [UInt8](UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
            out.append(EncodedPacket(bytes: bytes, isKeyframe: packet.pointee.flags & AV_PKT_FLAG_KEY != 0,
                                     frame: source))
        }
    }
}
