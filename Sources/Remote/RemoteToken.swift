import Foundation
import Synchronization
import Syscalls

/// The remote's bearer token: 32 random bytes as 64 hex digits, made at the first start and kept
/// in the state directory as `remote-token`, mode 0600.
public enum RemoteToken {
    public static let fileName = "remote-token"

    /// A new token from the system's generator (getrandom through `SystemRandomNumberGenerator`).
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// The token in `directory`, made (O_CREAT|O_EXCL, mode 0600, then fsync, through the syscall
    /// seam) when there is none. A file that is not 64 hex digits, or that others can read, is
    /// refused, not used.
    public static func loadOrCreate(directory: String, syscalls: any SystemCalls = SystemSyscalls()) throws(RemoteError) -> String {
        let path = directory + "/" + fileName
        if let existing = FileManager.default.contents(atPath: path) {
            let mode = ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
            guard mode & 0o077 == 0 else {
                throw RemoteError("remote: \(path) may be read by others (chmod 600 it, or delete it for a new token)")
            }
            let text = String(decoding: existing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.count == 64, text.allSatisfy(\.isHexDigit) else {
                throw RemoteError("remote: \(path) is not a token (64 hex digits); delete it for a new one")
            }
            return text
        }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let token = generate()
        let bytes = Array((token + "\n").utf8)
        do throws(SyscallError) {
            let fd = try syscalls.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
            defer { try? syscalls.close(fd) }
            do throws(SyscallError) {
                let written = bytes.withUnsafeBytes { raw in Result { () throws(SyscallError) -> Int in try syscalls.write(fd, raw) } }
                guard try written.get() == bytes.count else { throw SyscallError(errno: EIO) }
                try syscalls.fsync(fd)
            } catch {
                try? syscalls.unlink(path)
                throw error
            }
        } catch {
            throw RemoteError("remote: cannot write \(path): \(error)")
        }
        return token
    }

    /// True when `given` is `expected`, in time that depends on `expected`'s length only (every
    /// byte is compared, whatever the first difference).
    public static func matches(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        for i in 0..<b.count { difference |= (i < a.count ? a[i] : 0) ^ b[i] }
        return difference == 0
    }
}

/// Limits failed token attempts per client address: after `maximumFailures` within `window`,
/// every request from that address is refused (429), a right token too, until the window passes.
public final class FailedAttemptLimiter: Sendable {
    public let maximumFailures: Int
    public let window: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let failures = Mutex<[String: [ContinuousClock.Instant]]>([:])
    /// Addresses tracked at most (a flood of addresses forgets the oldest, never grows without bound).
    private let maximumAddresses = 1024

    public init(maximumFailures: Int = 5, window: Duration = .seconds(60),
                now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.maximumFailures = maximumFailures; self.window = window; self.now = now
    }

    /// True when `client` may try now.
    public func allows(_ client: String) -> Bool {
        let t = now(), window = self.window
        return failures.withLock { table in
            let recent = (table[client] ?? []).filter { t - $0 < window }
            table[client] = recent.isEmpty ? nil : recent
            return recent.count < maximumFailures
        }
    }

    /// Counts a failed attempt of `client`.
    public func failed(_ client: String) {
        let t = now(), maximum = maximumAddresses
        failures.withLock { table in
            if table[client] == nil, table.count >= maximum, let oldest = table.min(by: { ($0.value.last ?? t) < ($1.value.last ?? t) })?.key {
                table[oldest] = nil
            }
            table[client, default: []].append(t)
        }
    }
}
