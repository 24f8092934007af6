import Synchronization

/// A value behind a mutex (`Synchronization.Mutex`), shareable across threads.
public final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public func withLock<R: Sendable>(_ body: (inout Value) throws -> R) rethrows -> R {
        try mutex.withLock { value in try body(&value) }
    }

    /// A copy of the current value.
    public var current: Value { withLock { $0 } }
}
