import Hardware

/// Encoded packets of the last `window` of video, kept in memory before a recording starts.
///
/// The ring always begins with a keyframe at or before newest − `window` (once that much video
/// exists), so a recording started now can be written from its first packet and covers at least
/// `window` before the trigger. `maximumBytes` bounds it: beyond that whole keyframe groups go
/// from the front, even when the window is then not covered (counted in `trimmedForBytes`).
struct PrerecordRing {
    let window: Duration
    let maximumBytes: Int
    private(set) var packets: [EncodedPacket] = []
    private(set) var byteCount = 0
    /// Keyframe groups dropped to stay under `maximumBytes`.
    private(set) var trimmedForBytes = 0

    init(window: Duration, maximumBytes: Int) {
        self.window = window; self.maximumBytes = maximumBytes
    }

    mutating func append(_ packet: EncodedPacket) {
        // A ring never starts mid-group: packets before the first keyframe are useless.
        if packets.isEmpty && !packet.isKeyframe { return }
        packets.append(packet)
        byteCount += packet.bytes.count
        let horizon = packet.sensorTimestamp - window
        while let next = nextKeyframe(), packets[next].sensorTimestamp <= horizon { drop(next) }
        while byteCount > maximumBytes, let next = nextKeyframe() {
            drop(next)
            trimmedForBytes += 1
        }
    }

    /// Everything kept, oldest keyframe first; the ring is empty afterwards.
    mutating func takeAll() -> [EncodedPacket] {
        defer { packets.removeAll(); byteCount = 0 }
        return packets
    }

    /// Index of the second keyframe group's start, if there is one.
    private func nextKeyframe() -> Int? {
        packets.indices.dropFirst().first { packets[$0].isKeyframe }
    }

    private mutating func drop(_ count: Int) {
        byteCount -= packets[0..<count].reduce(0) { $0 + $1.bytes.count }
        packets.removeFirst(count)
    }
}
