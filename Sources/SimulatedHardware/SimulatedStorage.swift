import Hardware

/// An in-memory `Storage` with fault injection: a capacity, and chosen writes that fail with
/// ENOSPC or EIO. Like the real one, a failed write leaves the file absent (or its old content).
///
/// Not thread-safe: use it from one loop, like the supervisor's store.
public final class SimulatedStorage: Storage {
    public let rootDescription: String
    /// Total bytes the medium holds; nil for unlimited. `freeBytes` = capacity − used.
    public var capacityBytes: Int64?
    /// Files by path.
    public private(set) var files: [String: [UInt8]] = [:]
    public private(set) var directories: Set<String> = []
    /// How many `writeAtomically` calls have been made (failed ones included).
    public private(set) var writeCount = 0
    private var faults: [Int: HardwareError.Kind] = [:]
    /// Once set, every write from that number on fails with this kind.
    private var persistentFault: (from: Int, kind: HardwareError.Kind)?

    public init(rootDescription: String = "sim:/captures", capacityBytes: Int64? = nil) {
        self.rootDescription = rootDescription; self.capacityBytes = capacityBytes
    }

    /// Makes the `n`th `writeAtomically` from now (1 = the next one) fail with `kind`
    /// (`.noSpace` for ENOSPC, `.io` for EIO). With `andAfter`, every later write fails too.
    public func failWrite(_ n: Int, with kind: HardwareError.Kind, andAfter: Bool = false) {
        if andAfter { persistentFault = (writeCount + n, kind) } else { faults[writeCount + n] = kind }
    }

    /// Ends every injected write failure (the medium was replaced or repaired).
    public func clearFaults() {
        faults = [:]
        persistentFault = nil
    }

    public var usedBytes: Int64 { files.values.reduce(0) { $0 + Int64($1.count) } }

    public func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try validateStoragePath(path)
        writeCount += 1
        let parent = parentDirectory(of: path)
        guard parent.isEmpty || directories.contains(parent) else {
            throw HardwareError(.notFound, "\(rootDescription)/\(path): open temp file: No such file or directory", errno: 2)
        }
        if let kind = faults.removeValue(forKey: writeCount) ?? (persistentFault.flatMap { writeCount >= $0.from ? $0.kind : nil }) {
            throw injected(kind, path)
        }
        if let capacityBytes, usedBytes - Int64(files[path]?.count ?? 0) + Int64(bytes.count) > capacityBytes {
            throw injected(.noSpace, path)
        }
        files[path] = bytes
    }

    public func read(_ path: String) throws -> [UInt8] {
        try validateStoragePath(path)
        guard let bytes = files[path] else {
            throw HardwareError(.notFound, "\(rootDescription)/\(path): open: No such file or directory", errno: 2)
        }
        return bytes
    }

    public func fileExists(_ path: String) -> Bool { files[path] != nil || directories.contains(path) }

    /// Names directly in `directory`; "" lists the root.
    public func list(_ directory: String) throws -> [String] {
        if !directory.isEmpty { try validateStoragePath(directory) }
        let names = (Array(files.keys) + Array(directories)).compactMap { path -> String? in
            parentDirectory(of: path) == directory ? String(path.split(separator: "/").last ?? "") : nil
        }
        return names.sorted()
    }

    public func createDirectory(_ path: String) throws {
        try validateStoragePath(path)
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix = prefix.isEmpty ? String(part) : prefix + "/" + part
            directories.insert(prefix)
        }
    }

    public func remove(_ path: String) throws {
        try validateStoragePath(path)
        guard files.removeValue(forKey: path) != nil || directories.remove(path) != nil else {
            throw HardwareError(.notFound, "\(rootDescription)/\(path): unlink: No such file or directory", errno: 2)
        }
    }

    public func freeBytes() throws -> Int64 {
        guard let capacityBytes else { return Int64.max / 2 }
        return max(0, capacityBytes - usedBytes)
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
