import Camera
import Foundation
import Hardware
import Logging
import Motion

/// Shows the viewfinder on the board's display, off the capture path: the camera posts each frame
/// to a latest-frame mailbox (never blocking), and a display thread of its own converts, overlays
/// and page-flips. A slow display drops frames; it never delays a request or a bracket.
public final class ViewfinderService: @unchecked Sendable {
    public let presenter: ViewfinderPresenter
    private let running = LockedValue(true)
    private let failures = LockedValue<String?>(nil)
    /// The display's name as the display thread last read it (a hot-plug changes it). `DRMDisplay`
    /// is single-threaded, so the loop reads this copy, never the display.
    private let shownName: LockedValue<String>

    /// The display's name for `status` (any thread).
    public var displayName: String { shownName.current }

    /// Takes DRM master and starts the display thread. The display is used on that thread only.
    /// `options`: the overlay switches in force, read by the display thread for each frame it shows.
    public init(display: any DisplayDevice, options: @escaping @Sendable () -> OverlayOptions, log: Logger) throws {
        presenter = ViewfinderPresenter(display: display, options: options)
        shownName = LockedValue(display.name)  // before the display thread starts: still ours
        try display.startShowing()
        let box = DisplayBox(display: display)
        let thread = Thread { [presenter, running, failures, shownName] in
            var idle = 0
            while running.current {
                do {
                    if try presenter.presentLatest() { idle = 0 } else { idle += 1; usleep(5_000) }
                    if idle % 200 == 199 {  // about once a second when idle
                        _ = try box.display.checkConnection()
                        let name = box.display.name
                        shownName.withLock { $0 = name }
                    }
                } catch {
                    let message = "\(error)"
                    if failures.current != message { log.warning("display: \(message)") }
                    failures.withLock { $0 = message }
                    usleep(100_000)
                }
            }
            box.display.stopShowing()
        }
        thread.name = "tripod-viewfinder"
        thread.start()
    }

    /// Hands the newest frame to the display thread (any thread, never blocks).
    public func post(frame: FrameBuffer, status: ViewfinderStatus) { presenter.post(frame: frame, status: status) }

    /// Stops the display thread, which gives up DRM master.
    public func stop() { running.withLock { $0 = false } }

    /// The display is loop-external: only the display thread touches it after `init`.
    private struct DisplayBox: @unchecked Sendable { let display: any DisplayDevice }
}
