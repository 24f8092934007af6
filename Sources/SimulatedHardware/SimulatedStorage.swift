import Hardware

/// An in-memory `Storage` with fault injection: a capacity, and chosen writes that fail with
/// ENOSPC or EIO. Like the real one, a failed write leaves the file absent (or its old content).
///
/// Thread-safe, like a file system: the capture store writes from its own queue while a test reads
/// the files from its thread (a lock guards the state; each call is one step under it).
public final class SimulatedStorage: Storage, @unchecked Sendable {
    public let rootDescription: String
    private struct State {
        var capacityBytes: Int64?
        var files: [String: [UInt8]] = [:]
        var directories: Set<String> = []
        var writeCount = 0
        var faults: [Int: HardwareError.Kind] = [:]
        /// Once set, every write from that number on fails with this kind.
        var persistentFault: (from: Int, kind: HardwareError.Kind)?
        var usedBytes: Int64 { files.values.reduce(0) { $0 + Int64($1.count) } }
    }
    private let state: LockedValue<State>

    public init(rootDescription: String = "sim:/captures", capacityBytes: Int64? = nil) {
        self.rootDescription = rootDescription
        state = LockedValue(State(capacityBytes: capacityBytes))
    }

    /// Total bytes the medium holds; nil for unlimited. `freeBytes` = capacity − used.
    public var capacityBytes: Int64? {
        get { state.withLock { $0.capacityBytes } }
        set { state.withLock { $0.capacityBytes = newValue } }
    }
    /// Files by path (a snapshot).
    public var files: [String: [UInt8]] { state.withLock { $0.files } }
    public var directories: Set<String> { state.withLock { $0.directories } }
    /// How many `writeAtomically` calls have been made (failed ones included).
    public var writeCount: Int { state.withLock { $0.writeCount } }

    /// Makes the `n`th `writeAtomically` from now (1 = the next one) fail with `kind`
    /// (`.noSpace` for ENOSPC, `.io` for EIO). With `andAfter`, every later write fails too.
    public func failWrite(_ n: Int, with kind: HardwareError.Kind, andAfter: Bool = false) {
        state.withLock { s in
            if andAfter { s.persistentFault = (s.writeCount + n, kind) } else { s.faults[s.writeCount + n] = kind }
        }
    }

    /// Ends every injected write failure (the medium was replaced or repaired).
    public func clearFaults() {
        state.withLock { s in
            s.faults = [:]
            s.persistentFault = nil
        }
    }

    public var usedBytes: Int64 { state.withLock { $0.usedBytes } }

    public func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try validateStoragePath(path)
        let parent = parentDirectory(of: path)
        let failure = state.withLock { s -> HardwareError? in
            s.writeCount += 1
            guard parent.isEmpty || s.directories.contains(parent) else {
                return HardwareError(.notFound, "\(rootDescription)/\(path): open temp file: No such file or directory", errno: 2)
            }
            let count = s.writeCount
            if let kind = s.faults.removeValue(forKey: count) ?? (s.persistentFault.flatMap { count >= $0.from ? $0.kind : nil }) {
                return injected(kind, path)
            }
            if let capacity = s.capacityBytes, s.usedBytes - Int64(s.files[path]?.count ?? 0) + Int64(bytes.count) > capacity {
                return injected(.noSpace, path)
            }
            s.files[path] = bytes
            return nil
        }
        if let failure { throw failure }
    }

    public func read(_ path: String) throws -> [UInt8] {
        try validateStoragePath(path)
        guard let bytes = state.withLock({ $0.files[path] }) else {
            throw HardwareError(.notFound, "\(rootDescription)/\(path): open: No such file or directory", errno: 2)
        }
        return bytes
    }

    public func fileExists(_ path: String) -> Bool { state.withLock { $0.files[path] != nil || $0.directories.contains(path) } }

    /// Names directly in `directory`; "" lists the root.
    public func list(_ directory: String) throws -> [String] {
        if !directory.isEmpty { try validateStoragePath(directory) }
        let paths = state.withLock { Array($0.files.keys) + Array($0.directories) }
        let names = paths.compactMap { path -> String? in
            parentDirectory(of: path) == directory ? String(path.split(separator: "/").last ?? "") : nil
        }
        return names.sorted()
    }

    public func createDirectory(_ path: String) throws {
        try validateStoragePath(path)
        state.withLock { s in
            var prefix = ""
            for part in path.split(separator: "/") {
                prefix = prefix.isEmpty ? String(part) : prefix + "/" + part
                s.directories.insert(prefix)
            }
        }
    }

    public func remove(_ path: String) throws {
        try validateStoragePath(path)
        let removed = state.withLock { $0.files.removeValue(forKey: path) != nil || $0.directories.remove(path) != nil }
        guard removed else {
            throw HardwareError(.notFound, "\(rootDescription)/\(path): unlink: No such file or directory", errno: 2)
        }
    }

    public func freeBytes() throws -> Int64 {
        state.withLock { s in
            guard let capacity = s.capacityBytes else { return Int64.max / 2 }
            return max(0, capacity - s.usedBytes)
        }
    }

    private func injected(_ kind: HardwareError.Kind, _ path: String) -> HardwareError {
        let (text, code): (String, Int32) = kind == .noSpace ? ("No space left on device", 28) : ("Input/output error", 5)
        return HardwareError(kind, "\(rootDescription)/\(path): write: \(text) (simulated)", errno: code)
    }

    private func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }
}
