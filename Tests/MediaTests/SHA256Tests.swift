import Foundation
import Testing
@testable import Media

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownVectors(input: String, digest: String) throws {
        #expect(try SHA256.hexDigest(Array(input.utf8)) == digest)
    }

    @Test func oneMillionAsInUnevenChunksMatchesTheNISTVector() throws {
        var h = SHA256()
        let chunk = [UInt8](repeating: 0x61, count: 997)
        var remaining = 1_000_000
        while remaining > 0 {
            let n = min(remaining, chunk.count)
            h.update(Array(chunk.prefix(n)))
            remaining -= n
        }
        let hex = try h.finalize().map { String(format: "%02x", $0) }.joined()
        #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func agreesWithSha256sumOnEveryLengthAroundTheBlockBoundaries() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for length in [55, 56, 63, 64, 65, 119, 120, 128, 1000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let file = dir + "/data\(length)"
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let result = try runTool("sha256sum", [file])
            let expected = String(decoding: result.stdout, as: UTF8.self).split(separator: " ").first.map(String.init)
            #expect(try SHA256.hexDigest(bytes) == expected, "length \(length)")
        }
    }

    /// A file of a few megabytes fed in through the pointer overload, in pieces that straddle
    /// block boundaries unevenly, as a caller hashing a file while writing it would.
    @Test func streamedFileAgreesWithSha256sum() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var state: UInt32 = 0x9E37_79B9
        let bytes = (0..<3_000_017).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let file = dir + "/stream"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        var h = SHA256()
        var offset = 0, piece = 1
        bytes.withUnsafeBufferPointer { all in
            while offset < all.count {
                let end = min(all.count, offset + piece)
                h.update(UnsafeBufferPointer(rebasing: all[offset..<end]))
                offset = end
                piece = piece * 7 % 65_537 + 1
            }
        }
        let hex = try h.finalize().map { String(format: "%02x", $0) }.joined()
        let result = try runTool("sha256sum", [file])
        #expect(hex == String(decoding: result.stdout.prefix(64), as: UTF8.self))
    }
}
