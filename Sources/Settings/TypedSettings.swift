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
    /// The `stabilization.*` settings: lens, still and the preferred video mode.
    public var stabilization = StabilizationSettings()
    public var captureFormat = CaptureFormat.both
    /// `media.dng.compression`: lossless JPEG tiles, or the samples as they are.
    public var dngCompression = DNGCompression.lossless
    /// The `display.*` settings: the viewfinder's zebra and peaking.
    public var display = DisplaySettings()
    /// The `button.*` settings: debounce, gesture timing, actions, busy policy, required (defaults: the button's).
    public var button = ButtonConfiguration()
    /// The `video.*` settings, except the encoder (the board's) and the rate cap (the format's);
    /// defaults: the recorder's.
    public var video = VideoSettings()
    /// `video.hdr`: a camera setting (VideoHDRService), not the recorder's.
    public var videoHDR = VideoHDRPolicy.Preference.auto
    /// The `fleet.*` settings: the MQTT broker, the group and this rig's name (module Fleet).
    public var fleet = FleetSettings()
    /// The `remote.*` settings: the browser remote's listen address, TLS, collection key and advertised address.
    public var remote = RemoteSettings()
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
