import Foundation

/// The group's read-only collection key (`remote.collect FILE` on each rig, `tripod collect --key
/// FILE` on the collecting machine; docs/collect.md): the file's one line, 32 to 256 printable
/// characters without spaces. A file that others may read (mode not 0600/0400) is refused.
public enum CollectionKey {
    /// The key in `path`, or why it cannot be used.
    public static func load(_ path: String) throws(RemoteError) -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue else {
            throw RemoteError("collection key: cannot read \(path)")
        }
        guard mode & 0o077 == 0 else { throw RemoteError("collection key: \(path) may be read by others (chmod 600 it)") }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1024 else {
            throw RemoteError("collection key: cannot read \(path) (or over 1 KiB)")
        }
        let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard (32...256).contains(key.utf8.count), key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw RemoteError("collection key: \(path) must hold one line of 32 to 256 printable characters (e.g. openssl rand -hex 32)")
        }
        return key
    }
}
