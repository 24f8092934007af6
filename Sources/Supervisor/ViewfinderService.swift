import Camera
import Foundation
import Hardware
import Motion
import Viewfinder

/// Shows the viewfinder on the board's display, off the capture path: the camera posts each frame
/// to a latest-frame mailbox (never blocking), and a display thread of its own converts, overlays
/// and page-flips. A slow display drops frames; it never delays a request or a bracket.
final class ViewfinderService: @unchecked Sendable {
    let presenter: ViewfinderPresenter
    private let running = LockedValue(true)
    private let failures = LockedValue<String?>(nil)
    /// The display's name as the display thread last read it (a hot-plug changes it). `DRMDisplay`
    /// is single-threaded, so the loop reads this copy, never the display.
    private let shownName: LockedValue<String>

    /// The display's name for `status` (any thread).
    var displayName: String { shownName.current }

    /// Takes DRM master and starts the display thread. The display is used on that thread only.
    init(display: any DisplayDevice, log: Logger) throws {
        presenter = ViewfinderPresenter(display: display)
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
    func post(frame: FrameBuffer, status: ViewfinderStatus) { presenter.post(frame: frame, status: status) }

    /// Stops the display thread, which gives up DRM master.
    func stop() { running.withLock { $0 = false } }

    /// The display is loop-external: only the display thread touches it after `init`.
    private struct DisplayBox: @unchecked Sendable { let display: any DisplayDevice }
}

extension Supervisor {
    /// Starts the viewfinder when the board has a display (not the null display).
    func startViewfinder() {
        guard !(devices.display is NullDisplay), camera != nil else { return }
        let service: ViewfinderService
        do {
            service = try ViewfinderService(display: devices.display, log: log)
        } catch {
            log.warning("display \(devices.display.name): \(error); continuing without a viewfinder")
            return
        }
        viewfinder = service
        applyViewfinderOptions()
    }

    /// Hands a streaming frame to the display thread (never blocks).
    func showOnViewfinder(_ completed: CompletedRequest, _ frame: FrameState) {
        guard let viewfinder, let camera, let buffer = completed.buffers[camera.processedRole] else { return }
        viewfinder.post(frame: buffer, status: viewfinderStatus(frame))
    }

    func applyViewfinderOptions() {
        guard let viewfinder else { return }
        var options = viewfinder.presenter.options
        options.zebra = typed.displayZebra
        options.focusPeaking = typed.displayPeaking
        viewfinder.presenter.options = options
    }

    /// The overlay's status line, from the frame's metadata and the settings.
    func viewfinderStatus(_ frame: FrameState) -> ViewfinderStatus {
        var status = ViewfinderStatus()
        status.exposureDurationMicroseconds = frame.exposureDurationMicroseconds
        status.iso = frame.iso.map { Int($0.rounded()) }
        status.exposureBiasEV = camera?.exposureBiasEV
        status.autoExposure = typed.exposureMode == .auto
        if typed.whiteBalanceMode == .temperature, let k = camera?.temperatureAndTint?.temperatureKelvin {
            status.whiteBalance = .kelvin(Int(k.rounded()))
        } else if typed.whiteBalanceMode != .auto {
            status.whiteBalance = .preset(typed.whiteBalanceMode.rawValue)
        }
        switch typed.focusMode {
        case .locked: status.focusMode = "MF"
        case .auto: status.focusMode = "AF-S"
        case .continuous: status.focusMode = "AF-C"
        }
        status.lensPositionDioptres = frame.lensPositionDioptres
        status.format = camera?.activeFormat.format.label ?? ""
        status.zoomFactor = camera?.zoomFactor
        if let us = frame.frameDurationMicroseconds, us > 0 { status.framesPerSecond = 1e6 / Double(us) }
        if let running = captureService?.running, running.plan.steps.count > 1 {
            let index = min(running.framesSaved, running.plan.steps.count - 1)
            var ev = 0.0
            if case .evBias(let bias) = running.plan.steps[index] { ev = bias }
            status.bracket = ViewfinderStatus.BracketProgress(index: index + 1, count: running.plan.steps.count, evOffset: ev)
        }
        if let stabilization {
            let video = stabilization.video.active
            if video != .off || stabilization.lens.enabled {
                let roll = motion.map { Self.rollDegrees($0.orientation) } ?? 0
                status.stabilization = ViewfinderStatus.StabilizationState(
                    mode: video != .off ? video.rawValue : "lens", rollDegrees: roll, marginUsed: 0)
            }
        }
        switch runtime.imuHealth {
        case .running?: status.imuState = "IMU ok"
        case .unavailable?: status.imuState = "IMU --"
        case nil: status.imuState = ""
        }
        return status
    }

    /// Roll about the optical axis (z), degrees, from the fused orientation.
    static func rollDegrees(_ q: Quaternion) -> Double {
        atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z)) * 180 / .pi
    }
}
