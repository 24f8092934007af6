/// The `display.*` settings: the viewfinder's overlays.
public struct DisplaySettings: Equatable, Sendable {
    /// `display.zebra`: zebra stripes on clipped highlights.
    public var zebra = false
    /// `display.peaking`: focus peaking on edges.
    public var peaking = false

    public init() {}
}
