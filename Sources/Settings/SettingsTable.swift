import Camera
import Hardware
import Capture
import Console
import Controls
import Media
import Triggers
import Video

/// One setting: its key (console `set`/`get`, the config file, saved JSON, the network's JSON),
/// where its typed value lives in `TypedSettings`, how it is parsed and written, and its help.
public struct Setting<Value: Equatable & Sendable>: Sendable {
    public let key: String
    public let path: WritableKeyPath<TypedSettings, Value> & Sendable
    public let codec: SettingCodec<Value>
    public let summary: String

    init(_ key: String, _ path: WritableKeyPath<TypedSettings, Value> & Sendable, _ codec: SettingCodec<Value>, _ summary: String) {
        self.key = key; self.path = path; self.codec = codec; self.summary = summary
    }

    /// The value's canonical text in `settings`.
    public func text(in settings: TypedSettings) -> String { codec.format(settings[keyPath: path]) }

    /// Parses `text` (any accepted form) into a typed value.
    public func parse(_ text: String) throws(ConsoleError) -> Value { try codec.parse(text, key) }
}

/// A setting whose type is erased: what the table lists, the edges read and write through.
public struct AnySetting: Sendable {
    public let key: String
    public let kind: SettingKind
    public let summary: String
    /// The default value's canonical text.
    public let defaultText: String
    private let read: @Sendable (TypedSettings) -> String
    private let write: @Sendable (inout TypedSettings, String) throws(ConsoleError) -> Void
    private let copy: @Sendable (TypedSettings, inout TypedSettings) -> Void
    private let differ: @Sendable (TypedSettings, TypedSettings) -> Bool
    /// The mode a value of this key selects (`exposure.duration` selects `exposure.mode custom`).
    public let selects: ImpliedMode?

    /// A mode a parameter selects, as on a camera's M dial.
    public struct ImpliedMode: Sendable {
        public let key: String
        let apply: @Sendable (inout TypedSettings) -> Bool
    }

    init<Value>(_ setting: Setting<Value>, selects implied: ImpliedMode? = nil) {
        key = setting.key; kind = setting.codec.kind; summary = setting.summary
        defaultText = setting.text(in: .defaults)
        read = { setting.text(in: $0) }
        write = { settings, text throws(ConsoleError) in settings[keyPath: setting.path] = try setting.parse(text) }
        copy = { from, to in to[keyPath: setting.path] = from[keyPath: setting.path] }
        differ = { $0[keyPath: setting.path] != $1[keyPath: setting.path] }
        selects = implied
    }

    /// The canonical text of this setting in `settings`.
    public func text(in settings: TypedSettings) -> String { read(settings) }
    /// Parses `text` into `settings` (validated at the edge; throws with the forms it accepts).
    public func set(_ text: String, in settings: inout TypedSettings) throws(ConsoleError) { try write(&settings, text) }
    /// Puts this setting's value from `source` into `settings`.
    public func copy(from source: TypedSettings, to settings: inout TypedSettings) { copy(source, &settings) }
    /// True when the two settings differ in this key.
    public func differs(_ a: TypedSettings, _ b: TypedSettings) -> Bool { differ(a, b) }
    /// Accepted forms, for help and errors.
    public var forms: String { kind.forms }
}

extension Setting {
    /// This setting selecting `mode`'s value `value`, for the table.
    func selecting<Mode>(_ mode: Setting<Mode>, _ value: Mode) -> AnySetting {
        AnySetting(self, selects: AnySetting.ImpliedMode(key: mode.key) { settings in
            guard settings[keyPath: mode.path] != value else { return false }
            settings[keyPath: mode.path] = value
            return true
        })
    }
}

/// The one table of settings. Each key is written here once, with its parse, format, unit and help;
/// its default is `TypedSettings`'s. Nothing else spells a key.
public enum SettingsTable {
    public static let format = Setting("format", \.format, .formatSpec, "active camera format (see formats)")
    public static let zoom = Setting("zoom", \.zoomFactor, .zoom, "digital zoom factor through ScalerCrop (processed frames and JPEG; not DNG)")
    public static let exposureMode = Setting("exposure.mode", \.exposureMode, .choice(TypedSettings.ExposureMode.allCases), "auto exposure, held, or custom duration+ISO")
    public static let exposureDuration = Setting("exposure.duration", \.exposureDurationMicroseconds, .durationMicroseconds, "custom exposure duration")
    public static let exposureISO = Setting("exposure.iso", \.exposureISO, .iso, "custom ISO (100 × analogue gain)")
    public static let exposureBias = Setting("exposure.bias", \.exposureBiasEV, .ev, "exposure bias in auto and locked modes")
    public static let focusMode = Setting("focus.mode", \.focusMode, .choice(TypedSettings.FocusMode.allCases), "manual lens, single scan, or continuous AF")
    public static let focusLens = Setting("focus.lens", \.lensPositionDioptres, .dioptres, "lens position when locked, dioptres (0 = infinity)")
    public static let whiteBalanceMode = Setting("wb.mode", \.whiteBalanceMode, .choice(TypedSettings.WhiteBalanceMode.allCases), "auto WB, held, given gains, or temperature+tint")
    public static let whiteBalanceGains = Setting("wb.gains", \.whiteBalanceGains, .gains, "red,blue gains for wb.mode gains")
    public static let whiteBalanceTemperature = Setting("wb.temperature", \.whiteBalanceKelvin, .kelvin, "colour temperature for wb.mode temperature")
    public static let whiteBalanceTint = Setting("wb.tint", \.whiteBalanceTint, .tint, "tint for wb.mode temperature (+ magenta, − green)")
    public static let stabilizationLens = Setting("stabilization.lens", \.stabilization.lens, .onOff, "lens-style stabilization during brackets")
    public static let stabilizationStill = Setting("stabilization.still", \.stabilization.stillAutomatic, .onOff, "automatic still stabilization for long exposures")
    public static let stabilizationVideo = Setting("stabilization.video", \.stabilization.videoPreferred, .choice(StabilizationMode.allCases), "preferred video stabilization mode")
    public static let captureFormat = Setting("capture.format", \.captureFormat, .choice(CaptureFormat.allCases), "files written per frame")
    public static let dngCompression = Setting("media.dng.compression", \.dngCompression, .choice(DNGCompression.allCases), "DNG raw samples: lossless JPEG tiles (Compression 7) or uncompressed")
    public static let displayZebra = Setting("display.zebra", \.display.zebra, .onOff, "viewfinder: zebra stripes on clipped highlights")
    public static let displayPeaking = Setting("display.peaking", \.display.peaking, .onOff, "viewfinder: focus peaking on edges")
    public static let buttonDebounce = Setting("button.debounce", \.button.debounceWindowMilliseconds, .milliseconds(1...200, example: "10ms"), "shutter button debounce window")
    public static let buttonDouble = Setting("button.double", \.button.doublePressWindowMilliseconds, .milliseconds(50...2000, example: "300ms"), "longest release-to-press gap of a double press")
    public static let buttonLong = Setting("button.long", \.button.longPressThresholdMilliseconds, .milliseconds(200...10000, example: "800ms"), "hold time from which a press is a long press")
    public static let buttonPress = Setting("button.press", \.button.press, .buttonAction, "action of a single press")
    public static let buttonDoublePress = Setting("button.double-press", \.button.doublePress, .buttonAction, "action of a double press")
    public static let buttonLongPress = Setting("button.long-press", \.button.longPress, .buttonAction, "action of a long press")
    public static let buttonBusy = Setting("button.busy", \.button.whileBusy, .choice([BusyPolicy.queueOne, .reject]), "capture presses while a bracket runs")
    public static let buttonRequired = Setting("button.required", \.button.required, .onOff, "fail start-up when the board has no shutter button line")
    public static let videoCodec = Setting("video.codec", \.video.codec, .choice(VideoSettings.Codec.allCases), "video codec (H.264: the board's hardware encoder where it has one, else libx264)")
    public static let videoContainer = Setting("video.container", \.video.container, .choice(VideoSettings.Container.allCases), "video container (MP4 written as fragments while recording)")
    public static let videoBitrate = Setting("video.bitrate", \.video.bitrateBitsPerSecond, .bitrate, "video bit rate")
    public static let videoFPS = Setting("video.fps", \.video.captureFramesPerSecond, .number(1...240, unit: "fps", example: "30"), "recording frame rate (the format's maximum when that is lower)")
    public static let videoPrerecord = Setting("video.prerecord", \.video.prerecordSeconds, .number(0...60, unit: "s", example: "0"), "seconds of video kept before record start")
    public static let videoSplit = Setting("video.split", \.video.splitMinutes, .number(0...1440, unit: "min", example: "0"), "minutes per file, 0 = one file")
    public static let videoSlowMotion = Setting("video.slowmotion", \.video.slowMotion, .onOff, "high-frame-rate video plays back at video.playback-fps")
    public static let videoHDR = Setting("video.hdr", \.videoHDR, .choice(VideoHDRPolicy.Preference.allCases), "video HDR: auto (the scene decides), on or off (formats' hdr column)")
    public static let remoteListen = Setting("remote.listen", \.remote.listen, .listenAddress, "browser remote's HTTP server: off, or ADDRESS:PORT (e.g. 0.0.0.0:8080, [::]:8080; port 0 picks a free one)")
    public static let remoteTLS = Setting("remote.tls", \.remote.tls, .certificateAndKey, "HTTPS for the browser remote: off, or its PEM certificate and private key files (the key mode 600 or 400)")
    public static let videoPlaybackFPS = Setting("video.playback-fps", \.video.playbackFramesPerSecond, .number(1...240, unit: "fps", example: "30"), "playback rate of slow motion")
    public static let timelapseRampRate = Setting("timelapse.ramp.rate", \.timelapseRampRateEVPerHour, .number(0.5...600, unit: "EV/h", example: "30"), "time-lapse ramp auto: the most the exposure moves per hour of clock time")
    // Collection (docs/collect.md): the read-only key and the address the status advertises.
    public static let remoteCollect = Setting("remote.collect", \.remote.collectKeyFile, .file, "file with the group's read-only collection key (tripod collect --key), mode 0600, or none")
    public static let remoteAdvertise = Setting("remote.advertise", \.remote.advertise, .listenAddress, "the remote's address in the fleet's status (behind NAT): off (the listen address) or ADDRESS:PORT")
    public static let fleetBroker = Setting("fleet.broker", \.fleet.broker, .broker, "the fleet's MQTT broker (docs/fleet.md), or off")
    public static let fleetCA = Setting("fleet.ca", \.fleet.certificateAuthorityFile, .file, "PEM file of the CAs that sign an mqtts:// broker's certificate (none: the system's)")
    public static let fleetGroup = Setting("fleet.group", \.fleet.group, .name, "the fleet's group: MQTT topics tripod/<group>/...")
    public static let fleetRig = Setting("fleet.rig", \.fleet.rig, .name, "this rig's name in the group (default: the host name)")
    public static let fleetCredentials = Setting("fleet.credentials", \.fleet.credentialsFile, .file, "file with the broker's user (line 1) and password (line 2), mode 0600")
    public static let fleetSync = Setting("fleet.sync", \.fleet.sync, .choice(FrameSyncMode.allCases), "frame sync (Raspberry Pi's libcamera): off, server (one rig) or client (the others), at a fixed video.fps below the format's maximum")
    public static let streamRTSP = Setting("stream.rtsp", \.stream.rtsp, .listenAddress, "live RTSP stream at rtsp://ADDRESS:PORT/live, or off; an address beyond the loopback needs stream.rtsp.credentials (docs/stream.md)")
    public static let streamBitrate = Setting("stream.bitrate", \.stream.bitrateBitsPerSecond, .bitrate, "bit rate of the stream's own encoder while nothing records (a recording streams its own packets)")
    public static let streamCredentials = Setting("stream.rtsp.credentials", \.stream.credentialsFile, .file, "file with the RTSP digest user (line 1) and password (line 2), mode 0600, or none")
    public static let triggerMotion = Setting("trigger.motion", \.trigger.motion, .onOff, "motion detection on a small luma copy of each frame (docs/triggers.md)")
    public static let triggerMotionZone = Setting("trigger.motion.zone", \.trigger.motionZones, .motionZones, "where motion counts: X,Y,W,H fractions of the frame, several separated by ';'")
    public static let triggerMotionThreshold = Setting("trigger.motion.threshold", \.trigger.motionThresholdLevels, .number(2...128, unit: "levels", example: "20"), "luma difference (of 255) from which a part of the picture changed")
    public static let triggerMotionArea = Setting("trigger.motion.area", \.trigger.motionAreaPercent, .number(0.1...100, unit: "%", example: "1"), "share of a zone that must change to trigger")
    public static let triggerAction = Setting("trigger.action", \.trigger.action, .triggerAction, "what motion (and a PIR line) does: off, capture, bracket PRESET, or record SECONDS after the last trigger")
    public static let triggerCooldown = Setting("trigger.cooldown", \.trigger.cooldownSeconds, .number(0...86400, unit: "s", example: "10"), "seconds after an action during which new triggers do nothing")
    public static let triggerSchedule = Setting("trigger.schedule", \.trigger.schedule, .triggerSchedule, "when triggers act: always, or HH:MM-HH:MM local time")

    /// Every setting, in the order `get` and `help` list them.
    public static let all: [AnySetting] = [
        AnySetting(format), AnySetting(zoom),
        AnySetting(exposureMode), exposureDuration.selecting(exposureMode, .custom), exposureISO.selecting(exposureMode, .custom),
        AnySetting(exposureBias),
        AnySetting(focusMode), focusLens.selecting(focusMode, .locked),
        AnySetting(whiteBalanceMode), whiteBalanceGains.selecting(whiteBalanceMode, .gains),
        whiteBalanceTemperature.selecting(whiteBalanceMode, .temperature), whiteBalanceTint.selecting(whiteBalanceMode, .temperature),
        AnySetting(stabilizationLens), AnySetting(stabilizationStill), AnySetting(stabilizationVideo),
        AnySetting(captureFormat), AnySetting(dngCompression), AnySetting(displayZebra), AnySetting(displayPeaking),
        AnySetting(buttonDebounce), AnySetting(buttonDouble), AnySetting(buttonLong), AnySetting(buttonPress),
        AnySetting(buttonDoublePress), AnySetting(buttonLongPress), AnySetting(buttonBusy), AnySetting(buttonRequired),
        AnySetting(videoCodec), AnySetting(videoContainer), AnySetting(videoBitrate), AnySetting(videoFPS),
        AnySetting(videoPrerecord), AnySetting(videoSplit), AnySetting(videoSlowMotion), AnySetting(videoHDR),
        AnySetting(videoPlaybackFPS), AnySetting(remoteListen), AnySetting(remoteTLS), AnySetting(timelapseRampRate),
        AnySetting(fleetBroker), AnySetting(fleetCA), AnySetting(fleetGroup), AnySetting(fleetRig), AnySetting(fleetCredentials),
        AnySetting(fleetSync),
        AnySetting(remoteCollect), AnySetting(remoteAdvertise),
        AnySetting(streamRTSP), AnySetting(streamBitrate), AnySetting(streamCredentials),
        AnySetting(triggerMotion), AnySetting(triggerMotionZone), AnySetting(triggerMotionThreshold), AnySetting(triggerMotionArea),
        AnySetting(triggerAction), AnySetting(triggerCooldown), AnySetting(triggerSchedule),
    ]

    /// The viewfinder's settings.
    public static let display = [displayZebra.any, displayPeaking.any]
    /// The button's settings (`ButtonConfiguration`).
    public static let button = all.filter { $0.key.hasPrefix("button.") }
    /// The stabilization settings, applied after the camera starts (they depend on the IMU's health).
    public static let stabilization = [stabilizationLens.any, stabilizationStill.any, stabilizationVideo.any]
    /// The browser remote's settings (module Remote); refused over the remote itself.
    public static let remote = all.filter { $0.key.hasPrefix("remote.") }
    /// The fleet's settings (module Fleet); refused over MQTT.
    public static let fleet = all.filter { $0.key.hasPrefix("fleet.") }

    /// The live stream's settings (module Stream, wired in StreamWiring.swift).
    public static let stream = all.filter { $0.key.hasPrefix("stream.") }
    /// The recorder's settings: every `video.*` key but `video.hdr` (the camera's).
    public static let recording = all.filter { $0.key.hasPrefix("video.") && $0.key != videoHDR.key }

    /// The trigger settings (module Triggers, wired in TriggerWiring.swift).
    public static let trigger = all.filter { $0.key.hasPrefix("trigger.") }

    private static let byKey: [String: AnySetting] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    /// The setting named `key`, or nil.
    public static func setting(_ key: String) -> AnySetting? { byKey[key] }

    /// The setting named `key`, or an `unknown-key` error listing the keys.
    public static func lookUp(_ key: String) throws(ConsoleError) -> AnySetting {
        guard let setting = byKey[key] else {
            throw ConsoleError(.unknownKey, "unknown setting \"\(key)\"; keys: \(all.map(\.key).joined(separator: " "))")
        }
        return setting
    }

    /// Validates one `key = value` (console or config file) and returns the canonical text.
    public static func validate(key: String, value: String) throws(ConsoleError) -> String {
        let setting = try lookUp(key)
        var scratch = TypedSettings.defaults
        try setting.set(value, in: &scratch)
        return setting.text(in: scratch)
    }

    /// The keys whose values differ between the two settings.
    public static func keys(differingBetween a: TypedSettings, and b: TypedSettings) -> Set<String> {
        Set(all.filter { $0.differs(a, b) }.map(\.key))
    }

    /// The settings as canonical text, keyed (saved JSON, `get`).
    public static func texts(_ settings: TypedSettings) -> [String: String] {
        Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0.text(in: settings)) })
    }
}

extension Setting {
    /// Type-erased, for comparisons with a change's keys.
    public var any: AnySetting { SettingsTable.setting(key) ?? AnySetting(self) }
}
