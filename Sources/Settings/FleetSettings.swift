import Foundation  // gethostname
import Hardware

/// The `fleet.*` settings: where the fleet's MQTT broker is and who this rig is in its group.
/// Declared in `SettingsTable`; the fleet client (module Fleet) follows them.
public struct FleetSettings: Equatable, Sendable {
    /// `fleet.broker`: nil is `off` (the default): no MQTT at all.
    public var broker: BrokerAddress?
    /// `fleet.ca`: PEM file of the CAs that sign an `mqtts://` broker's certificate; nil: the system's.
    public var certificateAuthorityFile: String?
    /// `fleet.group`: topics are `tripod/<group>/...`.
    public var group = "tripod"
    /// `fleet.rig`: this rig's name in the group; by default the host name.
    public var rig = FleetSettings.hostName()
    /// `fleet.credentials`: a file (mode 0600) with the broker's user on line 1, the password on line 2.
    public var credentialsFile: String?
    /// `fleet.sync`: this camera's part in frame sync (Raspberry Pi's fork; docs/fleet.md). The
    /// camera applies it, at `video.fps`; it does not touch the broker connection.
    public var sync = FrameSyncMode.off

    public init() {}

    /// The settings the broker connection depends on (all but `sync`).
    public var connection: FleetSettings {
        var c = self
        c.sync = .off
        return c
    }

    /// The characters a group or rig name may hold: they become MQTT topic levels, so never `/`, `+` or `#`.
    public static func isNameCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".")
    }

    /// The host name (gethostname), made into a valid rig name; "rig" when there is none.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "rig" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let cleaned = String(name.prefix(64).map { isNameCharacter($0) ? $0 : "-" })
        return cleaned.isEmpty ? "rig" : cleaned
    }
}

/// An MQTT broker's address: `mqtt://HOST:PORT` or `mqtts://HOST:PORT` (TLS).
public struct BrokerAddress: Equatable, Sendable, CustomStringConvertible {
    public enum Scheme: String, Sendable { case mqtt, mqtts }
    public var scheme: Scheme
    public var host: String
    public var port: Int

    public init(scheme: Scheme, host: String, port: Int) {
        self.scheme = scheme; self.host = host; self.port = port
    }

    public var description: String { "\(scheme.rawValue)://\(host):\(port)" }

    /// Parses `mqtt://HOST:PORT` or `mqtts://HOST:PORT`; nil when it is neither.
    public init?(parsing text: String) {
        let parts = text.components(separatedBy: "://")
        guard parts.count == 2, let scheme = Scheme(rawValue: parts[0].lowercased()) else { return nil }
        let rest = parts[1]
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        let host = String(rest[..<colon])
        guard let port = Int(rest[rest.index(after: colon)...]), (1...65535).contains(port),
              !host.isEmpty, host.count <= 253,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
        else { return nil }
        self.init(scheme: scheme, host: host, port: port)
    }
}
