import Camera
import Hardware

/// Video HDR (`video.hdr auto|on|off`), the one owner of its state: the preference and what `auto`
/// has chosen (`VideoHDRPolicy`, fed a tone measure of every streaming frame), and the switching.
/// HdrMode goes on the camera's next requests; the sensor's own HDR needs the camera reopened,
/// which this asks for as an event (`.restartCamera`), and never during a recording. What is in
/// force is read from the camera itself (`sensorHDROn`, `hdrMode`), never kept twice. Loop-confined.
public final class VideoHDRService {
    /// The console's key of the preference (`video.hdr`), given by the edge: refusals name it.
    public let settingKey: String

    /// `camera`: the camera's owner, which the composition attaches the controller to (then
    /// `cameraAttached`); `settingKey`: the console's key of `video.hdr`; `recordingID`: the
    /// recorder's recording in progress, if any; `onEvent`: where events go.
    public init(camera: any AttachedCamera, settingKey: String, recordingID: @escaping () -> String? = { nil }, onEvent: @escaping (Event) -> Void = { _ in }) {
        self.attached = camera
        self.settingKey = settingKey
        self.recordingID = recordingID
        self.onEvent = onEvent
    }

    public enum Event {
        /// Video HDR in force changed: its kind, or nil for off.
        case changed(VideoHDRKind?)
        /// The sensor's HDR must be switched: reopen the camera with it `on`.
        case restartCamera(sensorHDR: Bool)
        /// A switch `auto` wants waits for the end of the recording (the sensor's HDR needs a restart).
        case deferred(String)
        /// The camera's frames did not confirm an HdrMode asked for: they kept reporting `reported`
        /// (its tuning has no configuration for the value). The next kind is used instead.
        case notApplied(HdrModeValue, reported: HdrModeValue)
    }

    /// Where events go (the supervisor's wiring turns them into console events and the restart).
    private let onEvent: (Event) -> Void
    public private(set) var policy = VideoHDRPolicy()
    /// `video.hdr` as set: a format without HDR turns the policy's `on` back to auto, and a later
    /// format with HDR takes the setting again.
    private var requested = VideoHDRPolicy.Preference.auto
    /// The camera's one owner (the composition's), read only.
    private let attached: any AttachedCamera
    /// The camera it switches, while one is attached: what video HDR asks of it.
    private var camera: (any HDRCamera)? { attached.controller }
    /// The recording in progress (its id), or nil: the sensor's HDR cannot switch during one.
    private let recordingID: () -> String?
    /// The format the policy's scene history belongs to: a restart for the sensor's HDR keeps it.
    private var formatLabel: String?
    /// A restart asked for and not yet done (asked once).
    private var restartPending = false
    /// A deferred switch already reported (reported once per recording).
    private var deferralReported = false
    /// Between `cameraAttached` and `cameraStarted`: the settings are being applied to a new
    /// camera, whose format is not yet the one asked for, so nothing is decided or switched.
    private var suspended = false
    /// An HdrMode asked for and not yet seen in a frame's metadata: frames left to see it in, and
    /// the value the frames reported instead.
    private var confirming: (mode: HdrModeValue, framesLeft: Int, reported: HdrModeValue?)?
    /// HdrMode values this camera was asked for and did not apply; not asked for again until
    /// another camera is attached.
    public private(set) var notAppliedModes: Set<HdrModeValue> = []
    /// True once switching this camera's sensor HDR failed: not asked for again until another
    /// camera is attached.
    public private(set) var sensorHDRUnusable = false
    /// The camera the modes above belong to (a reopen for the sensor's HDR keeps them).
    private var cameraID: String?

    /// Frames an HdrMode has to show up in the metadata (libcamera applies controls a few frames
    /// late; Raspberry Pi's IPA reports the mode it runs in every frame).
    public static let confirmationFrames = 30
    /// The shortest time between two tone measures, by the frames' sensor timestamps. Frames in
    /// between count the last measure again, so the policy's smoothing (in frames) is the same at
    /// every rate; reading the processed stream (a full-size still during a recording) only this
    /// often keeps its cost off most frames (a simulated frame is drawn only when read).
    public static let measureInterval: Duration = .milliseconds(100)
    /// The last tone measure and the frame it was taken from.
    private var lastMeasure: (fractions: VideoHDRPolicy.SceneMeasure, clippedCode: UInt8, at: MonotonicTime)?

    /// Luma codes for the tone measure: a plain exposure clips at 250; in HDR the same scene
    /// light sits `hdrHeadroomStops` lower, about code 191 on the sRGB curve (where a plain
    /// exposure would have clipped), so `auto` keeps seeing the highlights it switched on for.
    public static let clippedCode: UInt8 = 250, clippedCodeInHDR: UInt8 = 191, crushedCode: UInt8 = 10

    /// What is in force on the camera now.
    public var inForce: VideoHDRKind? {
        guard let camera else { return nil }
        if camera.sensorHDROn { return .sensor }
        return camera.hdrMode.map { .hdrMode($0) }
    }

    /// A new camera attached to the slot (at start, after a reconnect, or reopened for the sensor's
    /// HDR): decisions wait until `cameraStarted`, once the settings have selected its format.
    public func cameraAttached() {
        guard let camera else { return }
        if camera.device.info.id != cameraID { notAppliedModes = []; sensorHDRUnusable = false }
        cameraID = camera.device.info.id
        confirming = nil
        restartPending = false
        suspended = true
    }

    /// The attached camera has its settings: a new format starts the scene's history again (a
    /// reopen for the sensor's HDR keeps the format, and so auto's choice).
    public func cameraStarted() {
        suspended = false
        formatChanged()
        if policy.formatHasHDR { try? policy.setPreference(requested) }
        reconcile()
    }

    /// The active format changed: a format without HDR drops a forced `on` (said as an event).
    public func formatChanged() {
        guard let camera, !suspended else { return }
        let format = camera.activeFormat.format
        if format.label != formatLabel {
            formatLabel = format.label
            policy.formatChanged(hasHDR: format.videoHDR.isSupported)
            if format.videoHDR.isSupported { try? policy.setPreference(requested) }
        }
        reconcile()
    }

    /// Checks `video.hdr` against the active format and the recording without changing anything.
    public func check(_ preference: VideoHDRPolicy.Preference) throws(RecorderError) {
        guard let camera else { return }
        let support = camera.activeFormat.format.videoHDR
        if preference == .on && !support.isSupported {
            throw RecorderError(.unsupported, "\(settingKey) on: format \(camera.activeFormat.format.label) has no video HDR (hdr column of `formats`: \(support.label))")
        }
        let preferred = support.preferredKind(excluding: notAppliedModes, sensorUsable: !sensorHDRUnusable)
        let wantsSensor = preference == .on ? preferred == .sensor
            : preference == .off ? false : policy.isActive && preferred == .sensor
        if wantsSensor != camera.sensorHDROn, let id = recordingID() {
            throw RecorderError(.busy, "recording \(id): switching the sensor's HDR mode restarts the camera; set \(settingKey) after record stop")
        }
    }

    /// Sets the preference (checked with `check` first). While a camera starts the setting is
    /// only kept: like a format change, a start on a format without HDR keeps HDR off, not the
    /// camera from starting.
    public func setPreference(_ preference: VideoHDRPolicy.Preference) throws(RecorderError) {
        guard !suspended else { requested = preference; return }
        try check(preference)
        do throws(CameraError) { try policy.setPreference(preference) } catch {
            throw RecorderError(.unsupported, "\(settingKey) \(error.message)")
        }
        requested = preference
        reconcile()
    }

    /// Every streaming frame: an HdrMode just asked for is confirmed from the metadata, and `auto`
    /// measures the scene and switches when its choice changes. The measure reads the video stream
    /// when the frame has one (the recording draws it anyway; it is Rec. 709 limited range), else
    /// the processed stream: never a full-size still only to measure it.
    public func frameArrived(_ completed: CompletedRequest) {
        guard !suspended else { return }
        confirmHdrMode(HdrModeValue(metadata: completed.metadata))
        guard policy.preference == .auto, policy.formatHasHDR, let camera else { return }
        let video = completed.buffers[.videoRecording]
        guard let buffer = video ?? completed.buffers[camera.processedRole] else { return }
        let clipped = inForce == nil ? Self.clippedCode : Self.clippedCodeInHDR
        let measure: VideoHDRPolicy.SceneMeasure
        if let last = lastMeasure, last.clippedCode == clipped, completed.sensorTimestamp >= last.at,
           completed.sensorTimestamp - last.at < Self.measureInterval {
            measure = last.fractions
        } else {
            guard let measured = FrameAnalysis.toneFractions(buffer, clippedCode: clipped, crushedCode: Self.crushedCode,
                                                                    encoding: video == nil ? .sYCCFull : .rec709Limited) else { return }
            measure = measured
            lastMeasure = (measured, clipped, completed.sensorTimestamp)
        }
        if policy.sceneMeasured(measure) || desired != inForce { reconcile() }
    }

    /// Watches for the HdrMode asked for in the frames' metadata. When `confirmationFrames` pass
    /// with the frames reporting another value, the camera does not apply it: the value is set
    /// aside (said as an event) and the next kind is used. Frames that report no HdrMode at all
    /// cannot confirm it either way, and nothing falls back.
    private func confirmHdrMode(_ reported: HdrModeValue?) {
        guard var watch = confirming else { return }
        if reported == watch.mode { confirming = nil; return }
        if let reported { watch.reported = reported }
        watch.framesLeft -= 1
        confirming = watch
        guard watch.framesLeft <= 0 else { return }
        confirming = nil
        guard let other = watch.reported else { return }
        notAppliedModes.insert(watch.mode)
        onEvent(.notApplied(watch.mode, reported: other))
        reconcile()
    }

    /// What should be in force: the format's preferred kind while the policy says HDR (HdrMode
    /// values the camera did not apply left out).
    private var desired: VideoHDRKind? {
        guard policy.isActive, let camera else { return nil }
        return camera.activeFormat.format.videoHDR.preferredKind(excluding: notAppliedModes, sensorUsable: !sensorHDRUnusable)
    }

    /// Switching the sensor's HDR failed (the camera reopens as it was): the sensor's mode is left
    /// aside for this camera, and the next kind, if any, is used once the camera has started.
    public func sensorHDRFailed() {
        sensorHDRUnusable = true
        restartPending = false
    }

    /// Brings the camera to `desired`: HdrMode at once, the sensor's HDR by a restart.
    private func reconcile() {
        guard let camera, !restartPending, !suspended else { return }
        let want = desired
        guard want != inForce else { deferralReported = false; return }
        if (want == .sensor) != camera.sensorHDROn {
            if let id = recordingID() {
                if !deferralReported {
                    deferralReported = true
                    onEvent(.deferred("recording \(id): the sensor's HDR mode switches after record stop"))
                }
                return
            }
            restartPending = true
            onEvent(.restartCamera(sensorHDR: want == .sensor))
            return
        }
        let mode: HdrModeValue? = if case .hdrMode(let m)? = want { m } else { nil }
        do throws(CameraError) { try camera.setHdrMode(mode) } catch { return }
        confirming = mode.map { ($0, Self.confirmationFrames, nil) }
        onEvent(.changed(want))
    }

    /// `get video.hdr`'s `active=` and `status`: "on (MultiExposure)", "on (sensor)" or "off".
    public var activeDescription: String { inForce.map { "on (\($0))" } ?? "off" }
}
