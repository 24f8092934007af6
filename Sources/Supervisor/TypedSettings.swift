import Camera
import Console
import Video

/// The settings as typed values with their units, parsed once per change from the canonical text
/// the schema produced at the edge (console `set`, the config file, saved JSON). Code that acts on
/// settings (the camera, stabilization, the button, the viewfinder's per-frame status, captures)
/// reads these, never strings.
/// The text stays the settings' wire form: what `get` shows and `save` writes.
struct TypedSettings: Equatable {
    enum ExposureMode: String { case auto, locked, custom }
    enum FocusMode: String { case locked, auto, continuous }
    enum WhiteBalanceMode: String { case auto, locked, gains, temperature }
    enum CaptureFormat: String { case dng, jpeg, both }

    /// `format`: a format index or WxH@fps, resolved against the camera's table when applied.
    var format: String
    var zoomFactor: Double
    var exposureMode: ExposureMode
    var exposureDurationMicroseconds: Int
    var exposureISO: Double
    var exposureBiasEV: Double
    var focusMode: FocusMode
    var lensPositionDioptres: Double
    var whiteBalanceMode: WhiteBalanceMode
    var whiteBalanceGains: WhiteBalanceGains
    var whiteBalanceKelvin: Double
    var whiteBalanceTint: Double
    var captureFormat: CaptureFormat
    var displayZebra: Bool
    var displayPeaking: Bool
    /// The `video.*` settings, except the encoder (the board's) and the rate cap (the format's).
    var video: VideoSettings
    /// `video.hdr`: a camera setting (VideoHDRService), not the recorder's.
    var videoHDR: VideoHDRPolicy.Preference
    /// `stabilization.lens`: lens stabilization of brackets.
    var stabilizationLens: Bool
    /// `stabilization.still`: automatic still stabilization of single captures.
    var stabilizationStillAutomatic: Bool
    /// `stabilization.video`: the preferred video stabilization mode (the active one is the service's).
    var stabilizationVideoPreferred: StabilizationMode
    /// The `button.*` settings: debounce, gesture timing, actions, busy policy, required.
    var button: ButtonConfiguration

    /// Parses canonical settings (the schema has checked each value); a value that does not parse
    /// (never expected) takes the key's default.
    init(_ settings: [String: String]) {
        func text(_ key: String) -> String { settings[key] ?? SettingsSchema.definition(key)?.defaultValue ?? "" }
        func parsed<T>(_ key: String, _ parse: (String) throws(ConsoleError) -> T, _ fallback: T) -> T {
            do { return try parse(text(key)) } catch {
                do { return try parse(SettingsSchema.definition(key)?.defaultValue ?? "") } catch { return fallback }
            }
        }
        format = text("format")
        zoomFactor = parsed("zoom", { t throws(ConsoleError) in try Self.number(t) }, 1)
        exposureMode = ExposureMode(rawValue: text("exposure.mode")) ?? .auto
        exposureDurationMicroseconds = parsed("exposure.duration", { t throws(ConsoleError) in Int(try ValueParser.duration(t).microseconds) }, 16_667)
        exposureISO = parsed("exposure.iso", ValueParser.iso, 100)
        exposureBiasEV = parsed("exposure.bias", ValueParser.ev, 0)
        focusMode = FocusMode(rawValue: text("focus.mode")) ?? .continuous
        lensPositionDioptres = parsed("focus.lens", ValueParser.dioptres, 0)
        whiteBalanceMode = WhiteBalanceMode(rawValue: text("wb.mode")) ?? .auto
        whiteBalanceGains = parsed("wb.gains", { t throws(ConsoleError) in
            let gains = try ValueParser.gains(t)
            return WhiteBalanceGains(red: gains.red, blue: gains.blue)
        }, WhiteBalanceGains(red: 1, blue: 1))
        whiteBalanceKelvin = parsed("wb.temperature", ValueParser.kelvin, 5500)
        whiteBalanceTint = parsed("wb.tint", { t throws(ConsoleError) in try Self.number(t) }, 0)
        captureFormat = CaptureFormat(rawValue: text("capture.format")) ?? .both
        displayZebra = text("display.zebra") == "on"
        displayPeaking = text("display.peaking") == "on"
        var video = VideoSettings()
        video.codec = VideoSettings.Codec(rawValue: text("video.codec")) ?? .h264
        video.container = VideoSettings.Container(rawValue: text("video.container")) ?? .mp4
        video.bitrateBitsPerSecond = parsed("video.bitrate", { t throws(ConsoleError) in try SettingDefinition.bitrate(t, key: "video.bitrate") }, 10_000_000)
        video.captureFramesPerSecond = parsed("video.fps", { t throws(ConsoleError) in try Self.number(t) }, 30)
        video.prerecordSeconds = parsed("video.prerecord", { t throws(ConsoleError) in try Self.number(t) }, 0)
        video.splitMinutes = parsed("video.split", { t throws(ConsoleError) in try Self.number(t) }, 0)
        video.slowMotion = text("video.slowmotion") == "on"
        video.playbackFramesPerSecond = parsed("video.playback-fps", { t throws(ConsoleError) in try Self.number(t) }, 30)
        self.video = video
        videoHDR = VideoHDRPolicy.Preference(rawValue: text("video.hdr")) ?? .auto
        stabilizationLens = text("stabilization.lens") == "on"
        stabilizationStillAutomatic = text("stabilization.still") == "on"
        stabilizationVideoPreferred = StabilizationMode(rawValue: text("stabilization.video")) ?? .off
        button = Self.buttonConfiguration(text)
    }

    /// The `button.*` settings as the button's configuration; a value that does not parse keeps
    /// the configuration's default.
    private static func buttonConfiguration(_ text: (String) -> String) -> ButtonConfiguration {
        var c = ButtonConfiguration()
        func milliseconds(_ key: String) -> Double? {
            var t = text(key)
            if t.hasSuffix("ms") { t.removeLast(2) }
            return Double(t)
        }
        func action(_ key: String, _ current: ButtonAction?) -> ButtonAction? {
            let t = text(key)
            return t == "none" ? nil : ButtonAction(parsing: t) ?? current
        }
        c.debounceWindowMilliseconds = milliseconds("button.debounce") ?? c.debounceWindowMilliseconds
        c.doublePressWindowMilliseconds = milliseconds("button.double") ?? c.doublePressWindowMilliseconds
        c.longPressThresholdMilliseconds = milliseconds("button.long") ?? c.longPressThresholdMilliseconds
        c.press = action("button.press", c.press)
        c.doublePress = action("button.double-press", c.doublePress)
        c.longPress = action("button.long-press", c.longPress)
        c.whileBusy = BusyPolicy(rawValue: text("button.busy")) ?? c.whileBusy
        c.required = text("button.required") == "on"
        return c
    }

    private static func number(_ text: String) throws(ConsoleError) -> Double {
        guard let v = Double(text), v.isFinite else { throw ConsoleError(.badValue, "\"\(text)\" is not a number") }
        return v
    }
}
