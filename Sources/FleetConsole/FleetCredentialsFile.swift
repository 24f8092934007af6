import Console
import Fleet
import Settings

/// The credentials file `fleet.credentials` names, read and checked: refused unless it is mode
/// 0600 (only its owner reads it).
extension FleetCredentials {
    /// Largest credentials file read, bytes.
    static let maximumBytes = 4096

    /// Reads and checks `path`; the error says what is wrong and how to fix it.
    public static func load(path: String) throws(ConsoleError) -> FleetCredentials {
        let bytes = try SettingFile.read(path, what: SettingsTable.fleetCredentials.key, maximumBytes: maximumBytes, refusingMode: { mode in
            mode == 0o600 ? nil : "it holds a password, so it must be 600"
        })
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        guard lines.count >= 2, !lines[0].isEmpty else {
            throw ConsoleError(.badValue, "\(SettingsTable.fleetCredentials.key) \(path): the user must be on line 1 and the password on line 2")
        }
        return FleetCredentials(user: lines[0], password: lines[1])
    }
}
