import Console
import Settings

/// The RTSP digest user and password from the file `stream.rtsp.credentials` names: the user on
/// line 1, the password on line 2; refused unless the file is mode 0600.
public struct StreamCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    /// Largest credentials file read, bytes.
    static let maximumBytes = 4096

    public init(user: String, password: String) { self.user = user; self.password = password }

    /// Reads and checks `path`; the error says what is wrong and how to fix it.
    public static func load(path: String) throws(ConsoleError) -> StreamCredentials {
        let bytes = try SettingFile.read(path, what: "stream.rtsp.credentials", maximumBytes: maximumBytes, refusingMode: { mode in
            mode == 0o600 ? nil : "it holds a password, so it must be 600"
        })
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        guard lines.count >= 2, !lines[0].isEmpty, !lines[1].isEmpty else {
            throw ConsoleError(.badValue, "stream.rtsp.credentials \(path): the user must be on line 1 and the password on line 2")
        }
        guard !lines[0].contains(":") else {
            throw ConsoleError(.badValue, "stream.rtsp.credentials \(path): the user must not contain ':' (RTSP digest)")
        }
        return StreamCredentials(user: lines[0], password: lines[1])
    }
}
