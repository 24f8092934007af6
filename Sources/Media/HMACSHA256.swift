import CCrypto

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4 SHA-256) through OpenSSL's libcrypto: its one-shot
/// `HMAC()` with `EVP_sha256()`. The collector signs each request to a rig with it, under the
/// group's collection key, so that the key itself never leaves the machine (docs/security.md).
public enum HMACSHA256 {
    /// Length of a code, bytes.
    public static let codeBytes = 32

    /// The 32-byte code of `message` under `key` (HMAC(EVP_sha256(), key, message)). Throws
    /// `MediaError` (.encoding) naming the libcrypto call when it fails.
    public static func code(key: [UInt8], message: [UInt8]) throws(MediaError) -> [UInt8] {
        // libcrypto reads no byte of an empty key or message, but is given a valid address anyway.
        let keyBytes = key.isEmpty ? [0] : key, messageBytes = message.isEmpty ? [0] : message
        guard key.count <= Int(Int32.max) else { throw MediaError(.encoding, "HMAC-SHA256: a key of \(key.count) bytes") }
        var code = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let made = keyBytes.withUnsafeBytes { keyBuffer in
            messageBytes.withUnsafeBufferPointer { messageBuffer in
                code.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(key.count), messageBuffer.baseAddress, message.count,
                         out.baseAddress, &length)
                }
            }
        }
        guard made != nil, Int(length) == codeBytes else { throw MediaError(.encoding, libcryptoFailure("HMAC(EVP_sha256)", in: "HMAC-SHA256")) }
        return Array(code.prefix(codeBytes))
    }

    /// The code as 64 lower-case hex digits.
    public static func hexCode(key: [UInt8], message: [UInt8]) throws(MediaError) -> String {
        hexString(try code(key: key, message: message))
    }
}
