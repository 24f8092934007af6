import Hardware

/// The simulated camera's frame sync, done as Raspberry Pi's IPA algorithm `rpi.sync` does it
/// (read from the fork; written here from that description):
/// - a server counts its frames, keeps a running mean of its frame intervals (up to 100 frames),
///   and every `periodFrames` frames sends its frame's wall-clock time, that mean, and the ready
///   time (its frame `readyFrames` after the start);
/// - a client takes the newest datagram each frame, finds its own frame start nearest the server's
///   (rounding the difference to whole frames), and shortens its next frame by what is left over
///   (lengthens when negative) unless that is under `minimumAdjustmentMicroseconds`;
/// - each is ready (SyncReady) from the first frame whose wall-clock time plus half a frame is past
///   the ready time; SyncTimer is the time left, µs (a client has none until it hears the server).
/// A channel that cannot be opened leaves the camera streaming unsynchronised (`failure` says why),
/// as the IPA logs and goes on.
final class SimulatedFrameSync {
    /// The frame-sync outcome of one frame.
    struct Outcome: Equatable {
        var ready: Bool
        /// SyncTimer, µs; nil on a client that has not heard the server yet.
        var timerMicroseconds: Int64?
        /// How much shorter (negative: longer) the next frame is, µs.
        var correctionMicroseconds: Int64
    }

    let channels: any FrameSyncChannelFactory
    let periodFrames = 30
    let minimumAdjustmentMicroseconds: Int64 = 50
    /// SyncFrames: frames from a server's start to the ready time.
    var readyFrames: Int64 = 100
    private(set) var mode: FrameSyncMode = .off
    /// Why the channel could not be opened, or the last send or receive failed.
    private(set) var failure: String?
    private var channel: (any FrameSyncChannel)?
    private var frames: Int64 = 0
    private var lastWallClockMicroseconds: Int64?
    private var estimatedFrameMicroseconds: Double = 0
    private var framesSinceSent: Int64 = 0
    private var ready = false
    private var serverReadyMicroseconds: Int64?

    init(channels: any FrameSyncChannelFactory) { self.channels = channels }

    /// SyncMode: a change starts over (a new session, as turning it off and on does on a Pi).
    func setMode(_ new: FrameSyncMode) {
        guard new != mode else { return }
        mode = new
        restart()
    }

    /// Streaming (re)started: alignment is lost and starts over.
    func restart() {
        channel = nil
        failure = nil
        frames = 0
        lastWallClockMicroseconds = nil
        estimatedFrameMicroseconds = 0
        framesSinceSent = 0
        ready = false
        serverReadyMicroseconds = nil
    }

    /// One frame starting at `wallClockMicroseconds` (FrameWallClock) with the programmed
    /// `frameMicroseconds`; nil when sync is off.
    func frame(wallClockMicroseconds wall: Int64, monotonicMicroseconds: Int64, frameMicroseconds: Int64) -> Outcome? {
        guard mode != .off, frameMicroseconds > 0 else { return nil }
        if channel == nil, failure == nil {
            do {
                channel = try channels.channel(receiving: mode == .client)
                if mode == .client { _ = try channel?.newest() }  // stale datagrams from an earlier session
            } catch {
                failure = "\(error)"
            }
        }
        // Frames lost meanwhile still count (the wall clock says how many).
        var skipped: Int64 = 0
        if let last = lastWallClockMicroseconds {
            skipped = max(0, (wall - last - frameMicroseconds / 2) / frameMicroseconds)
            frames += skipped
        }
        defer { lastWallClockMicroseconds = wall; frames += 1 }
        return mode == .server ? serverFrame(wall, monotonicMicroseconds, frameMicroseconds, skipped: skipped)
                               : clientFrame(wall, frameMicroseconds)
    }

    private func serverFrame(_ wall: Int64, _ monotonic: Int64, _ programmed: Int64, skipped: Int64) -> Outcome {
        if let last = lastWallClockMicroseconds, frames > 0 {
            let interval = Double(wall - last) / Double(1 + skipped)
            let n = Double(min(frames, 99))
            estimatedFrameMicroseconds = frames == 1 ? interval : (n * estimatedFrameMicroseconds + interval) / (n + 1)
        } else {
            estimatedFrameMicroseconds = Double(programmed)
        }
        let remaining = Double(readyFrames - frames) * estimatedFrameMicroseconds
        let readyAt = wall + Int64(remaining.rounded())
        framesSinceSent += skipped
        if framesSinceSent >= periodFrames {
            framesSinceSent = 0
            let payload = FrameSyncPayload(frameDurationMicroseconds: UInt32(clamping: Int64(estimatedFrameMicroseconds.rounded())),
                                           systemFrameMicroseconds: UInt64(clamping: monotonic),
                                           wallClockFrameMicroseconds: UInt64(clamping: wall),
                                           systemReadyMicroseconds: UInt64(clamping: monotonic + Int64(remaining.rounded())),
                                           wallClockReadyMicroseconds: UInt64(clamping: readyAt))
            do { try channel?.send(payload) } catch { failure = "\(error)" }
        }
        framesSinceSent += 1
        if !ready, Double(wall) + estimatedFrameMicroseconds / 2 > Double(readyAt) { ready = true }
        return Outcome(ready: ready, timerMicroseconds: readyAt - wall, correctionMicroseconds: 0)
    }

    private func clientFrame(_ wall: Int64, _ programmed: Int64) -> Outcome {
        var newest: FrameSyncPayload?
        do { newest = try channel?.newest() } catch { failure = "\(error)" }
        var correction: Int64 = 0
        if let server = newest {
            let duration = Int64(server.frameDurationMicroseconds > 0 ? server.frameDurationMicroseconds : UInt32(clamping: programmed))
            estimatedFrameMicroseconds = Double(duration)
            serverReadyMicroseconds = Int64(clamping: server.wallClockReadyMicroseconds)
            let phase = frameSyncPhaseMicroseconds(frameMicroseconds: wall, serverFrameMicroseconds: Int64(clamping: server.wallClockFrameMicroseconds),
                                                   frameDurationMicroseconds: duration)
            correction = abs(phase) < minimumAdjustmentMicroseconds ? 0 : phase
        }
        guard let readyAt = serverReadyMicroseconds else {
            return Outcome(ready: false, timerMicroseconds: nil, correctionMicroseconds: correction)
        }
        if !ready, Double(wall) + estimatedFrameMicroseconds / 2 > Double(readyAt) { ready = true }
        return Outcome(ready: ready, timerMicroseconds: readyAt - wall, correctionMicroseconds: correction)
    }
}
