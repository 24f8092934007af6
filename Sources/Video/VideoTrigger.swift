/// The trigger that started a recording (motion, a PIR line, the button; docs/triggers.md), as the
/// video's sidecar records it: the trigger frame's sequence and SensorTimestamp, and how many frames
/// before it the file was asked to begin (`video.prerecord` × `video.fps`). With a full pre-roll the
/// sidecar's `firstSequence` is `sequence − prerollFrames`.
public struct VideoTrigger: Sendable, Equatable, Codable {
    public var source: String
    public var sequence: UInt64
    public var sensorTimestampNanoseconds: Int64
    public var prerollFrames: Int

    public init(source: String, sequence: UInt64, sensorTimestampNanoseconds: Int64, prerollFrames: Int) {
        self.source = source; self.sequence = sequence
        self.sensorTimestampNanoseconds = sensorTimestampNanoseconds; self.prerollFrames = prerollFrames
    }
}
