import Camera

/// Video stabilization's preferred and active modes (AVFoundation's semantics: the preferred mode
/// is a wish; the active mode is what the format, frame rate and IMU allow).
///
/// The active mode comes from the format table's own list (`CameraFormat.stabilizationModes`, built
/// by `StabilizationMode.supported`), so the table and the behaviour cannot disagree:
/// - `off` → off.
/// - `standard` / `cinematic` → that mode when the format lists it and the IMU runs, else off (a
///   preferred mode never forces stabilization onto a format without the headroom).
/// - `auto` → cinematic when listed and the frame rate is ≤ 30 fps (its lookahead then costs ≤ 0.5 s
///   and 15 buffered frames), else standard when listed, else off.
/// Loop-confined.
public final class VideoStabilization {
    /// The user's choice (`stabilization.video`).
    public private(set) var preferred: StabilizationMode = .off
    /// The mode in force now.
    public private(set) var active: StabilizationMode = .off
    /// Called with the new active mode whenever it changes.
    private let onActiveChange: (StabilizationMode) -> Void

    private var format: CameraFormat?
    private var framesPerSecond = 30.0
    private var imuHealthy = false

    public init(onActiveChange: @escaping (StabilizationMode) -> Void = { _ in }) { self.onActiveChange = onActiveChange }

    /// The active mode for `preferred` on `format` at `framesPerSecond` with the IMU state given.
    public static func resolve(preferred: StabilizationMode, format: CameraFormat, framesPerSecond: Double,
                               imuHealthy: Bool) -> StabilizationMode {
        guard imuHealthy else { return .off }
        let listed = format.stabilizationModes
        switch preferred {
        case .off: return .off
        case .standard, .cinematic: return listed.contains(preferred) ? preferred : .off
        case .auto:
            if listed.contains(.cinematic) && framesPerSecond <= 30.5 { return .cinematic }
            return listed.contains(.standard) ? .standard : .off
        }
    }

    /// Sets the preferred mode (never fails: an unsupported wish leaves the active mode off).
    public func setPreferred(_ mode: StabilizationMode) { preferred = mode; update() }

    /// The active format or its frame rate changed.
    public func formatChanged(_ format: CameraFormat, framesPerSecond: Double) {
        self.format = format; self.framesPerSecond = framesPerSecond; update()
    }

    /// The IMU's health changed.
    public func imuChanged(healthy: Bool) { imuHealthy = healthy; update() }

    private func update() {
        let now = format.map { Self.resolve(preferred: preferred, format: $0, framesPerSecond: framesPerSecond, imuHealthy: imuHealthy) } ?? .off
        guard now != active else { return }
        active = now
        onActiveChange(now)
    }
}
