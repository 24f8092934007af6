/// The limits a camera pipeline's driver puts on a `SimulatedCamera`, as vimc's and the shim's do:
/// buffers per stream, buffers the application still holds, requests needed to start, processed
/// streams per configuration. The defaults impose none. Set before streaming (except
/// `buffersHeldByApplication`, which a test moves while it runs).
public struct SimulatedPipelineLimits: Sendable, Equatable {
    /// Buffers per stream at most (libcamera's vimc gives 4 whatever is asked). When set, a request
    /// for a stream whose buffers are all in queued or in-progress requests is refused busy, as the
    /// shim's "no free buffer" (buffers an application still holds after completion are not
    /// modelled). nil (the default): what is asked, and no buffer accounting.
    public var maximumBufferCount: Int?
    /// Buffers of the last configuration the application still holds (a viewfinder converting a
    /// frame). While above 0, `configure` is refused busy, as the shim refuses it while buffers are
    /// lent (libcamera cannot reconfigure while the caller holds frame buffers).
    public var buffersHeldByApplication = 0
    /// Requests that must be queued at once before the first frame (videobuf2's
    /// `min_buffers_needed`; vimc's capture node needs 2). Until then the sensor waits.
    public var minimumQueuedToStart = 1
    /// Processed (non-raw) streams one configuration may have, nil for any number. vimc's pipeline
    /// has one: `configure` with more is refused, as libcamera's `generateConfiguration` refuses roles
    /// the pipeline cannot produce together.
    public var processedStreamLimit: Int?

    public init() {}
}
