import Foundation  // file attributes, reading the file
import Console

/// The broker's user and password, from the file `fleet.credentials` names: the user on the first
/// line, the password on the second. Refused unless the file is mode 0600 (only its owner reads it).
public struct FleetCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    /// Largest credentials file read, bytes.
    static let maximumBytes = 4096

    /// Reads and checks `path`; throws a console error that says what is wrong and how to fix it.
    public static func load(path: String) throws(ConsoleError) -> FleetCredentials {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) }
        catch { throw ConsoleError(.badValue, "fleet.credentials \(path): cannot read it (\(reason(error)))") }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw ConsoleError(.badValue, "fleet.credentials \(path) is not a regular file")
        }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
        guard mode == 0o600 else {
            throw ConsoleError(.badValue, "fleet.credentials \(path) has mode \(String(mode & 0o7777, radix: 8)); it holds a password, so it must be 600 (chmod 600 \(path))")
        }
        guard let size = (attributes[.size] as? NSNumber)?.intValue, size <= maximumBytes else {
            throw ConsoleError(.badValue, "fleet.credentials \(path) is larger than \(maximumBytes) bytes")
        }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) }
        catch { throw ConsoleError(.badValue, "fleet.credentials \(path): cannot read it (\(reason(error)))") }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        guard lines.count >= 2, !lines[0].isEmpty else {
            throw ConsoleError(.badValue, "fleet.credentials \(path): the user must be on line 1 and the password on line 2")
        }
        return FleetCredentials(user: lines[0], password: lines[1])
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
