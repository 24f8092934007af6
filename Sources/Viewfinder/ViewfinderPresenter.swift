import Hardware

/// The viewfinder's two halves joined by a latest-frame-wins mailbox.
///
/// The capture side calls `post(frame:status:)` from the camera's completion path: it swaps a
/// reference under a lock and returns, so a slow display never delays a request or a bracket.
/// The display side (its own thread or a loop timer) calls `presentLatest()`, which renders the
/// newest posted frame, if any, and hands it to the `DisplayDevice`; frames it was too slow for
/// are dropped (and their buffers released) rather than queued.
public final class ViewfinderPresenter: @unchecked Sendable {
    /// One posted frame with the status to draw over it.
    public struct Posting: Sendable {
        public var frame: FrameBuffer
        public var status: ViewfinderStatus
    }

    public let display: any DisplayDevice
    /// The capture-to-display slot; `counts.replaced` is the number of frames the display skipped.
    public let mailbox = LatestValueMailbox<Posting>()
    private let readOptions: @Sendable () -> OverlayOptions
    private let filter: ScalingFilter
    // Display-side state: touched only by `presentLatest`, which must not run concurrently.
    private var renderer: ViewfinderRenderer?

    /// `display` is the DRM display or the null display; rendering adapts to its current size.
    /// `options`: the overlay switches in force, read for each frame shown (from the display thread).
    public init(display: any DisplayDevice, options: @escaping @Sendable () -> OverlayOptions,
                filter: ScalingFilter = .bilinear) {
        self.display = display
        self.readOptions = options
        self.filter = filter
    }

    /// The same with fixed overlay switches.
    public convenience init(display: any DisplayDevice, options: OverlayOptions = OverlayOptions(),
                            filter: ScalingFilter = .bilinear) {
        self.init(display: display, options: { options }, filter: filter)
    }

    /// The overlay switches (zebra, peaking, histogram, status) in force; safe from any thread.
    public var options: OverlayOptions { readOptions() }

    /// Capture side: offers a frame; never blocks, never queues.
    public func post(frame: FrameBuffer, status: ViewfinderStatus) {
        mailbox.post(Posting(frame: frame, status: status))
    }

    /// Display side: renders and presents the newest frame. Returns false when there was nothing
    /// new or no display is connected (the frame is then dropped). Throws the display's
    /// `HardwareError` or a `ViewfinderError` for a frame it cannot convert.
    @discardableResult
    public func presentLatest() throws -> Bool {
        guard let posting = mailbox.take() else { return false }
        guard let size = display.size, size.area > 0 else { renderer = nil; return false }
        if renderer?.layout.displaySize != size {
            renderer = ViewfinderRenderer(displaySize: size, filter: filter)
        }
        guard let renderer else { return false }
        renderer.options = options
        let canvas = try renderer.render(frame: posting.frame, status: posting.status)
        try display.present(xrgb8888: canvas.pixels, size: size)
        return true
    }
}
