import Hardware

/// Frame sync on one camera, in one place (issue 38: one value, not eight `frameSync*` vars): what
/// `fleet.sync` asks, the session the camera runs, the SyncMode requests still to carry, and what
/// a client hears from the server. The controller owns one and checks what it asks against the
/// format (`CameraController.setFrameSync`).
struct FrameSyncState {
    /// `fleet.sync` as asked.
    var request = FrameSyncRequest()
    /// The request whose sync session the camera runs: SyncMode goes on once frames come at its rate.
    private(set) var session: FrameSyncRequest?
    /// The SyncMode last sent (nil: never), and how many more requests carry it.
    private var sent: FrameSyncMode?
    private var repeatsLeft = 0
    /// The listener's channel while this camera is a sync client.
    private var channel: (any FrameSyncChannel)?
    /// The newest server datagram heard.
    private var server: FrameSyncPayload?
    /// A client's alignment from that datagram: its frame start against the server's nearest, µs.
    private(set) var alignmentMicroseconds: Int64?
    /// Why the listener could not open or read, if it could not.
    private(set) var listenerFailure: String?

    /// Requests that carry a change of SyncMode (more than the requests in flight, so one reaches
    /// the camera even when some are cancelled).
    static let repeats = 8

    /// A new streaming run: SyncMode again once its frames come at the fixed rate.
    mutating func newRun() { session = nil }

    /// No longer a client: forget the server and the alignment.
    mutating func stopListening() {
        channel = nil; server = nil; alignmentMicroseconds = nil
    }

    /// SyncMode (and SyncFrames on a server) for the next request. A session starts only once
    /// frames come at the fixed rate (`frameDurationMicroseconds`, the latest frame's FrameDuration):
    /// a server's frame-duration estimate is a running mean of its frame intervals, which frames at
    /// the old rate would skew for a hundred frames, so until then SyncMode stays off. A new rate or
    /// part starts a new session, and off ends one. Each change rides on `repeats` requests and then
    /// stops: the IPA keeps the mode, and logs every SyncMode it is handed.
    mutating func takeControls(frameDurationMicroseconds: Int64?) -> ControlList {
        if session != request, request.mode != .off,
           let duration = frameDurationMicroseconds, abs(duration - request.frameMicroseconds) <= 1 {
            session = request
        }
        let mode = session == request ? request.mode : .off
        if mode != sent {
            guard mode != .off || sent != nil else { return [:] }
            sent = mode
            repeatsLeft = Self.repeats
        }
        guard repeatsLeft > 0 else { return [:] }
        repeatsLeft -= 1
        var c: ControlList = [ControlName.syncMode: .int32(mode.controlValue)]
        if mode == .server { c[ControlName.syncFrames] = .int32(CameraController.frameSyncReadyFrames) }
        return c
    }

    /// A client's alignment from the server's newest datagram (the listener's channel opened on the
    /// first call): the frame that started at `frameWallClockNanoseconds` against the server's
    /// nearest frame start, folded into ± half a frame.
    mutating func hear(from listener: any FrameSyncChannelFactory, frameWallClockNanoseconds: Int64?) {
        if channel == nil, listenerFailure == nil {
            do { channel = try listener.channel(receiving: true) } catch { listenerFailure = "\(error)" }
        }
        do {
            if let payload = try channel?.newest() { server = payload }
        } catch {
            listenerFailure = "\(error)"
        }
        guard let server, let wall = frameWallClockNanoseconds else { return }
        alignmentMicroseconds = frameSyncPhaseMicroseconds(
            frameMicroseconds: wall / 1000, serverFrameMicroseconds: Int64(clamping: server.wallClockFrameMicroseconds),
            frameDurationMicroseconds: Int64(server.frameDurationMicroseconds))
    }
}
