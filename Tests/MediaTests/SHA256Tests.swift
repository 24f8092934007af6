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
    func knownVectors(input: String, digest: String) {
        #expect(SHA256.hexDigest(Array(input.utf8)) == digest)
    }

    @Test func oneMillionAsInUnevenChunksMatchesTheNISTVector() {
        var h = SHA256()
        let chunk = [UInt8](repeating: 0x61, count: 997)
        var remaining = 1_000_000
        while remaining > 0 {
            let n = min(remaining, chunk.count)
            h.update(Array(chunk.prefix(n)))
            remaining -= n
        }
        let hex = h.finalize().map { String(format: "%02x", $0) }.joined()
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
            #expect(SHA256.hexDigest(bytes) == expected, "length \(length)")
        }
    }
}
