import Foundation

/// Downloads and the list of captures, kept inside the captures directory: a path is relative,
/// has no `.`, `..` or empty part, and is opened one part at a time below the directory with
/// `openat(O_NOFOLLOW)`, so no symlink (in any part) and no rename race leads out of it.
///
/// These calls (openat, fstat) are not on the Syscalls seam, which has no directory-relative open;
/// they are made here directly, in this one file.
public struct CaptureFiles: Sendable {
    public let root: String

    public init(root: String) { self.root = root }

    /// An open regular file below the root and its size; the caller owns the descriptor.
    public struct OpenFile: Sendable {
        public let descriptor: Int32
        public let size: UInt64
    }

    public enum Refusal: Error, Equatable, Sendable {
        /// A path that is absolute, has a `.`/`..`/empty part, a NUL, or is too long.
        case badPath
        /// No such file (or a symlink, a directory, a device: never served).
        case notFound
    }

    /// Opens `relative` (the part of the URL after `/captures/`).
    public func open(_ relative: String) throws(Refusal) -> OpenFile {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !relative.isEmpty, relative.utf8.count <= 1024, !relative.hasPrefix("/"), !relative.utf8.contains(0),
              parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { throw .badPath }
        var directory = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw .notFound }
        for part in parts.dropLast() {
            let next = openat(directory, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(directory)
            guard next >= 0 else { throw .notFound }
            directory = next
        }
        let fd = openat(directory, parts[parts.count - 1], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        close(directory)
        guard fd >= 0 else { throw .notFound }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { close(fd); throw .notFound }
        return OpenFile(descriptor: fd, size: UInt64(info.st_size))
    }

    /// One file of the list.
    public struct Entry: Sendable, Equatable {
        public let path: String
        public let bytes: UInt64
        public let modified: Double
    }

    /// Regular files below the root (at most `depth` folders down, at most `limit` of them),
    /// newest first; symlinks and temporary files (`.tmp`, dot files) are left out.
    public func list(depth: Int = 3, limit: Int = 2000) -> [Entry] {
        var entries: [Entry] = []
        func walk(_ relative: String, _ level: Int) {
            let here = relative.isEmpty ? root : root + "/" + relative
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: here) else { return }
            for name in names.sorted() where !name.hasPrefix(".") && !name.hasSuffix(".tmp") {
                guard entries.count < limit else { return }
                let path = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard lstat(root + "/" + path, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR where level < depth: walk(path, level + 1)
                case S_IFREG:
                    entries.append(Entry(path: path, bytes: UInt64(info.st_size),
                                         modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
                default: continue
                }
            }
        }
        walk("", 0)
        return entries.sorted { ($0.modified, $0.path) > ($1.modified, $1.path) }
    }

    /// The MIME type a download is sent with, from its extension.
    public static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "dng": return "image/x-adobe-dng"
        case "mp4": return "video/mp4"
        case "mkv": return "video/x-matroska"
        case "json": return "application/json"
        case "gcsv", "csv", "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}

/// A `Range: bytes=...` header against a file of `size` bytes (one range; RFC 9110 §14.1.2).
public enum ByteRange: Equatable, Sendable {
    /// No Range header, or one this server ignores (several ranges, another unit): the whole file.
    case whole
    /// Bytes `first...last`.
    case part(first: UInt64, last: UInt64)
    /// A range the file cannot satisfy (416).
    case unsatisfiable

    public init(header: String?, size: UInt64) {
        guard let header else { self = .whole; return }
        let t = header.trimmingCharacters(in: .whitespaces)
        guard t.hasPrefix("bytes="), !t.contains(",") else { self = .whole; return }
        let spec = t.dropFirst(6)
        let halves = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { self = .unsatisfiable; return }
        let from = halves[0].trimmingCharacters(in: .whitespaces), to = halves[1].trimmingCharacters(in: .whitespaces)
        let digits: (String) -> Bool = { !$0.isEmpty && $0.utf8.count <= 19 && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        if from.isEmpty {
            // A suffix: the last N bytes.
            guard digits(to), let n = UInt64(to), n > 0, size > 0 else { self = .unsatisfiable; return }
            self = .part(first: size - min(n, size), last: size - 1)
            return
        }
        guard digits(from), let first = UInt64(from), first < size else { self = .unsatisfiable; return }
        if to.isEmpty { self = .part(first: first, last: size - 1); return }
        guard digits(to), let last = UInt64(to), last >= first else { self = .unsatisfiable; return }
        self = .part(first: first, last: min(last, size - 1))
    }
}
