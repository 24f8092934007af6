import Hardware
import Motion
import Stabilization
import Units
import Video

/// The live stream fed with the encoder's packets (nil sink: off), and the bit rate of the encoder
/// that runs for it while nothing records.
struct LiveStreamFeed {
    var sink: (any EncodedVideoSink)?
    var bitrateBitsPerSecond = 0
}

/// The trigger's frame pre-roll: whether triggers may start recordings (`trigger.action record`),
/// and the frames a triggered recording begins with (nil: not wanted, or no `video.prerecord`).
struct TriggerPrerollState {
    var wanted = false
    var frames: TriggerPreroll?
}

/// What a stop needs so the Gyroflow log covers the whole video (the IMU delivers in batches,
/// behind the camera): the last second of IMU samples, the end of the newest frame's exposure, and
/// a stop waiting until the samples reach it.
struct MotionCoverage {
    /// A stop waiting until the IMU's samples reach `coverUntil`, at most until `deadline` fires.
    var pendingStop: (coverUntil: MonotonicTime, deadline: ScheduledWork)?
    /// The end of the newest frame's exposure seen.
    var newestFrameEnd: MonotonicTime?
    /// True when the recording logs motion.
    var logsMotion = false
    /// The last second of IMU samples: a recording's Gyroflow log begins before its first frame.
    private(set) var recentMotion: [IMUSample] = []

    /// Keeps `samples` (the newest at `newest`), dropping what is older than a second before it.
    mutating func keep(_ samples: [IMUSample], newest: MonotonicTime) {
        recentMotion += samples
        if let cut = recentMotion.firstIndex(where: { $0.timestamp >= newest - .seconds(1) }), cut > 0 {
            recentMotion.removeFirst(cut)
        }
    }

    /// The frame end a stop must wait for, or nil when it need not (no motion logged, no frame
    /// seen, or the samples already reach it).
    var uncoveredFrameEnd: MonotonicTime? {
        guard logsMotion, let until = newestFrameEnd, recentMotion.last.map({ $0.timestamp < until }) ?? true else { return nil }
        return until
    }

    /// Cancels a waiting stop's deadline and forgets it; false when none waited.
    @discardableResult
    mutating func endPendingStop() -> Bool {
        guard let pending = pendingStop else { return false }
        pending.deadline.cancel()
        pendingStop = nil
        return true
    }
}

/// Video stabilization of the frames being encoded (a recording or the pre-record ring): the
/// stabilizer in use, where a new one comes from, and who is told whether the frames are
/// stabilized here. A class: its callbacks run while it changes.
final class RecordingStabilizerSlot {
    /// Whether the encoded frames are stabilized here, and by which stabilizer.
    enum State {
        /// Not stabilized here (video stabilization off, no IMU, or nothing encoded).
        case off
        /// Each frame goes through this stabilizer before the encoder.
        case stabilizing(RecordingStabilizer)

        init(_ made: RecordingStabilizer?) { self = made.map(State.stabilizing) ?? .off }
    }

    private(set) var state = State.off
    /// A stabilizer for the video stabilization mode and format in force, or nil (off, no IMU).
    private let make: () -> RecordingStabilizer?
    /// Told `isActive` whenever it may have changed (the viewfinder's ScalerCrop follows it).
    private let changed: (_ stabilizesInSoftware: Bool) -> Void

    init(make: @escaping () -> RecordingStabilizer?, changed: @escaping (_ stabilizesInSoftware: Bool) -> Void) {
        self.make = make
        self.changed = changed
    }

    /// True while the encoded frames are stabilized here.
    var isActive: Bool {
        if case .stabilizing = state { true } else { false }
    }

    /// Frames the stabilizer holds back (cinematic's look-ahead); 0 when off.
    var lookaheadFrames: Int {
        if case .stabilizing(let stabilizer) = state { stabilizer.lookaheadFrames } else { 0 }
    }

    /// Gives the frames the stabilizer holds (cinematic's look-ahead, crops smoothed over what is
    /// known) to `service`; then a fresh stabilizer if `restart`, else none.
    func handOverHeldFrames(to service: RecordingService?, restart: Bool) {
        if case .stabilizing(let stabilizer) = state, let service { for frame in stabilizer.flush() { service.submit(frame) } }
        state = restart ? State(make()) : .off
    }

    /// Hands the held frames over and starts a new stabilizer for the mode in force.
    func replace(handingTo service: RecordingService?) {
        handOverHeldFrames(to: service, restart: true)
        changed(isActive)
    }

    /// Drops the stabilizer (its held frames are not encoded), telling when there was one.
    func drop() {
        guard isActive else { return }
        state = .off
        changed(isActive)
    }
}
