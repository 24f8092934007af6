import Foundation
import LinuxHardware
import Remote

/// How a shot's files are laid out below DIR (docs/collect.md). Every part of every path is a
/// name `SafeName` accepted, so nothing leaves DIR.
public enum CollectLayout: String, Sendable, CaseIterable {
    /// `DIR/<shot>/<rig>/<file>` and `DIR/<shot>/manifest.json`.
    case rigs
    /// `DIR/images/<rig>/<shot>.<ext>` (JPEGs), `DIR/raw/<rig>/<shot>.dng`, the sidecars in
    /// `DIR/sidecars/<rig>/<shot>.json` and the manifest in `DIR/manifests/<shot>.json`: the same
    /// file name for the same shot in every rig's folder (COLMAP's rig layout).
    case colmap

    /// Where `file` of `rig`'s part of `shot` goes, relative to DIR. `index` is its place among the
    /// part's files of the same extension, `count` how many there are (a bracket's frames are
    /// `<shot>_01.jpg`, `<shot>_02.jpg`, ...).
    public func path(shot: String, rig: String, name: String, index: Int, count: Int, isSidecar: Bool) -> String {
        switch self {
        case .rigs:
            return "\(shot)/\(rig)/\(name)"
        case .colmap:
            let ext = SafeName.fileExtension(name)
            if isSidecar { return "sidecars/\(rig)/\(shot).json" }
            let stem = count > 1 ? shot + "_" + String(format: "%02d", index + 1) : shot
            let folder = ext == "dng" ? "raw" : "images"
            return "\(folder)/\(rig)/\(stem)\(ext.isEmpty ? "" : "." + ext)"
        }
    }

    /// The shot's manifest, relative to DIR.
    public func manifestPath(shot: String) -> String {
        switch self {
        case .rigs: return "\(shot)/manifest.json"
        case .colmap: return "manifests/\(shot).json"
        }
    }

    /// False for a rig whose folder would be the manifest's path (`DIR/<shot>/manifest.json` in
    /// the rigs layout).
    public func canHold(rig: String) -> Bool {
        switch self {
        case .rigs: return rig != "manifest.json"
        case .colmap: return true
        }
    }

    /// The folder `--then` is given: the shot's own for `rigs`, DIR for `colmap` (its images/ is the
    /// reconstruction's input).
    public func shotFolder(shot: String) -> String {
        switch self {
        case .rigs: return shot
        case .colmap: return "."
        }
    }
}

/// The collector's own files in DIR: `.tripod-collect/journal` (the shots done, one id a line, for
/// `--follow` after a restart) and `.tripod-collect/partial/...` (files being fetched, each renamed
/// into place once checked). Hidden, so nothing that reads the layout sees them.
struct CollectState {
    let root: String
    var directory: String { root + "/.tripod-collect" }
    var journal: String { directory + "/journal" }

    func partial(shot: String, rig: String, name: String) -> String { "\(directory)/partial/\(shot)/\(rig)/\(name).part" }

    /// The shots the journal lists as done.
    func doneShots() -> Set<String> {
        guard let data = FileManager.default.contents(atPath: journal), data.count <= 16 << 20 else { return [] }
        return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { SafeName.isValid($0) })
    }

    /// Adds `shot` to the journal (O_APPEND, then fsync).
    func markDone(_ shot: String) throws(CollectError) {
        try makeFolder(directory)
        let fd = open(journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CollectError.storage("cannot open \(journal): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let line = Array((shot + "\n").utf8)
        guard line.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == line.count, fsync(fd) == 0 else {
            throw CollectError.storage("cannot write \(journal): \(String(cString: strerror(errno)))")
        }
    }
}

/// `mkdir -p`.
func makeFolder(_ path: String) throws(CollectError) {
    do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    catch { throw CollectError.storage("cannot make \(path): \(error.localizedDescription)") }
}

/// Writes `bytes` to `path` (relative to `root`) whole or not at all, as the rigs write their
/// captures: `PosixStorage.writeAtomically` (a fresh hidden temporary beside it, every short write
/// and EINTR retried, fsync, rename, fsync of the folder).
func writeAtomically(_ bytes: [UInt8], to path: String, under root: String) throws(CollectError) {
    try makeFolder(((root + "/" + path) as NSString).deletingLastPathComponent)
    do { try PosixStorage(root: root).writeAtomically(bytes, to: path) }
    catch { throw CollectError.storage("cannot write \(root)/\(path): \(error)") }
}
