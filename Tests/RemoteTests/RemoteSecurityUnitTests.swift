import Foundation
import Testing
import Synchronization
@testable import Remote
@testable import Settings

/// The security points that need no server: the token's file and comparison, the failed-attempt
/// limit, paths kept inside the captures directory, ranges, the listen address.
@Suite struct RemoteSecurityUnitTests {
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "tripod-remote-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theTokenIsMadeOnceAndKeptOnlyForTheOwner() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try RemoteToken.loadOrCreate(directory: directory)
        #expect(first.count == 64 && first.allSatisfy(\.isHexDigit))
        var info = stat()
        #expect(stat(directory + "/" + RemoteToken.fileName, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try RemoteToken.loadOrCreate(directory: directory) == first)
        #expect(RemoteToken.generate() != first)
        // A token file others may read is refused, not used.
        chmod(directory + "/" + RemoteToken.fileName, 0o644)
        #expect(throws: RemoteError.self) { try RemoteToken.loadOrCreate(directory: directory) }
    }

    @Test func nearMissesOfTheTokenDoNotMatch() {
        let token = RemoteToken.generate()
        #expect(RemoteToken.matches(token, token))
        #expect(!RemoteToken.matches("", token))
        #expect(!RemoteToken.matches(String(token.dropLast()), token))
        #expect(!RemoteToken.matches(token + "0", token))
        #expect(!RemoteToken.matches(token.uppercased() == token ? token.lowercased() : token.uppercased(), token))
        var flipped = Array(token.utf8)
        flipped[63] = flipped[63] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(!RemoteToken.matches(String(decoding: flipped, as: UTF8.self), token))
        // A string of another length whose common part matches.
        #expect(!RemoteToken.matches(String(token.prefix(32)), token))
    }

    @Test func failedAttemptsLockTheAddressOutUntilTheWindowPasses() {
        let clock = Mutex(ContinuousClock.now)
        let limiter = FailedAttemptLimiter(maximumFailures: 5, window: .seconds(60), now: { clock.withLock { $0 } })
        for _ in 0..<5 {
            #expect(limiter.allows("10.0.0.2"))
            limiter.failed("10.0.0.2")
        }
        #expect(!limiter.allows("10.0.0.2"))
        #expect(limiter.allows("10.0.0.3"), "another address is not locked out")
        clock.withLock { $0 += .seconds(59) }
        #expect(!limiter.allows("10.0.0.2"))
        clock.withLock { $0 += .seconds(2) }
        #expect(limiter.allows("10.0.0.2"))
    }

    /// The limit is per address with no global part: thousands of addresses failing (more than
    /// the 1024 it tracks) never lock out one that has not failed.
    @Test func failuresFromManyAddressesNeverLockOutAnother() {
        let limiter = FailedAttemptLimiter(maximumFailures: 5, window: .seconds(60))
        for a in 0..<3000 {
            for _ in 0..<5 { limiter.failed("10.1.\(a / 256).\(a % 256)") }
        }
        #expect(limiter.allows("127.0.0.1"))
        #expect(limiter.allows("::1"))
        #expect(!limiter.allows("10.1.11.183"), "the last failing address is locked out")
    }

    @Test func pathsOutOfTheCapturesDirectoryAreRefused() throws {
        let work = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let root = work + "/captures"
        try FileManager.default.createDirectory(atPath: root + "/2026-12-02", withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: root + "/2026-12-02/TRP_000001_01.jpg"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: work + "/secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/link.txt", withDestinationPath: work + "/secret.txt")
        try FileManager.default.createSymbolicLink(atPath: root + "/out", withDestinationPath: work)
        let files = CaptureFiles(root: root)
        let opened = try files.open("2026-12-02/TRP_000001_01.jpg")
        #expect(opened.size == 6)
        close(opened.descriptor)
        for bad in ["../secret.txt", "2026-12-02/../../secret.txt", "/etc/passwd", work + "/secret.txt", "./link.txt",
                    "2026-12-02//TRP_000001_01.jpg", "", "a\u{0}b"] {
            #expect(throws: CaptureFiles.Refusal.badPath, "\(bad)") { try files.open(bad) }
        }
        for hidden in ["link.txt", "out/secret.txt", "2026-12-02", "nosuch.jpg"] {
            #expect(throws: CaptureFiles.Refusal.notFound, "\(hidden)") { try files.open(hidden) }
        }
        // The list shows the capture, never what a symlink points at.
        #expect(files.list().map(\.path) == ["2026-12-02/TRP_000001_01.jpg"])
    }

    @Test func rangesAreReadAsRFC9110Says() {
        #expect(ByteRange(header: nil, size: 100) == .whole)
        #expect(ByteRange(header: "bytes=0-9", size: 100) == .part(first: 0, last: 9))
        #expect(ByteRange(header: "bytes=90-", size: 100) == .part(first: 90, last: 99))
        #expect(ByteRange(header: "bytes=90-500", size: 100) == .part(first: 90, last: 99))
        #expect(ByteRange(header: "bytes=-10", size: 100) == .part(first: 90, last: 99))
        #expect(ByteRange(header: "bytes=-1000", size: 100) == .part(first: 0, last: 99))
        #expect(ByteRange(header: "bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=9-3", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=x-3", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=99999999999999999999-", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-1,5-6", size: 100) == .whole)
        #expect(ByteRange(header: "items=0-1", size: 100) == .whole)
    }

    @Test func theListenAddressIsOffOrAnIPv4OrIPv6AddressAndPort() throws {
        #expect(try RemoteListen.parse("off", key: "remote.listen") == .off)
        #expect(try RemoteListen.parse("0.0.0.0:8080", key: "remote.listen") == .address("0.0.0.0", port: 8080))
        #expect(try RemoteListen.parse("127.000.0.1:0", key: "remote.listen") == .address("127.0.0.1", port: 0))
        // IPv6 in brackets, written back as inet_ntop writes it.
        #expect(try RemoteListen.parse("[::]:8080", key: "remote.listen") == .address("::", port: 8080))
        #expect(try RemoteListen.parse("[0:0:0:0:0:0:0:1]:0", key: "remote.listen") == .address("::1", port: 0))
        #expect(try RemoteListen.parse("[FD00::2]:80", key: "remote.listen").text == "[fd00::2]:80")
        for bad in ["8080", "localhost:80", "1.2.3:80", "1.2.3.256:80", "1.2.3.4:", "1.2.3.4:65536", "1.2.3.4:-1", ":80",
                    "::1:8080", "[::1]", "[::1]:", "[::1]8080", "[::1]:65536", "[::1]:+80", "[fe80::1%eth0]:80", "[1.2.3.4]:80", "[::g]:80"] {
            #expect(throws: (any Error).self, "\(bad)") { try RemoteListen.parse(bad, key: "remote.listen") }
        }
        #expect(SettingsTable.setting("remote.listen")?.defaultText == "off")
    }
}
