import Foundation
import Hardware
import Camera
import Motion
import Settings
import Viewfinder

/// The display's viewfinder as the supervisor's start and stop leave it. Its service runs a display
/// thread of its own that holds the display (DRM master), so it exists only from start to stop.
enum ViewfinderState {
    /// Before start (or a start that failed before the camera streamed).
    case notStarted
    /// The board has no display (the null display): nothing is shown.
    case noDisplay
    /// The display could not be taken at start (why, as logged): the rig runs without a viewfinder.
    case unavailable(String)
    /// Its display thread shows the streaming frames.
    case showing(ViewfinderService)
    /// Stopped with the supervisor: the display is given back. Its name as the display thread last read it.
    case stopped(displayName: String)
}

extension Supervisor {
    /// The viewfinder while it shows frames.
    var viewfinder: ViewfinderService? {
        if case .showing(let service) = viewfinderState { return service }
        return nil
    }

    /// Starts the viewfinder when the board has a display (not the null display).
    func startViewfinder() {
        guard camera != nil else { return }
        guard !(devices.display is NullDisplay) else {
            viewfinderState = .noDisplay
            return
        }
        let service: ViewfinderService
        do {
            service = try ViewfinderService(display: devices.display, options: Self.overlayOptions(settings.inForce), log: log)
        } catch {
            log.warning("display \(devices.display.name): \(error); continuing without a viewfinder")
            viewfinderState = .unavailable("\(error)")
            return
        }
        viewfinderState = .showing(service)
    }

    /// Stops the display thread, which gives the display back; the frames it still holds go.
    func stopViewfinder() {
        guard case .showing(let service) = viewfinderState else { return }
        service.stop()
        service.presenter.mailbox.clear()
        viewfinderState = .stopped(displayName: service.displayName)
    }

    /// The display's name for `status`: once the viewfinder has run, as its display thread read it
    /// (only that thread touches the display).
    var displayName: String {
        switch viewfinderState {
        case .showing(let service): service.displayName
        case .stopped(let name): name
        case .notStarted, .noDisplay, .unavailable: devices.display.name
        }
    }

    /// Hands a streaming frame's preview (`previewFrame`) to the display thread (never blocks).
    public func showOnViewfinder(_ buffer: FrameBuffer, _ frame: FrameState) {
        guard let viewfinder else { return }
        viewfinder.post(frame: buffer, status: viewfinderStatus(frame))
    }

    /// The overlay switches as the `display.*` settings in force say, read by the display thread
    /// for each frame it shows: a committed change is drawn from the next frame on.
    static func overlayOptions(_ inForce: SettingsInForce) -> @Sendable () -> OverlayOptions {
        { [inForce] in
            var options = OverlayOptions()
            (options.zebra, options.focusPeaking) = inForce.read { ($0.display.zebra, $0.display.peaking) }
            return options
        }
    }

    /// The overlay's status line, from the frame's metadata and the settings.
    public func viewfinderStatus(_ frame: FrameState) -> ViewfinderStatus {
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
        if let running = captureService.running, running.plan.steps.count > 1 {
            let index = min(running.framesSaved, running.plan.steps.count - 1)
            var ev = 0.0
            switch running.plan.steps[index] {
            case .evBias(let bias), .focus(_, let bias): ev = bias
            case .manual: break
            }
            status.bracket = ViewfinderStatus.BracketProgress(index: index + 1, count: running.plan.steps.count, evOffset: ev)
        }
        if let stabilization {
            let video = stabilization.video.active
            if video != .off || stabilization.lens.enabled {
                let roll = hasIMU ? Self.rollDegrees(motion.orientation) : 0
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
    public static func rollDegrees(_ q: Quaternion) -> Double {
        atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z)) * 180 / .pi
    }
}
