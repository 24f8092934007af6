import Hardware

/// Where the encoder's H.264 goes besides the file: the live stream (module Stream). The recording's
/// own packets while recording or pre-recording, else a stream encoder's at `stream.bitrate`;
/// never a second encode of the same frames.
public protocol EncodedVideoSink: AnyObject, Sendable {
    /// One access unit in Annex B byte-stream form (a keyframe begins with the SPS and PPS), with
    /// its frame's SensorTimestamp. Called on the encoder queue: must not block.
    func push(accessUnit: [UInt8], sensorTimestamp: MonotonicTime, isKeyframe: Bool)
    /// True once when the sink wants the next frame to be a keyframe (a client began to play, or
    /// packets were dropped).
    func takeKeyframeRequest() -> Bool
}

/// The live stream's side of the encoder pipeline: the sink, the bit rate of an encoder that runs
/// for it alone, and the parameter sets a keyframe is sent with.
struct StreamTap {
    var sink: any EncodedVideoSink
    var bitrateBitsPerSecond: Int

    /// Sends `packet` from `encoder` to the sink. H.264 only: the encoder keeps its SPS and PPS
    /// out of band (AV_CODEC_FLAG_GLOBAL_HEADER, for MP4), so they go before each keyframe.
    func send(_ packet: EncodedPacket, from encoder: VideoEncoder) {
        guard encoder.isH264 else { return }
        let unit = packet.isKeyframe ? encoder.annexBParameterSets + packet.bytes : packet.bytes
        sink.push(accessUnit: unit, sensorTimestamp: packet.sensorTimestamp, isKeyframe: packet.isKeyframe)
    }
}
