/// Where captures and state go. Paths are relative to the storage root; nothing can escape it.
public protocol Storage: AnyObject {
    /// The root, for messages ("/var/lib/tripod/captures").
    var rootDescription: String { get }
    /// Writes `bytes` to `path` atomically: temp file, fsync, rename, fsync of the directory.
    /// Afterwards the file is either complete or absent; never partial.
    func writeAtomically(_ bytes: [UInt8], to path: String) throws
    /// Reads a whole file.
    func read(_ path: String) throws -> [UInt8]
    func fileExists(_ path: String) -> Bool
    /// Names in a directory (empty when it does not exist), temp files excluded. `list("")` lists the root.
    func list(_ directory: String) throws -> [String]
    /// Creates a directory and its parents.
    func createDirectory(_ path: String) throws
    func remove(_ path: String) throws
    /// Free bytes available to this process (`statvfs`: f_bavail × f_frsize).
    func freeBytes() throws -> Int64
}

/// Checks a relative storage path: no absolute paths, no "..", no empty or hidden components.
public func validateStoragePath(_ path: String) throws {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard !path.isEmpty, !path.hasPrefix("/"),
          parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.hasPrefix(".") }),
          !path.contains("\0") else {
        throw HardwareError(.invalidArgument, "path \"\(path)\" is outside the storage root or not allowed")
    }
}
