import Hardware

/// The requests a `SimulatedCamera` holds: queued and waiting for a frame, and taken for a frame
/// whose completion is scheduled on the loop.
struct SimulatedRequestQueue {
    /// Queued and not yet taken for a frame, oldest first.
    private(set) var waiting: [CaptureRequest] = []
    /// Taken for a frame, with the loop's work that completes each.
    private var inProgress: [(work: ScheduledWork, request: CaptureRequest)] = []

    mutating func append(_ request: CaptureRequest) { waiting.append(request) }

    /// The oldest waiting request, taken for a frame; nil when none waits.
    mutating func takeNext() -> CaptureRequest? { waiting.isEmpty ? nil : waiting.removeFirst() }

    /// Requests waiting or in progress that use `role`'s buffers.
    func inUse(_ role: StreamRole) -> Int {
        (waiting + inProgress.map(\.request)).filter { $0.roles.contains(role) }.count
    }

    /// `request` was taken for a frame that `work` completes.
    mutating func started(_ request: CaptureRequest, completedBy work: ScheduledWork) { inProgress.append((work, request)) }

    /// The request `cookie` completed.
    mutating func finished(cookie: UInt64) { inProgress.removeAll { $0.request.cookie == cookie } }

    /// Cancels every scheduled completion and empties the queue; returns the requests held, those
    /// in progress first.
    mutating func cancelAll() -> [CaptureRequest] {
        let held = inProgress.map(\.request) + waiting
        for item in inProgress { item.work.cancel() }
        inProgress = []
        waiting = []
        return held
    }
}
