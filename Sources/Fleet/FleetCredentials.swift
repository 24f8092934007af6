import Console
import Settings

/// The broker's user and password, from the file `fleet.credentials` names: the user on the first
/// line, the password on the second. Refused unless the file is mode 0600 (only its owner reads it).
public struct FleetCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    /// Largest credentials file read, bytes.
    static let maximumBytes = 4096

    /// Reads and checks `path`; throws a console error that says what is wrong and how to fix it.
    public static func load(path: String) throws(ConsoleError) -> FleetCredentials {
        let bytes = try SettingFile.read(path, what: "fleet.credentials", maximumBytes: maximumBytes, refusingMode: { mode in
            mode == 0o600 ? nil : "it holds a password, so it must be 600"
        })
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        guard lines.count >= 2, !lines[0].isEmpty else {
            throw ConsoleError(.badValue, "fleet.credentials \(path): the user must be on line 1 and the password on line 2")
        }
        return FleetCredentials(user: lines[0], password: lines[1])
    }
}
