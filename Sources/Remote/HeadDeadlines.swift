import Dispatch
import Foundation
import Hardware
import Synchronization
import Syscalls

/// The request head's deadline (slowloris): a connection whose request line, headers and body
/// (at most `HTTPLimits.bodyBytes`) have not all arrived `deadline` after it was accepted (or after
/// its previous request ended, on a kept-alive connection) is cut, however many bytes trickle in. libmicrohttpd's own timeout is an idle
/// timeout that every byte resets.
///
/// HTTPDaemon reports each connection's start and close (MHD_OPTION_NOTIFY_CONNECTION), the
/// access-handler call that answers a request (its head and body are complete) and each request's end. A reaper thread
/// calls shutdown(fd, SHUT_RDWR) through the Syscalls seam, never close: libmicrohttpd sees the end of the stream on its own
/// thread and closes the connection as it would any other. The table is the one owner of the
/// sockets it names: an entry leaves it at MHD_CONNECTION_NOTIFY_CLOSED, which libmicrohttpd sends
/// before it closes the socket, and the reaper shuts down only under the table's lock, so it
/// never reaches a descriptor number the system has handed to someone else.
final class HeadDeadlines: Sendable {
    struct Connection {
        let socket: Int32
        /// When the request now awaited began (accept, or the previous request's end); nil while a
        /// request is being served (it is all in; a stream may last for hours).
        var headSince: ContinuousClock.Instant?
    }

    let deadline: Duration
    /// How often the reaper looks: a tenth of the deadline, 50–500 ms.
    let period: Duration
    private let connections = Mutex<[UInt: Connection]>([:])
    private let cut = Atomic<Int>(0)
    private let stopped = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)
    private let syscalls: any DescriptorSyscalls

    init(deadline: Duration, syscalls: any DescriptorSyscalls = SystemSyscalls()) {
        self.deadline = deadline
        self.period = min(.milliseconds(500), max(.milliseconds(50), deadline / 10))
        self.syscalls = syscalls
    }

    /// Connections cut by the deadline so far.
    var cutCount: Int { cut.load(ordering: .relaxed) }

    /// Starts the reaper thread.
    func start() {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let thread = Thread { [self] in
            while stopped.wait(timeout: .now() + .nanoseconds(Int(period.nanoseconds))) == .timedOut { reap(now: .now) }
        }
        thread.name = "remote-head-deadline"
        thread.start()
    }

    /// Ends the reaper thread (it returns within one period).
    func stop() {
        guard running.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged else { return }
        stopped.signal()
    }

    // From libmicrohttpd's threads (HTTPDaemon's callbacks); `key` is the MHD_Connection's address.

    func opened(_ key: UInt, socket: Int32) {
        guard socket >= 0 else { return }
        connections.withLock { $0[key] = Connection(socket: socket, headSince: .now) }
    }

    func requestArrived(_ key: UInt) { connections.withLock { $0[key]?.headSince = nil } }

    func requestEnded(_ key: UInt) { connections.withLock { $0[key]?.headSince = .now } }

    func closed(_ key: UInt) { _ = connections.withLock { $0.removeValue(forKey: key) } }

    /// Shuts down (shutdown(2), SHUT_RDWR) every connection whose head is past the deadline at `now`.
    func reap(now: ContinuousClock.Instant) {
        let deadline = self.deadline, syscalls = self.syscalls
        let count = connections.withLock { table -> Int in
            var count = 0
            for (key, connection) in table {
                guard let since = connection.headSince, now - since >= deadline else { continue }
                // A failure (the peer already gone: ENOTCONN) leaves the close to libmicrohttpd all the same.
                try? syscalls.shutdown(connection.socket)
                // Cut once: libmicrohttpd closes it soon and reports the close.
                table[key]?.headSince = nil
                count += 1
            }
            return count
        }
        if count > 0 { cut.add(count, ordering: .relaxed) }
    }
}

