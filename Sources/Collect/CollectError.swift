import Foundation

/// What can stop `tripod collect`; the command line turns each into words (`description`).
public enum CollectError: Error, Sendable, CustomStringConvertible {
    /// A libcurl call failed: the call and curl_easy_strerror's words.
    case curl(call: String, message: String)
    /// The broker could not be used (libmosquitto's words).
    case broker(String)
    /// A file given on the command line (key, credentials, CA) cannot be used.
    case credential(String)
    /// No report of the shot asked for came from the broker, and no rig had a part of it.
    case noShot(String)
    /// DIR, or a file below it, cannot be written.
    case storage(String)
    /// `--then`'s command could not be started.
    case then(String)

    public var description: String {
        switch self {
        case .curl(let call, let message): return "libcurl: \(call): \(message)"
        case .broker(let message): return "broker: \(message)"
        case .credential(let message): return message
        case .noShot(let message): return message
        case .storage(let message): return "storage: \(message)"
        case .then(let message): return "--then: \(message)"
        }
    }
}

/// Names that come from the network and become part of a path below DIR (a rig, a shot, a file)
/// or of a URL: checked before use, so none can leave DIR or change the URL's meaning.
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

    /// A lower-case hex SHA-256 (64 digits).
    public static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
