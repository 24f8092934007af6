import Foundation
import Hardware
import Syscalls

/// A file descriptor shared by a client's reader and writer threads, closed (`close(2)`) when both
/// have finished with it, so neither ever touches a descriptor number the other closed (and the
/// kernel may already have reused).
public final class SharedDescriptor: Sendable {
    public let descriptor: Int32
    /// The calls its reader and writer make on it.
    public let syscalls: any SystemCalls
    private let users: LockedValue<Int>
    private let onClosed: (@Sendable () -> Void)?

    /// `users`: how many threads will call `release()` (reader and writer: 2). `onClosed` runs
    /// once, on the last user's thread, after the descriptor is closed.
    public init(_ descriptor: Int32, users: Int, onClosed: (@Sendable () -> Void)? = nil,
         syscalls: any SystemCalls = SystemSyscalls()) {
        self.descriptor = descriptor
        self.syscalls = syscalls
        self.users = LockedValue(users)
        self.onClosed = onClosed
    }

    /// Wakes the other user: `shutdown(2)` on a socket makes a blocked `read` return end of input
    /// and a blocked `write` fail. Harmless (ENOTSOCK) on a TTY.
    public func shutdown() {
        users.withLock { remaining in
            if remaining > 0 { try? syscalls.shutdown(descriptor) }
        }
    }

    /// One more user (a new session's writer on a serial port that stays open).
    public func retain() { users.withLock { $0 += 1 } }

    /// One user is done; the last one closes the descriptor.
    public func release() {
        let closed = users.withLock { remaining -> Bool in
            remaining -= 1
            if remaining == 0 { try? syscalls.close(descriptor) }
            return remaining == 0
        }
        if closed { onClosed?() }
    }
}
