/// Lens-style stabilization during brackets (the seeds' "lens stabilization" semantics on a rig with
/// an IMU and no optical stabilizer).
///
/// Rules: `supported` is read-only and true when the IMU is healthy and the active format allows it;
/// `enabled` can be set only while supported; it is sticky across captures; when `supported` becomes
/// false, `enabled` is forced off and stays off after support returns (the user enables it again).
/// Every change of either value is reported through `onChange` (given at `init`). Loop-confined (not Sendable).
public final class LensStabilization {
    /// A change of one of the two observable values.
    public enum Change: Equatable, Sendable {
        case supported(Bool)
        /// `forced` is true when the change came from losing support, not from the user.
        case enabled(Bool, forced: Bool)
    }

    /// True when the IMU is healthy and the active format allows stabilization.
    public private(set) var supported: Bool
    /// True when stabilization is requested for brackets (sticky across captures).
    public private(set) var enabled = false
    /// Why `supported` is false (for the error message), nil when supported.
    public private(set) var unsupportedReason: String?
    /// Called on every change, in order (support first, then a forced `enabled` change).
    private let onChange: (Change) -> Void

    private var imuHealthy: Bool
    private var formatAllows: Bool
    private var imuReason: String?
    private var formatReason: String?

    /// Starts with the IMU and format states given (enabled off), with no change reported:
    /// `formatReason` says why the format does not allow it, as `formatChanged`'s `reason`.
    public init(imuHealthy: Bool = false, formatAllows: Bool = false, formatReason: String? = nil,
                onChange: @escaping (Change) -> Void = { _ in }) {
        self.imuHealthy = imuHealthy
        self.formatAllows = formatAllows
        self.onChange = onChange
        imuReason = imuHealthy ? nil : "the IMU is not running"
        self.formatReason = formatAllows ? nil : (formatReason ?? "the active format does not allow it")
        supported = imuHealthy && formatAllows
        unsupportedReason = supported ? nil : (imuReason ?? formatReason)
    }

    /// Turns stabilization on or off. Turning it on while unsupported throws `.unsupported`
    /// naming the reason; turning it off always succeeds.
    public func setEnabled(_ on: Bool) throws(StabilizationError) {
        if on && !supported {
            throw StabilizationError(.unsupported, "cannot enable: \(unsupportedReason ?? "not supported")")
        }
        guard on != enabled else { return }
        enabled = on
        onChange(.enabled(on, forced: false))
    }

    /// The IMU's health changed (`reason` says why it is unhealthy).
    public func imuChanged(healthy: Bool, reason: String? = nil) {
        imuHealthy = healthy
        imuReason = healthy ? nil : (reason.map { "the IMU is unavailable (\($0))" } ?? "the IMU is not running")
        recompute()
    }

    /// The active format changed; `allows` says whether it permits stabilization.
    public func formatChanged(allows: Bool, reason: String? = nil) {
        formatAllows = allows
        formatReason = allows ? nil : (reason ?? "the active format does not allow it")
        recompute()
    }

    private func recompute() {
        let now = imuHealthy && formatAllows
        unsupportedReason = now ? nil : (imuReason ?? formatReason)
        guard now != supported else { return }
        supported = now
        onChange(.supported(now))
        if !now && enabled {
            enabled = false
            onChange(.enabled(false, forced: true))
        }
    }
}
