import Hardware

/// The requests of a controller's streaming, in one place: whether it streams, which run it is on
/// (each start is a new generation), the cookies handed out, the regular requests in flight with
/// the controls each carried, the explicit (bracket) requests waiting for their completion, and the
/// holds on regular requests. `CameraController` owns one; it never touches the device.
struct StreamingRun {
    /// True between a start and a stop (or a disconnect).
    private(set) var isStreaming = false
    /// Counts starts: a hold, or a bracket, of one run is void in the next.
    private(set) var generation = 0
    private var nextCookie: UInt64 = 1
    /// Regular requests handed to the device and not yet back.
    private(set) var regularInFlight: Set<UInt64> = []
    /// The controls each regular request in flight (or completing now) was queued with.
    private var regularControls: [UInt64: ControlList] = [:]
    /// Explicit requests in flight, with what runs when each completes.
    private var explicitCompletions: [UInt64: (CompletedRequest) -> Void] = [:]
    /// The numbers of the holds on regular requests in force on this run.
    private var holds: Set<Int> = []
    /// The last hold's number (each hold gets the next, so a second release of one is ignored).
    private var lastHold = 0

    /// Cookie of the most recent request handed out (0 before any).
    var lastQueuedCookie: UInt64 { nextCookie - 1 }
    /// True while any hold on regular requests is in force.
    var holdsRegularRequests: Bool { !holds.isEmpty }
    /// True when no request of either kind is in flight.
    var isIdle: Bool { regularInFlight.isEmpty && explicitCompletions.isEmpty }

    /// The next request's cookie.
    mutating func takeCookie() -> UInt64 {
        defer { nextCookie += 1 }
        return nextCookie
    }

    /// Streaming started: a new generation, and holds of the run before lapse.
    mutating func started() {
        isStreaming = true
        generation += 1
        holds = []
    }

    /// Streaming is stopping (before the device is told).
    mutating func stopping() {
        isStreaming = false
    }

    /// Streaming stopped: the requests in flight complete cancelled, and holds lapse (their release
    /// is ignored: another generation).
    mutating func stopped() {
        regularInFlight = []
        regularControls = [:]
        holds = []
    }

    /// The camera went away.
    mutating func disconnected() {
        isStreaming = false
        regularInFlight = []
    }

    /// One more hold on regular requests, on this run.
    mutating func hold() -> RegularRequestHold {
        lastHold += 1
        holds.insert(lastHold)
        return RegularRequestHold(generation: generation, number: lastHold)
    }

    /// Ends `hold`; true when it was the last in force (regular requests flow again). A hold of
    /// another run, or one already released, is ignored.
    mutating func release(_ hold: RegularRequestHold) -> Bool {
        guard hold.generation == generation, holds.remove(hold.number) != nil else { return false }
        return holds.isEmpty
    }

    /// A regular request went to the device with `controls`.
    mutating func regularQueued(_ cookie: UInt64, controls: ControlList) {
        regularControls[cookie] = controls
        regularInFlight.insert(cookie)
    }

    /// A regular request came back (its controls stay readable until `forgetControls`).
    mutating func regularCompleted(_ cookie: UInt64) {
        regularInFlight.remove(cookie)
    }

    /// The controls regular request `cookie` was queued with, while it is in flight or completing.
    func controls(ofRegular cookie: UInt64) -> ControlList? {
        regularControls[cookie]
    }

    /// Regular request `cookie` has been handed on: its controls are no longer asked for.
    mutating func forgetControls(of cookie: UInt64) {
        regularControls[cookie] = nil
    }

    /// An explicit request is being handed to the device; `completion` runs when it comes back.
    mutating func explicitQueued(_ cookie: UInt64, completion: @escaping (CompletedRequest) -> Void) {
        explicitCompletions[cookie] = completion
    }

    /// The device refused explicit request `cookie`: no completion will come.
    mutating func explicitRefused(_ cookie: UInt64) {
        explicitCompletions[cookie] = nil
    }

    /// The completion of explicit request `cookie`, taken (nil: `cookie` is a regular request).
    mutating func takeCompletion(of cookie: UInt64) -> ((CompletedRequest) -> Void)? {
        explicitCompletions.removeValue(forKey: cookie)
    }
}
