import CFFmpeg
import CFFmpegShim
import Glibc
import Hardware

/// Carries a `StorageStream` into libavformat's AVIO write/seek callbacks and keeps the storage
/// error (ENOSPC, EIO) that FFmpeg would flatten into a number.
private final class AVIOBridge {
    let stream: any StorageStream
    var error: (any Error)?
    init(stream: any StorageStream) { self.stream = stream }
}

/// One container file written through libavformat (avformat_write_header, av_write_frame,
/// av_write_trailer) into a `StorageStream` by a custom AVIOContext, so every byte goes through the
/// project's storage seam.
///
/// MP4 is written as fragments (movflags frag_keyframe+empty_moov+default_base_moof): each keyframe
/// closes a fragment that is flushed and fsynced, so a crash loses at most one keyframe interval;
/// the trailer adds the fragment index (mfra) at a clean stop. MKV gets 1 s clusters and its cues at
/// the end. Used from one thread.
final class VideoMuxer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private let bridge: AVIOBridge
    private let packet: UnsafeMutablePointer<AVPacket>
    private let path: String
    private var streamTimeBase = microsecondTimeBase

    /// The file's size so far.
    var bytesWritten: Int64 { bridge.stream.size }

    /// `playbackFramesPerSecond` is the stream's nominal rate (`avg_frame_rate`): the capture rate,
    /// or the playback rate in slow motion (the PTS are what players follow).
    init(stream: any StorageStream, path: String, container: VideoSettings.Container, encoder: VideoEncoder,
         playbackFramesPerSecond: Double) throws(VideoError) {
        bridge = AVIOBridge(stream: stream)
        self.path = path
        guard let packet = av_packet_alloc() else { throw VideoError(.encoding, "av_packet_alloc: out of memory") }
        self.packet = packet
        do { try open(container: container, encoder: encoder, playbackFramesPerSecond: playbackFramesPerSecond) } catch {
            abandon()
            throw error
        }
    }

    deinit {
        abandon()
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
    }

    private func open(container: VideoSettings.Container, encoder: VideoEncoder, playbackFramesPerSecond: Double) throws(VideoError) {
        var made: UnsafeMutablePointer<AVFormatContext>?
        try checkAV(avformat_alloc_output_context2(&made, nil, container.muxerName, nil), "avformat_alloc_output_context2(\(container.muxerName))")
        guard let made else { throw VideoError(.encoding, "avformat_alloc_output_context2: no context") }
        context = made
        let bufferSize = 1 << 16
        guard let buffer = av_malloc(bufferSize) else { throw VideoError(.encoding, "av_malloc: out of memory") }
        let opaque = Unmanaged.passUnretained(bridge).toOpaque()
        io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(bufferSize), 1, opaque, nil,
            { opaque, data, count in
                guard let opaque else { return tripod_av_error_from_errno(EINVAL) }
                let bridge = Unmanaged<AVIOBridge>.fromOpaque(opaque).takeUnretainedValue()
                if bridge.error != nil { return tripod_av_error_from_errno(EIO) }
                do {
                    try bridge.stream.write(UnsafeRawBufferPointer(start: data, count: Int(count)))
                    return count
                } catch {
                    bridge.error = error
                    return tripod_av_error_from_errno((error as? HardwareError)?.errno ?? EIO)
                }
            },
            { opaque, offset, whence in
                guard let opaque else { return Int64(tripod_av_error_from_errno(EINVAL)) }
                let bridge = Unmanaged<AVIOBridge>.fromOpaque(opaque).takeUnretainedValue()
                if whence & AVSEEK_SIZE != 0 { return bridge.stream.size }
                let target: Int64
                switch whence & ~AVSEEK_FORCE {
                case SEEK_SET: target = offset
                case SEEK_CUR: target = bridge.stream.offset + offset
                case SEEK_END: target = bridge.stream.size + offset
                default: return Int64(tripod_av_error_from_errno(EINVAL))
                }
                do { try bridge.stream.seek(to: target); return target } catch {
                    bridge.error = error
                    return Int64(tripod_av_error_from_errno((error as? HardwareError)?.errno ?? EIO))
                }
            })
        guard let io else {
            av_free(buffer)
            throw VideoError(.encoding, "avio_alloc_context: out of memory")
        }
        made.pointee.pb = io
        made.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        guard let stream = avformat_new_stream(made, nil) else { throw VideoError(.encoding, "avformat_new_stream: out of memory") }
        try checkAV(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context), "avcodec_parameters_from_context")
        stream.pointee.time_base = microsecondTimeBase
        stream.pointee.avg_frame_rate = AVRational(num: Int32((playbackFramesPerSecond * 1000).rounded()), den: 1000)

        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        switch container {
        case .mp4:
            av_dict_set(&options, "movflags", "+frag_keyframe+empty_moov+default_base_moof", 0)
            // All-intra MJPEG would make a fragment per frame; keep fragments near half a second.
            av_dict_set(&options, "min_frag_duration", "500000", 0)
        case .mkv:
            av_dict_set(&options, "cluster_time_limit", "1000", 0)
        }
        try checkWrite(avformat_write_header(made, &options), "avformat_write_header")
        streamTimeBase = stream.pointee.time_base
        try flush()
    }

    /// Writes one packet at `ptsMicroseconds` (from the file's first frame), then pushes it to the
    /// file. With `sync`, fsyncs what the muxer has written so far (once per keyframe).
    func write(_ encoded: EncodedPacket, ptsMicroseconds: Int64, sync: Bool) throws(VideoError) {
        guard let context else { throw VideoError(.state, "\(path): muxer already closed") }
        av_packet_unref(packet)
        try checkAV(av_new_packet(packet, Int32(encoded.bytes.count)), "av_new_packet")
        encoded.bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { packet.pointee.data.update(from: base.assumingMemoryBound(to: UInt8.self), count: source.count) }
        }
        let pts = av_rescale_q(ptsMicroseconds, microsecondTimeBase, streamTimeBase)
        packet.pointee.pts = pts
        packet.pointee.dts = pts
        packet.pointee.stream_index = 0
        if encoded.isKeyframe { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        let result = av_write_frame(context, packet)
        av_packet_unref(packet)
        try checkWrite(result, "av_write_frame")
        try flush()
        if sync { try storageCall("fsync") { try bridge.stream.sync() } }
    }

    /// A clean stop: trailer (MP4 fragment index, MKV cues and duration), flush, fsync, close.
    func finish() throws(VideoError) {
        guard let context else { throw VideoError(.state, "\(path): muxer already closed") }
        try checkWrite(av_write_trailer(context), "av_write_trailer")
        try flush()
        release()
        try storageCall("close") { try bridge.stream.close() }
    }

    /// Closes without a trailer (after a storage error): what is on disk stays as written.
    func abandon() {
        release()
        try? bridge.stream.close()
    }

    private func release() {
        if let context {
            avformat_free_context(context)
            self.context = nil
        }
        if io != nil {
            if let buffer = io?.pointee.buffer { av_free(buffer) }
            avio_context_free(&io)
        }
    }

    private func flush() throws(VideoError) {
        guard let io else { return }
        avio_flush(io)
        try checkWrite(io.pointee.error, "write")
    }

    /// A failed FFmpeg call, reported as the storage error behind it when there is one.
    private func checkWrite(_ result: Int32, _ call: String) throws(VideoError) {
        if let error = bridge.error { throw storageError(error, call) }
        try checkAV(result, "\(path): \(call)")
    }

    private func storageCall(_ call: String, _ body: () throws -> Void) throws(VideoError) {
        do { try body() } catch { throw storageError(error, call) }
    }

    private func storageError(_ error: any Error, _ call: String) -> VideoError {
        let hardware = error as? HardwareError
        return VideoError(.storage, "\(path): \(call): \(error)", storageError: hardware)
    }
}
