import Camera
import Capture
import Controls
import Media
import Triggers
import Video

/// The settings in force, as typed values with their units: the one stored form. Text exists only
/// at the edges (console, config file, saved JSON), through `SettingsTable`. Each property's
/// default is written here, once; the table names the key, the parse, the format and the help.
public struct TypedSettings: Equatable, Sendable {
    public enum ExposureMode: String, Sendable, CaseIterable { case auto, locked, custom }
    public enum FocusMode: String, Sendable, CaseIterable { case locked, auto, continuous }
    public enum WhiteBalanceMode: String, Sendable, CaseIterable { case auto, locked, gains, temperature }

    /// `format`: a format index or WxH@fps, resolved against the camera's table when applied.
    public var format = "0"
    public var zoomFactor: Double = 1
    public var exposureMode = ExposureMode.auto
    public var exposureDurationMicroseconds = 16_667
    public var exposureISO: Double = 100
    public var exposureBiasEV: Double = 0
    public var focusMode = FocusMode.continuous
    public var lensPositionDioptres: Double = 0
    public var whiteBalanceMode = WhiteBalanceMode.auto
    public var whiteBalanceGains = WhiteBalanceGains(red: 1, blue: 1)
    public var whiteBalanceKelvin: Double = 5500
    public var whiteBalanceTint: Double = 0
    /// `stabilization.lens`: lens stabilization of brackets.
    public var stabilizationLens = false
    /// `stabilization.still`: automatic still stabilization of single captures.
    public var stabilizationStillAutomatic = true
    /// `stabilization.video`: the preferred video stabilization mode (the active one is the service's).
    public var stabilizationVideoPreferred = StabilizationMode.off
    public var captureFormat = CaptureFormat.both
    /// `media.dng.compression`: lossless JPEG tiles, or the samples as they are.
    public var dngCompression = DNGCompression.lossless
    public var displayZebra = false
    public var displayPeaking = false
    /// The `button.*` settings: debounce, gesture timing, actions, busy policy, required (defaults: the button's).
    public var button = ButtonConfiguration()
    /// The `video.*` settings, except the encoder (the board's) and the rate cap (the format's);
    /// defaults: the recorder's.
    public var video = VideoSettings()
    /// `video.hdr`: a camera setting (VideoHDRService), not the recorder's.
    public var videoHDR = VideoHDRPolicy.Preference.auto
    /// The `fleet.*` settings: the MQTT broker, the group and this rig's name (module Fleet).
    public var fleet = FleetSettings()
    /// `remote.listen`: where the browser remote's HTTP server listens, or off (docs/remote.md).
    public var remoteListen = RemoteListen.off
    /// `remote.tls`: HTTPS with this certificate and key, or plain HTTP (docs/remote.md).
    public var remoteTLS = RemoteTLS.off
    /// `remote.collect`: the file holding the group's read-only collection key (docs/collect.md), or none.
    public var remoteCollectKeyFile: String?
    /// `remote.advertise`: the address the fleet's status gives for this remote (behind NAT), or off: the listen address.
    public var remoteAdvertise = RemoteListen.off
    /// `timelapse.ramp.rate`: how fast a time-lapse's exposure ramp may move, EV per hour.
    public var timelapseRampRateEVPerHour: Double = 30
    /// The `trigger.*` settings: motion detection and what a trigger does (module Triggers).
    public var trigger = TriggerSettings()
    /// The `stream.*` settings: the live RTSP stream (module Stream).
    public var stream = StreamSettings()

    public init() {}

    /// The defaults: what a fresh rig starts with before the config file.
    public static let defaults = TypedSettings()
}
