import CClock  // adjtimex, struct timex

/// Whether this rig's CLOCK_REALTIME is synchronised (by chrony, ntpd or a PTP daemon through the
/// kernel's discipline) and how far off the kernel estimates it to be: a shot's offsets are only as
/// good as this (docs/fleet.md, "Clocks").
public struct ClockSyncState: Sendable, Equatable {
    /// False when the kernel says the clock is not synchronised (STA_UNSYNC, or TIME_ERROR).
    public var synchronised: Bool
    /// The kernel's estimated error (`timex.esterror`), µs.
    public var estimatedErrorMicroseconds: Int
    /// The kernel's maximum error (`timex.maxerror`), µs.
    public var maximumErrorMicroseconds: Int

    public init(synchronised: Bool, estimatedErrorMicroseconds: Int, maximumErrorMicroseconds: Int) {
        self.synchronised = synchronised
        self.estimatedErrorMicroseconds = estimatedErrorMicroseconds
        self.maximumErrorMicroseconds = maximumErrorMicroseconds
    }

    /// `synchronised` or `unsynchronised`, as status and a shot's report say it.
    public var word: String { synchronised ? "synchronised" : "unsynchronised" }
}

/// Reads the clock's sync state; tests inject a value.
public protocol ClockSyncReading: Sendable {
    /// The state now; nil when the call failed (the reason is the errno).
    func read() -> ClockSyncState?
}

/// `adjtimex(2)` with `modes` 0: reads the kernel's clock discipline state, changes nothing
/// (no privilege needed).
public struct KernelClockSync: ClockSyncReading {
    public init() {}

    /// The kernel's STA_UNSYNC status bit (linux/timex.h).
    static let unsynchronisedBit: Int32 = 0x0040
    /// adjtimex's return value TIME_ERROR: the clock is not synchronised (linux/timex.h).
    static let timeError: Int32 = 5

    public func read() -> ClockSyncState? {
        var t = timex()
        t.modes = 0
        let state = adjtimex(&t)
        guard state >= 0 else { return nil }
        return Self.state(returned: state, status: t.status, estimatedError: Int(t.esterror), maximumError: Int(t.maxerror))
    }

    /// The state from adjtimex's return value and `timex` fields.
    static func state(returned: Int32, status: Int32, estimatedError: Int, maximumError: Int) -> ClockSyncState {
        let synchronised = returned != timeError && status & unsynchronisedBit == 0
        return ClockSyncState(synchronised: synchronised, estimatedErrorMicroseconds: estimatedError, maximumErrorMicroseconds: maximumError)
    }
}
