import Console
import Foundation
import Settings

/// The group's read-only collection key (`remote.collect FILE` on each rig, `tripod collect --key
/// FILE` on the collecting machine; docs/collect.md): the file's one line, 32 to 256 printable
/// characters without spaces. Read as every secret file is (`SettingFile.read`): a regular file of
/// at most 1 KiB, refused when others may read it (mode not 0600/0400).
public enum CollectionKey {
    /// Largest key file read, bytes.
    static let maximumBytes = 1024

    /// The key in `path`, or why it cannot be used.
    public static func load(_ path: String) throws(RemoteError) -> String {
        let data: [UInt8]
        do throws(ConsoleError) {
            data = try SettingFile.read(path, what: "collection key", maximumBytes: maximumBytes, refusingMode: { mode in
                mode & 0o077 == 0 ? nil : "others may read it, so it must be 600 or 400"
            })
        } catch {
            throw RemoteError(error.message)
        }
        let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard (32...256).contains(key.utf8.count), key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw RemoteError("collection key: \(path) must hold one line of 32 to 256 printable characters (e.g. openssl rand -hex 32)")
        }
        return key
    }
}
