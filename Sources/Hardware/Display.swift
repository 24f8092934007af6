/// A display the viewfinder draws on, or the null display when none is attached.
public protocol DisplayDevice: AnyObject {
    /// "vkms Virtual-1 1024x768", or "none".
    var name: String { get }
    /// The active mode's size, nil while nothing is connected.
    var size: PixelSize? { get }
    /// Scans out an XRGB8888 image of exactly `size` (`drmModePageFlip` on the real one).
    func present(xrgb8888 pixels: [UInt32], size: PixelSize) throws
    /// Takes the display for scan-out: DRM master and mode set. Default: nothing to do.
    func startShowing() throws
    /// Releases the display: previous CRTC restored, DRM master dropped. Default: nothing to do.
    func stopShowing()
    /// Re-probes the connector (call on a hot-plug uevent or periodically). Default: `.unchanged`.
    func checkConnection() throws -> DisplayConnectionChange
}

/// The display used when a board has none: accepts and drops frames.
public final class NullDisplay: DisplayDevice {
    public init() {}
    public var name: String { "none" }
    public var size: PixelSize? { nil }
    public private(set) var framesDropped = 0
    public func present(xrgb8888 pixels: [UInt32], size: PixelSize) throws { framesDropped += 1 }
}

/// What `DisplayDevice.checkConnection()` found when it re-probed the connector.
public enum DisplayConnectionChange: Hashable, Sendable {
    case unchanged
    /// A monitor appeared; its mode has this size.
    case connected(PixelSize)
    /// The monitor went away; `size` is now nil and frames are dropped.
    case disconnected
    /// Still connected, but the chosen mode changed to this size.
    case modeChanged(PixelSize)
}

/// Showing and hot-plug, with defaults for displays that have neither (the null display).
extension DisplayDevice {
    /// Takes the display for scan-out (DRM master, mode set); a no-op by default.
    public func startShowing() throws {}
    /// Gives the display back (restores the previous mode, drops DRM master); a no-op by default.
    public func stopShowing() {}
    /// Re-probes the connector after a hot-plug event or on a timer; `.unchanged` by default.
    public func checkConnection() throws -> DisplayConnectionChange { .unchanged }
}
