/// A display the viewfinder draws on, or the null display when none is attached.
public protocol DisplayDevice: AnyObject {
    /// "vkms Virtual-1 1024x768", or "none".
    var name: String { get }
    /// The active mode's size, nil while nothing is connected.
    var size: PixelSize? { get }
    /// Scans out an XRGB8888 image of exactly `size` (`drmModePageFlip` on the real one).
    func present(xrgb8888 pixels: [UInt32], size: PixelSize) throws
}

/// The display used when a board has none: accepts and drops frames.
public final class NullDisplay: DisplayDevice {
    public init() {}
    public var name: String { "none" }
    public var size: PixelSize? { nil }
    public private(set) var framesDropped = 0
    public func present(xrgb8888 pixels: [UInt32], size: PixelSize) throws { framesDropped += 1 }
}
