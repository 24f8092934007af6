/// The one owner of the stabilization service: none until the camera starts (the service is made
/// for the camera's sensor and first format), then that one for good (a reconnect or a reopen
/// keeps it: the sensor is the same).
///
/// Made once by the composition (Supervisor's Composition.swift) and given as a `let` to what
/// reads stabilization (video stabilization, the supervisor's settings and status), so none keeps
/// its own copy. Only the camera's start fills it. Loop-confined.
public final class StabilizationSlot {
    public enum State {
        /// No camera has started yet: stabilization needs its sensor and first format.
        case awaitingCamera
        /// Made for the started camera.
        case running(Stabilization)
    }

    public private(set) var state: State = .awaitingCamera

    public init() {}

    /// The service once the camera has started; nil before.
    public var service: Stabilization? {
        if case .running(let service) = state { return service }
        return nil
    }

    /// The service made for the camera that just started.
    public func start(_ service: Stabilization) {
        state = .running(service)
    }
}
