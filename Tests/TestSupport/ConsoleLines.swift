import Foundation
import Hardware

/// A child process's output lines, collected from its reader's thread (a `tripod run` console).
public final class ConsoleLines: Sendable {
    public init() {}

    private let state = LockedValue((partial: "", lines: [String](), ended: false))

    /// The output has ended (the process closed it).
    public func finish() { state.withLock { $0.ended = true } }

    /// Waits up to `seconds` for the end of output; true when it came.
    public func waitForEnd(seconds: Double) -> Bool {
        waitUntil(seconds: seconds) { state.withLock { $0.ended } }
    }

    public func append(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        state.withLock { s in
            let parts = (s.partial + text).split(separator: "\n", omittingEmptySubsequences: false)
            s.partial = String(parts.last ?? "")
            s.lines += parts.dropLast().map(String.init)
        }
    }

    public var count: Int { state.withLock { $0.lines.count } }

    public func since(_ index: Int) -> [String] { state.withLock { Array($0.lines[min(index, $0.lines.count)...]) } }
}
