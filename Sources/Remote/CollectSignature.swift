import Foundation
import Media
import Settings

/// How a collector shows the group's collection key without sending it (docs/security.md, "The
/// collection key"): each request to a rig carries
///
///     Authorization: TripodCollect rig="R", nonce="<32 hex>", mac="<64 hex>"
///
/// where `mac` is HMAC-SHA256 under the key of `canonical(method:path:rig:nonce:)`. R is the rig
/// the collector means; a rig accepts only its own name, and each nonce once. So a host that
/// advertises itself as a rig receives requests signed for that name alone, never the key.
public struct CollectSignature: Sendable, Equatable {
    /// The `Authorization` scheme.
    public static let scheme = "TripodCollect"
    /// Hex digits of a nonce (16 random bytes).
    public static let nonceDigits = 32

    /// The rig the request is meant for (its `fleet.rig`).
    public var rig: String
    /// 32 lower-case hex digits, new for each request.
    public var nonce: String
    /// 64 lower-case hex digits: the HMAC-SHA256 of the canonical text.
    public var mac: String

    public init(rig: String, nonce: String, mac: String) {
        self.rig = rig; self.nonce = nonce; self.mac = mac
    }

    /// The text that is signed: "tripod-collect\n" METHOD "\n" PATH "\n" RIG "\n" NONCE, the path
    /// as the rig's server sees it (unescaped, without the query).
    public static func canonical(method: String, path: String, rig: String, nonce: String) -> String {
        "tripod-collect\n" + method + "\n" + path + "\n" + rig + "\n" + nonce
    }

    /// The hex HMAC-SHA256 under `key` (the key file's line, as UTF-8) of the canonical text.
    public static func mac(key: [UInt8], method: String, path: String, rig: String, nonce: String) throws(MediaError) -> String {
        try HMACSHA256.hexCode(key: key, message: Array(canonical(method: method, path: path, rig: rig, nonce: nonce).utf8))
    }

    /// A signature of `method` `path` for `rig`, with a new random nonce (getrandom, through
    /// `SystemRandomNumberGenerator`).
    public static func sign(key: String, method: String, path: String, rig: String) throws(MediaError) -> CollectSignature {
        var generator = SystemRandomNumberGenerator()
        let nonce = hexString((0..<nonceDigits / 2).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return CollectSignature(rig: rig, nonce: nonce, mac: try mac(key: Array(key.utf8), method: method, path: path, rig: rig, nonce: nonce))
    }

    /// The `Authorization` header's value.
    public var header: String { "\(Self.scheme) rig=\"\(rig)\", nonce=\"\(nonce)\", mac=\"\(mac)\"" }

    /// True when an `Authorization` value uses this scheme (any case), well formed or not.
    public static func isSignature(_ header: String) -> Bool {
        header.split(separator: " ", maxSplits: 1).first.map { $0.lowercased() == scheme.lowercased() } ?? false
    }

    /// The signature in an `Authorization` value, or nil when it is not exactly `rig`, `nonce` and
    /// `mac`, each once, quoted: a rig name (1 to 64 letters, digits, `-`, `_`, `.`), 32 and 64
    /// lower-case hex digits.
    public static func parse(_ header: String) -> CollectSignature? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, isSignature(header) else { return nil }
        var fields: [String: String] = [:]
        for item in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let name = pair[..<equals].lowercased(), quoted = pair[pair.index(after: equals)...]
            guard quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\""), fields[name] == nil,
                  ["rig", "nonce", "mac"].contains(name) else { return nil }
            fields[name] = String(quoted.dropFirst().dropLast())
        }
        guard let rig = fields["rig"], let nonce = fields["nonce"], let mac = fields["mac"],
              (1...64).contains(rig.count), rig.allSatisfy(FleetSettings.isNameCharacter),
              isLowerHex(nonce, digits: nonceDigits), isLowerHex(mac, digits: HMACSHA256.codeBytes * 2) else { return nil }
        return CollectSignature(rig: rig, nonce: nonce, mac: mac)
    }

    static func isLowerHex(_ text: String, digits: Int) -> Bool {
        text.utf8.count == digits && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
