import Glibc
import Hardware

/// A mutex with two condition variables whose timed waits run on CLOCK_MONOTONIC
/// (`pthread_condattr_setclock`), so a wall-clock step (NTP on a board without an RTC) neither
/// stretches nor cuts them short. `NSCondition.wait(until: Date)` waits on CLOCK_REALTIME.
final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Signalled when there is work (the loop waits on it).
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Signalled when the queue has room (producers wait on it).
    private let room = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// The clock the timed waits use, as the attributes report it (`pthread_condattr_getclock`).
    let clock: clockid_t

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        var chosen = clockid_t()
        pthread_condattr_getclock(&attributes, &chosen)
        clock = chosen
        pthread_cond_init(work, &attributes)
        pthread_cond_init(room, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(work); pthread_cond_destroy(room); pthread_mutex_destroy(mutex)
        work.deallocate(); room.deallocate(); mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func signalWork() { pthread_cond_signal(work) }
    func broadcastRoom() { pthread_cond_broadcast(room) }

    /// Waits (lock held) for `signalWork` or until `deadline` on CLOCK_MONOTONIC (`pthread_cond_timedwait`).
    func waitForWork(until deadline: MonotonicTime) {
        let nanoseconds = max(deadline.nanoseconds, 0)
        var ts = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        _ = pthread_cond_timedwait(work, mutex, &ts)
    }

    /// Waits (lock held) for `broadcastRoom` or until `deadline` (so a stopped loop never keeps a producer).
    func waitForRoom(until deadline: MonotonicTime) {
        let nanoseconds = max(deadline.nanoseconds, 0)
        var ts = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        _ = pthread_cond_timedwait(room, mutex, &ts)
    }
}
