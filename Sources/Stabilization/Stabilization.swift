import Camera
import Hardware
import Motion

/// The stabilization service: lens stabilization for brackets, automatic still stabilization and
/// video stabilization, their settings, their events, and the per-capture frame gates.
///
/// The supervisor makes one when the camera starts (with its first format), feeds it the IMU health
/// and each later format, passes the three `stabilization.*` settings as typed values
/// (`setLensEnabled`, `setStillAutomatic`, `setVideoPreferred`), turns its events (`onEvent`,
/// given at `init`) into console events, and hands
/// `makeGate(kind:)` to the bracket engine for each capture. Loop-confined (the camera's loop, which
/// also feeds `tracker`).
public final class Stabilization {
    /// What consoles are told; every change of an observable value produces exactly one.
    public enum Event: Equatable, Sendable {
        case lensSupported(Bool)
        /// `forced`: turned off because support was lost (whoever stores the setting stores it as off).
        case lensEnabled(Bool, forced: Bool)
        case stillAutomatic(Bool)
        case videoPreferred(StabilizationMode)
        case videoActive(StabilizationMode)
    }

    public let tracker: MotionTracker
    public let sensor: SensorDescription
    public let lens: LensStabilization
    public let video: VideoStabilization
    /// Automatic still stabilization (on by default).
    public private(set) var stillAutomatic = true
    /// Gating/retake numbers for the gates made from now on.
    public var thresholds = StillStabilizationThresholds()
    /// Called on the loop for every change.
    private let onEvent: (Event) -> Void
    /// The IMU's last reported health.
    public private(set) var imuHealth: IMUHealth
    /// The active format, once known.
    public private(set) var format: FormatSelection?
    /// Focal length of the active format's sensor mode in mode pixels; nil when the optics are unknown.
    public private(set) var focalLengthPixels: Double?

    private let loop: any EventLoop

    /// - Parameters:
    ///   - tracker: the supervisor's tracker, fed with the IMU's samples on `loop`.
    ///   - sensor: the camera's database entry (for focal length and pixel pitch).
    ///   - format: the active format to start from, if known: a starting point, reported as no event
    ///     (later ones go through `formatChanged`, which reports what they change).
    ///   - onEvent: called on the loop for every change from here on.
    public init(tracker: MotionTracker, sensor: SensorDescription, loop: any EventLoop,
                imuHealth: IMUHealth = .unavailable(reason: "not started"), format: FormatSelection? = nil,
                onEvent: @escaping (Event) -> Void = { _ in }) {
        self.tracker = tracker; self.sensor = sensor; self.loop = loop; self.imuHealth = imuHealth
        self.onEvent = onEvent
        self.format = format
        focalLengthPixels = format.flatMap { Self.focalLengthPixels($0, sensor: sensor) }
        lens = LensStabilization(imuHealthy: imuHealth == .running, formatAllows: focalLengthPixels != nil,
                                 formatReason: format.map { Self.lensUnsupportedReason($0, sensor: sensor) }) { change in
            switch change {
            case .supported(let s): onEvent(.lensSupported(s))
            case .enabled(let e, let forced): onEvent(.lensEnabled(e, forced: forced))
            }
        }
        video = VideoStabilization { mode in onEvent(.videoActive(mode)) }
        video.imuChanged(healthy: imuHealth == .running)
        // No event: the preferred mode is off until `setVideoPreferred`, so the active one stays off.
        if let format { video.formatChanged(format.format, framesPerSecond: format.fixedFps ?? format.format.maximumFps) }
    }

    /// Feed every `.health` event of the IMU here.
    public func imuHealthChanged(_ health: IMUHealth) {
        imuHealth = health
        if case .unavailable(let reason) = health {
            lens.imuChanged(healthy: false, reason: reason)
        } else {
            lens.imuChanged(healthy: true)
        }
        video.imuChanged(healthy: health == .running)
    }

    /// Feed the active format after every `selectFormat`/`apply` (and once at start).
    public func formatChanged(_ selection: FormatSelection) {
        format = selection
        focalLengthPixels = Self.focalLengthPixels(selection, sensor: sensor)
        lens.formatChanged(allows: focalLengthPixels != nil, reason: Self.lensUnsupportedReason(selection, sensor: sensor))
        video.formatChanged(selection.format, framesPerSecond: selection.fixedFps ?? selection.format.maximumFps)
    }

    /// Focal length of `selection`'s sensor mode in mode pixels; nil when the optics are unknown.
    private static func focalLengthPixels(_ selection: FormatSelection, sensor: SensorDescription) -> Double? {
        let f = selection.format
        let mode = sensor.modes.first { $0.width == f.sensorModeSize.width && $0.height == f.sensorModeSize.height }
        return mode.flatMap { Motion.focalLengthPixels(sensor: sensor, mode: $0) }
    }

    /// Why `selection` does not allow lens stabilization, when it does not.
    private static func lensUnsupportedReason(_ selection: FormatSelection, sensor: SensorDescription) -> String {
        "format \(selection.format.label): the sensor database lacks the lens focal length or pixel pitch of \(sensor.model)"
    }

    /// `stabilization.lens`: lens stabilization for brackets. Throws `.unsupported` for on while
    /// unsupported (the message says why); off is always accepted. An event only when it changes.
    public func setLensEnabled(_ on: Bool) throws(StabilizationError) { try lens.setEnabled(on) }

    /// `stabilization.still`: automatic still stabilization of single captures. An event only when it changes.
    public func setStillAutomatic(_ on: Bool) {
        guard on != stillAutomatic else { return }
        stillAutomatic = on
        onEvent(.stillAutomatic(on))
    }

    /// `stabilization.video`: the preferred video mode (never fails: an unsupported wish leaves the
    /// active mode off). Events for the preference, then for the active mode when it changes.
    public func setVideoPreferred(_ mode: StabilizationMode) {
        guard mode != video.preferred else { return }
        onEvent(.videoPreferred(mode))
        video.setPreferred(mode)
    }

    /// A fresh gate for one capture: brackets are gated when lens stabilization is enabled, single
    /// captures when automatic still stabilization is on (and the exposure is ≥ 1/30 s).
    public func makeGate(kind: StillCaptureKind) -> StillStabilizationGate {
        let requested = kind == .bracket ? lens.enabled : stillAutomatic
        return StillStabilizationGate(kind: kind, requested: requested, tracker: tracker, focalLengthPixels: focalLengthPixels,
                                      thresholds: thresholds, loop: loop, imuHealthy: { [weak self] in self?.imuHealth == .running })
    }

    /// A crop planner for the active video mode over the active format's sensor crop (pixel-array
    /// pixels, so its crops map straight to ScalerCrop); nil when the active mode is off or optics are
    /// unknown.
    public func makeCropPlanner() throws(StabilizationError) -> EISCropPlanner? {
        guard video.active != .off, let f = format?.format, let lensMm = sensor.lens?.focalLengthMillimetres,
              let pitch = sensor.pixelSizeMicrometres, pitch > 0 else { return nil }
        return try EISCropPlanner(mode: video.active, field: f.sensorCrop.size, focalLengthPixels: lensMm * 1000 / pitch)
    }

    /// A rotation path planner for the active video mode; nil when the active mode is off.
    public func makePathPlanner() throws(StabilizationError) -> RotationPathPlanner? {
        guard video.active != .off else { return nil }
        return try RotationPathPlanner(mode: video.active)
    }

    /// The rotation warp's geometry for frames of `frameSize` showing the active format's sensor
    /// crop (margin 0: the planner sets its own): the focal length in frame pixels, and the line
    /// time of the sensor mode's readout (`readoutMilliseconds`, else one frame at its top rate)
    /// spread over the mode's rows, scaled to the frame's rows. Nil before a format or without the
    /// lens focal length and pixel pitch.
    public func warpGeometry(frameSize: PixelSize) -> WarpGeometry? {
        guard let f = format?.format, let lensMm = sensor.lens?.focalLengthMillimetres, let pitch = sensor.pixelSizeMicrometres,
              pitch > 0, frameSize.width > 0, frameSize.height > 0, f.sensorCrop.width > 0, f.sensorCrop.height > 0 else { return nil }
        let mode = sensor.modes.first { $0.width == f.sensorModeSize.width && $0.height == f.sensorModeSize.height }
        let readoutMilliseconds = mode.flatMap { $0.readoutMilliseconds ?? 1e3 / max($0.maximumFps, 1) } ?? 1e3 / max(f.maximumFps, 1)
        let modeRows = Double(mode?.crop.height ?? f.sensorCrop.height)
        // Pixel-array rows per frame row, and the readout's time per pixel-array row.
        let rowsPerFrameRow = Double(f.sensorCrop.height) / Double(frameSize.height)
        let line = readoutMilliseconds * 1e6 / max(modeRows, 1) * rowsPerFrameRow
        let focal = lensMm * 1000 / pitch * Double(frameSize.width) / Double(f.sensorCrop.width)
        return WarpGeometry(size: frameSize, focalLengthPixels: focal, margin: 0, lineNanoseconds: line)
    }

    /// The ScalerCrop rectangle (pixel-array pixels) for a crop planned by `makeCropPlanner()` on the
    /// active format: send it as `ControlName.scalerCrop` with the frame's request. Nil before a format.
    public func scalerCrop(for crop: EISCrop) -> PixelRect? {
        guard let sensorCrop = format?.format.sensorCrop else { return nil }
        return EISCropPlanner.scalerCrop(crop, sensorCrop: sensorCrop, field: sensorCrop.size)
    }
}
