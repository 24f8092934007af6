import Hardware

/// What a `BracketEngine` asks of the camera: what it is and can do, the settings and format in
/// force, the latest frames, and its own requests beside the regular ones (queue, hold the
/// regular ones, take regular frames through the pipeline's bracket stage). `CameraController`
/// is the one camera; the engine never attaches, configures or starts it.
///
/// Loop-confined, like the controller and the engine.
public protocol BracketCamera: AnyObject {
    // MARK: The camera

    /// The sensor's database entry (model, delays, ISO per gain, lens resolution).
    var sensor: SensorDescription { get }
    /// "none" when the camera has no lens control (fixed focus); "contrast", "phase" or "unknown".
    var afSystem: String { get }
    /// True when the camera has ExposureTime and AnalogueGain controls (frames report both).
    var controlsExposure: Bool { get }
    /// The controls the camera lists and their limits (`CameraDevice.controlInfo`).
    var controlInfo: [String: ControlInfo] { get }
    /// Lens range, dioptres: 0 (infinity) … nearest focus.
    var lensPositionRangeDioptres: ClosedRange<Double> { get }
    /// The controls that hand exposure and gain to a request's own ExposureTime/AnalogueGain
    /// (AeEnable false, and each exposure mode control the camera lists set to manual).
    var manualExposureControls: ControlList { get }

    // MARK: Settings and format in force

    /// Current exposure mode.
    var exposureMode: ExposureMode { get }
    /// What `.locked` exposure holds: the duration (µs) and gain of the frame it was locked on;
    /// nil in the other modes.
    var lockedExposure: (durationMicroseconds: Int, gain: Double)? { get }
    /// The gains white balance holds (locked modes); nil while AWB runs.
    var lockedGains: WhiteBalanceGains? { get }
    /// The active format and its frame duration limits.
    var activeFormat: FormatSelection { get }
    /// The frame durations requests carry, µs: a recording's fixed rate, else the format's range.
    var frameDurationRangeMicroseconds: (minimum: Int64, maximum: Int64) { get }
    /// The time between the last two frames delivered, µs; nil before two frames.
    var observedFrameIntervalMicroseconds: Int64? { get }

    // MARK: Frames

    /// The latest completed frame's state (a bracket's frames too).
    var latest: FrameState? { get }
    /// The latest regular frame's state, never a bracket step's.
    var latestRegular: FrameState? { get }

    // MARK: Requests

    /// The loop the camera and its engines are confined to.
    var loop: any EventLoop { get }
    /// True while streaming.
    var isStreaming: Bool { get }
    /// Counts starts of streaming: a bracket resolved on one must not go on in the next.
    var streamingGeneration: Int { get }
    /// Controls on regular requests only (video stabilization's ScalerCrop).
    var streamingControls: ControlList { get }
    /// Requests the camera keeps in flight while streaming.
    var requestsInFlight: Int { get }
    /// Regular requests kept queued while none is held.
    var regularRequestLimit: Int { get }
    /// The stream a capture's processed image comes in.
    var processedRole: StreamRole { get }
    /// The streams a capture's request fills unless told otherwise (processed, and raw if any).
    var captureRoles: [StreamRole] { get }
    /// True when regular request `cookie` carried the controls in force now.
    func regularRequestHadCurrentControls(_ cookie: UInt64) -> Bool
    /// Stops replacing regular requests until the hold is released (holds add up).
    func holdRegularRequests() -> RegularRequestHold
    /// Ends a hold taken with `holdRegularRequests`.
    func releaseRegularRequests(_ hold: RegularRequestHold)
    /// Queues one request with the current settings overridden by `controls`, filling `roles`
    /// (nil: `captureRoles`); `completion` runs on the loop. Returns the request's cookie.
    func queueRequest(controls: ControlList, roles: [StreamRole]?, completion: @escaping (CompletedRequest) -> Void) throws -> UInt64
    /// Hands the regular frames to the engine in `state` (the pipeline's bracket stage).
    func engageBracketStage(_ state: BracketStage.State)
    /// Takes the regular frames back from `engine`, if it is the one engaged.
    func releaseBracketStage(_ engine: BracketEngine)
}

extension CameraController: BracketCamera {
    public var controlInfo: [String: ControlInfo] {
        device.controlInfo
    }

    public var manualExposureControls: ControlList {
        Self.exposureSource(manual: true, modes: exposureModeControls)
    }

    public var lockedExposure: (durationMicroseconds: Int, gain: Double)? {
        settings.lockedExposure.map { ($0.durationMicroseconds, $0.gain) }
    }

    public var lockedGains: WhiteBalanceGains? {
        settings.lockedGains
    }

    public func engageBracketStage(_ state: BracketStage.State) {
        pipeline.bracket.engage(state)
    }

    public func releaseBracketStage(_ engine: BracketEngine) {
        pipeline.bracket.release(engine)
    }
}
