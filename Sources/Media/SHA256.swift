import CCrypto

/// SHA-256 (FIPS 180-4) through OpenSSL's libcrypto, for the checksums in sidecars. Incremental:
/// `update` as often as needed, then `finalize` once. Not copyable: it owns one libcrypto digest
/// context (EVP_MD_CTX_new, EVP_DigestInit_ex with EVP_sha256), freed (EVP_MD_CTX_free) when the
/// value goes away. A libcrypto failure is kept and thrown by `finalize`.
public struct SHA256: ~Copyable {
    private let context: OpaquePointer?
    /// The first libcrypto call that failed, with OpenSSL's reason; nil while all is well.
    private var failure: String?

    /// A fresh hash (EVP_MD_CTX_new, EVP_DigestInit_ex(EVP_sha256())).
    public init() {
        context = EVP_MD_CTX_new()
        if context == nil {
            failure = libcryptoFailure("EVP_MD_CTX_new")
        } else if EVP_DigestInit_ex(context, EVP_sha256(), nil) != 1 {
            failure = libcryptoFailure("EVP_DigestInit_ex(EVP_sha256)")
        }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// The hex digest of `bytes`, lower case. Throws `MediaError` (.encoding) when libcrypto fails.
    public static func hexDigest(_ bytes: [UInt8]) throws -> String {
        var hash = SHA256()
        hash.update(bytes)
        return try hash.finalizeHex()
    }

    /// Adds bytes to the hash.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { update($0) }
    }

    /// Adds bytes to the hash, without copying them (EVP_DigestUpdate).
    public mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard failure == nil, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if EVP_DigestUpdate(context, base, bytes.count) != 1 { failure = libcryptoFailure("EVP_DigestUpdate") }
    }

    /// The 32-byte digest (EVP_DigestFinal_ex). Throws `MediaError` (.encoding) naming the libcrypto
    /// call that failed, here or in an earlier `init`/`update`.
    public consuming func finalize() throws -> [UInt8] {
        if let failure { throw MediaError(.encoding, failure) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 32 else {
            throw MediaError(.encoding, libcryptoFailure("EVP_DigestFinal_ex"))
        }
        return Array(digest.prefix(Int(length)))
    }

    /// The digest as lower-case hex, as sidecars record it (`finalize`, then `hexString`).
    public consuming func finalizeHex() throws -> String {
        hexString(try finalize())
    }
}

/// "WHAT: libcrypto CALL failed: REASON" (WHAT is "SHA-256" unless named), with the oldest queued
/// OpenSSL error (ERR_get_error, ERR_error_string_n), which it takes off the thread's error queue.
func libcryptoFailure(_ call: String, in what: String = "SHA-256") -> String {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return "\(what): libcrypto \(call) failed" }
    var text = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &text, text.count)
    return "\(what): libcrypto \(call) failed: " + String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
