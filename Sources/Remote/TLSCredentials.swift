import Console
import Settings

/// The certificate and private key `remote.tls` names, read once when the setting is committed and
/// handed to libmicrohttpd (GnuTLS) as PEM text. A key that others can read is refused: it is the
/// server's identity.
public struct TLSCredentials: Sendable, Equatable {
    /// The PEM certificate, or a chain (server first), NUL-terminated for libmicrohttpd.
    public var certificatePEM: [UInt8]
    /// The PEM private key, NUL-terminated.
    public var keyPEM: [UInt8]

    /// Largest certificate or key file read, bytes (a chain of a few certificates fits).
    static let maximumBytes = 64 << 10

    /// Reads and checks both files; throws a console error that says what is wrong and how to fix it.
    public static func load(certificate: String, key: String, setting: String = SettingsTable.remoteTLS.key) throws(ConsoleError) -> TLSCredentials {
        let cert = try read(certificate, what: "certificate", setting: setting, privateKey: false)
        let privateKey = try read(key, what: "key", setting: setting, privateKey: true)
        guard contains(cert, "-----BEGIN CERTIFICATE-----") else {
            throw ConsoleError(.badValue, "\(setting) \(certificate) is not a PEM certificate (no BEGIN CERTIFICATE line)")
        }
        guard contains(privateKey, "PRIVATE KEY-----") else {
            throw ConsoleError(.badValue, "\(setting) \(key) is not a PEM private key (no BEGIN ... PRIVATE KEY line)")
        }
        return TLSCredentials(certificatePEM: cert + [0], keyPEM: privateKey + [0])
    }

    private static func read(_ path: String, what: String, setting: String, privateKey: Bool) throws(ConsoleError) -> [UInt8] {
        try SettingFile.read(path, what: "\(setting) \(what)", maximumBytes: maximumBytes, refusingMode: { mode in
            privateKey && mode & 0o077 != 0 ? "others can read the server's private key, so it must be 600 or 400" : nil
        })
    }

    private static func contains(_ bytes: [UInt8], _ marker: String) -> Bool {
        let needle = Array(marker.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
