import Camera

/// The `stabilization.*` settings (module Stabilization applies them).
public struct StabilizationSettings: Equatable, Sendable {
    /// `stabilization.lens`: lens stabilization of brackets.
    public var lens = false
    /// `stabilization.still`: automatic still stabilization of single captures.
    public var stillAutomatic = true
    /// `stabilization.video`: the preferred video stabilization mode (the active one is the service's).
    public var videoPreferred = StabilizationMode.off

    public init() {}
}
