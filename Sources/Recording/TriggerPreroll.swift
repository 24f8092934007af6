import Video

/// The frames before a trigger, counted in frames, not bytes: the last `capacityFrames` video
/// frames as they came from the camera (copies, not yet encoded). A triggered recording starts
/// with exactly `video.prerecord × video.fps` of them before the trigger frame, its first frame
/// encoded as a keyframe, so the pre-roll is exact to the frame (an encoded ring can only start at
/// a keyframe: see PrerecordRing). The cost is memory: width × height × 1.5 bytes per frame
/// (at 1280×720, 1.4 MB; 2 s at 30 fps, 83 MB), which `VideoRecorder` bounds.
struct TriggerPreroll {
    let capacityFrames: Int
    private var frames: [VideoFrame?]
    private var next = 0
    private(set) var count = 0

    init(capacityFrames: Int) {
        self.capacityFrames = max(1, capacityFrames)
        frames = Array(repeating: nil, count: self.capacityFrames)
    }

    mutating func append(_ frame: VideoFrame) {
        frames[next] = frame
        next = (next + 1) % capacityFrames
        count = min(count + 1, capacityFrames)
    }

    /// The frames with a sequence at or after `first`, oldest first; the ring is empty afterwards.
    mutating func take(from first: UInt64) -> [VideoFrame] {
        var out: [VideoFrame] = []
        out.reserveCapacity(count)
        for k in 0..<count {
            if let frame = frames[(next - count + k + capacityFrames) % capacityFrames], frame.sequence >= first { out.append(frame) }
        }
        frames = Array(repeating: nil, count: capacityFrames)
        next = 0; count = 0
        return out
    }
}
