import Foundation

/// Names that come from the network and become part of a path (a rig, a shot, a file) or of a
/// URL: checked before use, so none can leave the folder it is below or change the URL's meaning.
/// The rig's remote checks a shot id it is asked for (`GET /api/shots/<id>`) and the collector
/// every name it hears (`tripod collect`, below its DIR) by these same rules.
public enum SafeName {
    /// 1 to 128 letters, digits, `-`, `_`, `.`; not `.`-first (so never `.`, `..`, or hidden).
    public static func isValid(_ name: String, maximumLength: Int = 128) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maximumLength, !name.hasPrefix(".") else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }

    /// A rig's relative captures path (`2026-05-01/TRP_000042_01.dng`): 1 to 4 valid parts.
    public static func isValidCapturePath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return (1...4).contains(parts.count) && path.utf8.count <= 512 && parts.allSatisfy { isValid(String($0)) }
    }

    /// The lower-case extension of a valid file name (`dng`, `jpg`), or "" when it has none.
    public static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The instant in a shot id (`<rig>-<13 digits>[-n]`, as `fleet shot` makes them), ms since
    /// 1970; nil when it names none.
    public static func shotInstantMilliseconds(_ id: String) -> Int64? {
        for part in id.split(separator: "-").reversed() where part.count == 13 && part.allSatisfy(\.isNumber) {
            return Int64(part)
        }
        return nil
    }

    /// A lower-case hex SHA-256 (64 digits).
    public static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
