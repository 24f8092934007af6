/// The one owner of the camera: the controller while one is attached, or why there is none.
///
/// Made once by the composition (Supervisor's Composition.swift) and given to every service that
/// uses the camera as a `let`, so none keeps its own copy: they all see the controller the owner
/// attached, and none once it is released. Only the composition attaches and releases; the
/// services read. Loop-confined.
public final class CameraSlot {
    /// Why no camera is attached.
    public enum Absence: Equatable, Sendable {
        /// None opened yet (before start).
        case notOpened
        /// Let go of on purpose, for a reason the log can name (the sensor-HDR switch needs the
        /// device released).
        case released(reason: String)
    }

    public enum State {
        case absent(Absence)
        case attached(CameraController)
    }

    public private(set) var state: State

    public init(_ state: State = .absent(.notOpened)) {
        self.state = state
    }

    /// The attached controller; nil while absent.
    public var controller: CameraController? {
        if case .attached(let controller) = state { return controller }
        return nil
    }

    /// Attaches `controller`; a replaced one is closed (lets go of its device).
    public func attach(_ controller: CameraController) {
        if let old = self.controller, old !== controller { old.close() }
        state = .attached(controller)
    }

    /// Closes the attached controller, if any, and holds none until the next `attach`.
    public func release(reason: String) {
        controller?.close()
        state = .absent(.released(reason: reason))
    }
}
