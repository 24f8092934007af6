import Controls
import Hardware
import Media

/// The settings the capture services read, as they are in force: given at init and read when
/// used, never copied in (the settings store's view, `InForceCaptureSettings` in module Settings).
public protocol CaptureSettingsView {
    /// Files written per frame (`capture.format`).
    var captureFormat: CaptureFormat { get }
    /// How DNGs store the raw samples (`media.dng.compression`); a bracket keeps the one it started with.
    var dngCompression: DNGCompression { get }
    /// Debounce, gestures and busy policy of the shutter button (the `button.*` settings).
    var buttonConfiguration: ButtonConfiguration { get }
    /// How fast a time-lapse's exposure ramp may move, EV per hour (`timelapse.ramp.rate`).
    var timelapseRampRateEVPerHour: Double { get }
}

/// The board's capture controls, as the composition hands them to the capture service: the shutter
/// and half-press lines and the status LED's line, each nil where the board has none.
public struct CaptureControls {
    public var shutter: (any GPIOInputLine)?
    public var halfPress: (any GPIOInputLine)?
    public var led: (any GPIOOutputLine)?

    public init(shutter: (any GPIOInputLine)? = nil, halfPress: (any GPIOInputLine)? = nil, led: (any GPIOOutputLine)? = nil) {
        self.shutter = shutter; self.halfPress = halfPress; self.led = led
    }
}

/// The shutter button as the capture service drives it: the board's (`ButtonController`), or
/// `NoShutterButton` where the board has none. Loop-confined.
public protocol ShutterButton: AnyObject {
    /// Starts listening to the lines.
    func start()
    /// Closes the lines.
    func stop()
    /// Applies new `button.*` settings without reopening the lines.
    func reconfigure(_ configuration: ButtonConfiguration)
    /// A capture started elsewhere (console): button captures now wait or are refused.
    func captureDidStart()
    /// The running capture ended: a queued press starts now.
    func captureDidFinish()
    /// Why the button stopped working; nil while it works (and without a button).
    var failure: String? { get }
}

extension ButtonController: ShutterButton {}

/// The board has no shutter button: nothing listens, and no press waits for a capture.
public final class NoShutterButton: ShutterButton {
    public init() {}
    public func start() {}
    public func stop() {}
    public func reconfigure(_ configuration: ButtonConfiguration) {}
    public func captureDidStart() {}
    public func captureDidFinish() {}
    public var failure: String? { nil }
}
