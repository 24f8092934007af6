import Dispatch
import Hardware

/// Writes persisted state (`save`, presets, the gyro bias) off the loop: each write is a file with
/// two fsyncs, tens of milliseconds on an SD card, which would stall frames and the watchdog.
///
/// The `StateStore` is touched by this serial queue only once the supervisor runs (which makes the
/// `@unchecked Sendable` sound); what was saved is
/// reported back on the loop. Writes run in the order they were asked for, so the last one wins.
public final class StateWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "tripod.state.writer")
    private let store: StateStore
    private let loop: any EventLoop

    public init(store: StateStore, loop: any EventLoop) {
        self.store = store
        self.loop = loop
    }

    /// Encodes and writes `value` as `name` on the writer's queue; `done` runs on the loop with the
    /// error, if any.
    public func save<Value: Encodable & Sendable>(_ value: Value, as name: String,
                                           then done: @escaping @Sendable ((any Error)?) -> Void) {
        let loop = self.loop
        queue.async {
            let failure: (any Error)?
            do { try self.store.save(value, as: name); failure = nil } catch { failure = error }
            loop.execute { done(failure) }
        }
    }

    /// Deletes `name` on the writer's queue, after the writes before it.
    public func reset(_ name: String, then done: @escaping @Sendable ((any Error)?) -> Void) {
        let loop = self.loop
        queue.async {
            let failure: (any Error)?
            do { try self.store.reset(name); failure = nil } catch { failure = error }
            loop.execute { done(failure) }
        }
    }

    /// Blocks until every write asked for so far has run (tests; shutdown).
    public func drain() { queue.sync {} }
}
