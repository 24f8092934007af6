import Glibc

/// A thread's share of the CPU beside the rest of its process. Linux keeps the nice value per
/// thread: `setpriority(PRIO_PROCESS, 0, n)` changes the calling thread only, and the threads it
/// starts afterwards inherit it.
public enum ThreadPriority {
    /// The calling thread's nice value (getpriority(PRIO_PROCESS, 0), which cannot fail for the
    /// calling thread).
    public static var callingThreadNice: Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }

    /// Lowers the calling thread's priority to nice value `nice` (setpriority(PRIO_PROCESS, 0,
    /// nice)); never raises it, which would need privilege. Returns whether the thread now runs at
    /// `nice` or lower.
    @discardableResult
    public static func lowerCallingThread(toNice nice: Int32) -> Bool {
        if callingThreadNice >= nice { return true }
        return setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) == 0
    }
}
