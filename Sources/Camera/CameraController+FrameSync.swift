import Hardware

/// `fleet.sync` as the camera applies it: the part this camera plays, and the fixed rate it runs
/// at while it plays one (the fork's frame sync needs every camera at the same fixed rate).
public struct FrameSyncRequest: Hashable, Sendable {
    public var mode: FrameSyncMode
    /// The fixed frame rate while syncing, fps (the rig's `video.fps`).
    public var framesPerSecond: Double
    /// What the user sets that rate with, for refusals (the edge gives its console key).
    public var rateSetting: String

    public init(mode: FrameSyncMode = .off, framesPerSecond: Double = 30, rateSetting: String = "the frame rate") {
        self.mode = mode; self.framesPerSecond = framesPerSecond; self.rateSetting = rateSetting
    }

    /// The fixed frame duration, µs.
    public var frameMicroseconds: Int64 { Int64((1e6 / max(framesPerSecond, 0.01)).rounded()) }
}

/// What frame sync is doing, for `status`, the fleet's status and a shot's sidecar.
public struct FrameSyncStatus: Equatable, Sendable {
    /// As asked (`fleet.sync`).
    public var mode: FrameSyncMode
    /// True when the camera plays that part: it lists SyncMode and the mode is not off.
    public var active: Bool
    /// Why it is not active though asked (the camera has no frame sync), else nil.
    public var note: String?
    /// SyncReady of the latest frame.
    public var ready: Bool
    /// SyncTimer of the latest frame, µs (nil before a client hears the server).
    public var timerMicroseconds: Int64?
    /// A client's measured alignment: its latest frame's start minus the server's nearest frame
    /// start, from the server's own datagrams (nil on a server, or before one is heard).
    public var alignmentMicroseconds: Int64?
    /// The fixed frame duration while active, µs.
    public var frameMicroseconds: Int64?
}

extension CameraController {
    /// SyncFrames sent by a server: frames from its start to the ready time (the least the fork's
    /// IPA accepts; about 3 s at 30 fps).
    public static let frameSyncReadyFrames: Int32 = 100
    /// How much slower than the format's fastest frame sync runs at least (a fraction).
    static let frameSyncHeadroom = 0.01

    /// `fleet.sync` as asked.
    public var frameSync: FrameSyncRequest {
        sync.request
    }

    /// True when the camera has the fork's frame sync (it lists SyncMode; Debian's 0.0.3 and vimc do not).
    public var hasFrameSync: Bool { device.controlInfo[ControlName.syncMode] != nil }

    /// The fixed frame duration frame sync holds, µs; nil while it is not active.
    var frameSyncFrameMicroseconds: Int64? {
        frameSync.mode != .off && hasFrameSync ? frameSync.frameMicroseconds : nil
    }

    /// Sets `fleet.sync` and its rate. A camera without frame sync takes it and stays unsynchronised
    /// (`frameSyncStatus.note` says so: shots then rely on the scheduled instant alone). Refused,
    /// in words, when the rate is not below the format's fastest or a custom exposure is longer
    /// than the fixed frame (`checkFrameSync`).
    public func setFrameSync(_ request: FrameSyncRequest) throws {
        let before = sync.request
        sync.request = request
        do { try checkFrameSync() } catch { sync.request = before; throw error }
        if request.mode != .client { sync.stopListening() }
    }

    /// Frame sync's conditions for the settings in force: the fixed rate below the format's
    /// fastest (a client shortens single frames to align), and a custom exposure that fits the frame.
    func checkFrameSync() throws {
        guard frameSync.mode != .off, hasFrameSync else { return }
        let format = activeFormat.format
        let fastest = max(format.minimumFrameDurationMicroseconds, sensorHDRMinimumFrameDurationMicroseconds ?? 0)
        let maximumFps = 1e6 / Double(max(fastest, 1))
        // A client shortens single frames to line up: the rate leaves it at least 1 % to do so.
        let highest = (maximumFps * (1 - Self.frameSyncHeadroom)).rounded(.down)
        guard frameSync.framesPerSecond <= highest else {
            throw CameraError(.outOfRange, "frame sync needs a fixed frame rate below this format's maximum of "
                + "\(Self.fpsText(maximumFps.rounded(.down))) fps (a client shortens single frames to line up), and \(Self.fpsText(frameSync.framesPerSecond)) fps is asked: "
                + "set \(frameSync.rateSetting) to \(Self.fpsText(highest)) or lower, or choose a faster format")
        }
        if case .custom(let duration, _) = exposureMode, Int64(duration) > frameSync.frameMicroseconds {
            throw CameraError(.outOfRange, "frame sync holds every frame at 1/\(Self.fpsText(frameSync.framesPerSecond)) s, and the custom exposure "
                + "of \(duration) µs is longer: shorten the exposure or lower \(frameSync.rateSetting)")
        }
    }

    private static func fpsText(_ fps: Double) -> String {
        fps == fps.rounded() ? String(Int(fps)) : String(format: "%.2f", fps)
    }

    /// SyncMode (and SyncFrames on a server) for the next requests, where the camera lists them
    /// (`FrameSyncState.takeControls`).
    func takeFrameSyncControls() -> ControlList {
        guard hasFrameSync else { return [:] }
        return sync.takeControls(frameDurationMicroseconds: latest?.frameDurationMicroseconds)
    }

    /// A client's alignment from the server's newest datagram (the listener, if any, opened on the
    /// first frame): its frame start against the server's nearest, folded into ± half a frame.
    func measureFrameSync(_ state: FrameState) {
        guard frameSync.mode == .client, hasFrameSync, let listener = frameSyncListener else { return }
        sync.hear(from: listener, frameWallClockNanoseconds: state.wallClockNanoseconds)
    }

    /// What frame sync is doing now.
    public var frameSyncStatus: FrameSyncStatus {
        let active = frameSync.mode != .off && hasFrameSync
        let note: String? = frameSync.mode != .off && !hasFrameSync
            ? "this camera has no frame sync (libcamera lists no SyncMode): shots rely on the scheduled instant alone" : nil
        return FrameSyncStatus(mode: frameSync.mode, active: active, note: note ?? (active ? sync.listenerFailure : nil),
                               ready: active && (latest?.syncReady ?? false),
                               timerMicroseconds: active ? latest?.syncTimerMicroseconds : nil,
                               alignmentMicroseconds: active && frameSync.mode == .client ? sync.alignmentMicroseconds : nil,
                               frameMicroseconds: frameSyncFrameMicroseconds)
    }
}
