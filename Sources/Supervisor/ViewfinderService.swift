import Camera
import Foundation
import Hardware
import Viewfinder

/// Shows the viewfinder on the board's display, off the capture path: the camera posts each frame
/// to a latest-frame mailbox (never blocking), and a display thread of its own converts, overlays
/// and page-flips. A slow display drops frames; it never delays a request or a bracket.
final class ViewfinderService: @unchecked Sendable {
    let presenter: ViewfinderPresenter
    private let running = LockedValue(true)
    private let failures = LockedValue<String?>(nil)

    /// Takes DRM master and starts the display thread. The display is used on that thread only.
    init(display: any DisplayDevice, log: Logger) throws {
        presenter = ViewfinderPresenter(display: display)
        try display.startShowing()
        let box = DisplayBox(display: display)
        let thread = Thread { [presenter, running, failures] in
            var idle = 0
            while running.current {
                do {
                    if try presenter.presentLatest() { idle = 0 } else { idle += 1; usleep(5_000) }
                    if idle % 200 == 199 { _ = try box.display.checkConnection() }  // about once a second when idle
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
    func post(frame: FrameBuffer, status: ViewfinderStatus) { presenter.post(frame: frame, status: status) }

    /// Stops the display thread, which gives up DRM master.
    func stop() { running.withLock { $0 = false } }

    /// The display is loop-external: only the display thread touches it after `init`.
    private struct DisplayBox: @unchecked Sendable { let display: any DisplayDevice }
}

extension Supervisor {
    /// Starts the viewfinder when the board has a display (not the null display).
    func startViewfinder() {
        guard !(devices.display is NullDisplay), let camera else { return }
        let service: ViewfinderService
        do {
            service = try ViewfinderService(display: devices.display, log: log)
        } catch {
            log.warning("display \(devices.display.name): \(error); continuing without a viewfinder")
            return
        }
        viewfinder = service
        applyViewfinderOptions()
        let bound = self.bound
        camera.onFrame = { completed, frame in
            guard let buffer = completed.buffers[camera.processedRole] else { return }
            service.post(frame: buffer, status: bound.value.viewfinderStatus(frame))
        }
    }

    func applyViewfinderOptions() {
        guard let viewfinder else { return }
        var options = viewfinder.presenter.options
        options.zebra = settings["display.zebra"] == "on"
        options.focusPeaking = settings["display.peaking"] == "on"
        viewfinder.presenter.options = options
    }

    /// The overlay's status line, from the frame's metadata and the settings.
    func viewfinderStatus(_ frame: FrameState) -> ViewfinderStatus {
        var status = ViewfinderStatus()
        status.exposureDurationMicroseconds = frame.exposureDurationMicroseconds
        status.iso = Int(frame.iso.rounded())
        status.exposureBiasEV = camera?.exposureBiasEV
        status.autoExposure = settings["exposure.mode"] == "auto"
        if settings["wb.mode"] == "temperature", let k = camera?.temperatureAndTint?.temperatureKelvin {
            status.whiteBalance = .kelvin(Int(k.rounded()))
        } else if settings["wb.mode"] != "auto" {
            status.whiteBalance = .preset(settings["wb.mode"] ?? "")
        }
        status.focusMode = settings["focus.mode"] == "locked" ? "MF" : (settings["focus.mode"] == "auto" ? "AF-S" : "AF-C")
        status.lensPositionDioptres = frame.lensPositionDioptres
        status.format = camera?.activeFormat.format.label ?? ""
        if let us = frame.frameDurationMicroseconds, us > 0 { status.framesPerSecond = 1e6 / Double(us) }
        switch runtime.imuHealth {
        case .running?: status.imuState = "IMU ok"
        case .unavailable?: status.imuState = "IMU --"
        case nil: status.imuState = ""
        }
        return status
    }
}
