import Console
import Foundation  // file attributes, reading the file

/// A small file a setting names (a broker's password, a TLS certificate or key), read whole once
/// it is checked: a regular file, no larger than `maximumBytes`, and for a secret a mode that
/// `refusingMode` accepts. Errors name the setting and say how to fix it.
public enum SettingFile {
    /// `what`: the words for the file in errors ("fleet.credentials", "remote.tls key");
    /// `refusingMode`: the reason a permission mode is refused, or nil when it is accepted.
    public static func read(_ path: String, what: String, maximumBytes: Int,
                            refusingMode: (Int) -> String? = { _ in nil }) throws(ConsoleError) -> [UInt8] {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) }
        catch { throw ConsoleError(.badValue, "\(what) \(path): cannot read it (\(reason(error)))") }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw ConsoleError(.badValue, "\(what) \(path) is not a regular file")
        }
        let mode = ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777) & 0o7777
        if let refusal = refusingMode(mode) {
            throw ConsoleError(.badValue, "\(what) \(path) has mode \(String(mode, radix: 8)); \(refusal) (chmod 600 \(path))")
        }
        guard let size = (attributes[.size] as? NSNumber)?.intValue, size <= maximumBytes else {
            throw ConsoleError(.badValue, "\(what) \(path) is larger than \(maximumBytes) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConsoleError(.badValue, "\(what) \(path): cannot read it")
        }
        return [UInt8](data)
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
