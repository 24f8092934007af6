import Foundation
import Synchronization
import Testing
@testable import Media
@testable import Remote

/// The collection key's signature without processes: libcrypto's HMAC-SHA256 against RFC 4231,
/// the text signed, the header's form, and the rig's checks (its name, the MAC, each nonce once).
struct CollectSignatureTests {
    static let key = String(repeating: "0123456789abcdef", count: 4)

    /// RFC 4231 test cases 1, 2, 3 and 6 (a key longer than SHA-256's block).
    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacSHA256MatchesRFC4231(key: [UInt8], message: [UInt8], expected: String) throws {
        #expect(try HMACSHA256.hexCode(key: key, message: message) == expected)
        #expect(try HMACSHA256.code(key: key, message: message).count == 32)
    }

    /// The text signed names the method, the path, the rig and the nonce, one a line; its MAC is
    /// what Python's `hmac` gives for it (computed once, outside this code).
    @Test func theCanonicalTextAndItsMAC() throws {
        let nonce = "00112233445566778899aabbccddeeff"
        #expect(CollectSignature.canonical(method: "GET", path: "/api/shots/r1-1777636805250", rig: "r1", nonce: nonce)
                == "tripod-collect\nGET\n/api/shots/r1-1777636805250\nr1\n00112233445566778899aabbccddeeff")
        #expect(try CollectSignature.mac(key: Array(Self.key.utf8), method: "GET", path: "/api/shots/r1-1777636805250", rig: "r1", nonce: nonce)
                == "2a79e2dfebde461d3b4f702767ea67abba16078bd587c761fe6c41ef02cd9262")
        let signature = CollectSignature(rig: "r1", nonce: nonce, mac: String(repeating: "ab", count: 32))
        #expect(signature.header == "TripodCollect rig=\"r1\", nonce=\"\(nonce)\", mac=\"\(String(repeating: "ab", count: 32))\"")
    }

    /// A header made by `sign` parses back; every nonce is new and the key's text is nowhere in it.
    @Test func aSignedHeaderParsesBackWithAFreshNonceAndWithoutTheKey() throws {
        let a = try CollectSignature.sign(key: Self.key, method: "GET", path: "/api/captures", rig: "cam01")
        let b = try CollectSignature.sign(key: Self.key, method: "GET", path: "/api/captures", rig: "cam01")
        #expect(CollectSignature.parse(a.header) == a)
        #expect(a.nonce != b.nonce && a.mac != b.mac)
        #expect(!a.header.contains(Self.key))
        #expect(a.mac == (try CollectSignature.mac(key: Array(Self.key.utf8), method: "GET", path: "/api/captures", rig: "cam01", nonce: a.nonce)))
    }

    @Test func aHeaderThatIsNotExactlyRigNonceAndMACIsRefused() {
        let nonce = String(repeating: "0a", count: 16), mac = String(repeating: "0b", count: 32)
        #expect(CollectSignature.parse("tripodcollect rig=\"r1\",nonce=\"\(nonce)\" , mac=\"\(mac)\"") != nil)
        for bad in ["TripodCollect", "Bearer rig=\"r1\", nonce=\"\(nonce)\", mac=\"\(mac)\"",
                    "TripodCollect rig=\"r1\", nonce=\"\(nonce)\"",
                    "TripodCollect rig=\"r1\", rig=\"r2\", nonce=\"\(nonce)\", mac=\"\(mac)\"",
                    "TripodCollect rig=\"r1\", nonce=\"\(nonce)\", mac=\"\(mac)\", extra=\"x\"",
                    "TripodCollect rig=\"r1\", nonce=\"\(nonce.uppercased())\", mac=\"\(mac)\"",
                    "TripodCollect rig=\"r1\", nonce=\"\(nonce)0\", mac=\"\(mac)\"",
                    "TripodCollect rig=\"a/b\", nonce=\"\(nonce)\", mac=\"\(mac)\"",
                    "TripodCollect rig=r1, nonce=\"\(nonce)\", mac=\"\(mac)\""] {
            #expect(CollectSignature.parse(bad) == nil, "\(bad)")
        }
    }

    /// The rig accepts a signature for its own name, right, with a new nonce; it refuses another
    /// rig's name, a wrong MAC (another key, path or method), and a nonce the second time. A nonce
    /// whose MAC was wrong is not remembered.
    @Test func theRigAcceptsItsOwnNameARightMACAndEachNonceOnce() throws {
        let rig = Mutex("r1")  // fleet.rig in force, read at each request
        let access = CollectionAccess(key: Self.key, rig: { rig.withLock { $0 } })
        let good = try CollectSignature.sign(key: Self.key, method: "GET", path: "/api/captures", rig: "r1")
        #expect(refusal(access.verify(good.header, method: "GET", path: "/api/captures")) == nil)
        #expect(refusal(access.verify(good.header, method: "GET", path: "/api/captures")) == .replayed)

        let other = try CollectSignature.sign(key: Self.key, method: "GET", path: "/api/captures", rig: "r2")
        #expect(refusal(access.verify(other.header, method: "GET", path: "/api/captures")) == .otherRig("r2"))
        let fresh = try CollectSignature.sign(key: Self.key, method: "GET", path: "/api/captures", rig: "r1")
        #expect(refusal(access.verify(fresh.header, method: "GET", path: "/captures/x.jpg")) == .badMAC)
        #expect(refusal(access.verify(fresh.header, method: "POST", path: "/api/captures")) == .badMAC)
        let wrongKey = try CollectSignature.sign(key: String(repeating: "f", count: 64), method: "GET", path: "/api/captures", rig: "r1")
        #expect(refusal(access.verify(wrongKey.header, method: "GET", path: "/api/captures")) == .badMAC)
        #expect(refusal(access.verify("TripodCollect rig=\"r1\"", method: "GET", path: "/api/captures")) == .malformed)
        // The refusals above did not use up `fresh`'s nonce.
        #expect(refusal(access.verify(fresh.header, method: "GET", path: "/api/captures")) == nil)

        // fleet.rig changed: the old name is another rig's now.
        rig.withLock { $0 = "r9" }
        let old = try CollectSignature.sign(key: Self.key, method: "GET", path: "/api/captures", rig: "r1")
        #expect(refusal(access.verify(old.header, method: "GET", path: "/api/captures")) == .otherRig("r1"))
        let renamed = try CollectSignature.sign(key: Self.key, method: "GET", path: "/api/captures", rig: "r9")
        #expect(refusal(access.verify(renamed.header, method: "GET", path: "/api/captures")) == nil)
    }

    /// The cache is bounded: past its capacity the oldest nonce is forgotten, the newer kept.
    @Test func theNonceCacheForgetsTheOldestPastItsCapacity() throws {
        let seen = SeenNonces(capacity: 2)
        let nonces = try (0..<3).map { i in try #require(SeenNonces.Nonce(hex: String(format: "%032x", i))) }
        #expect(nonces.allSatisfy { seen.insert($0) })
        #expect(seen.count == 2)
        #expect(!seen.insert(nonces[2]) && !seen.insert(nonces[1]))
        #expect(seen.insert(nonces[0]))
        #expect(seen.count == 2 && seen.insert(nonces[1]))
    }

    /// The same signed request from many connection threads at once is accepted exactly once.
    @Test func oneNonceFromManyThreadsAtOnceIsAcceptedOnce() throws {
        let access = CollectionAccess(key: Self.key, rig: "r1")
        let header = try CollectSignature.sign(key: Self.key, method: "GET", path: "/api/captures", rig: "r1").header
        let accepted = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            if case .success = access.verify(header, method: "GET", path: "/api/captures") { accepted.withLock { $0 += 1 } }
        }
        #expect(accepted.withLock { $0 } == 1)
    }
}

/// The refusal in a verdict; nil when the signature was accepted.
func refusal(_ verdict: Result<Void, CollectionAccess.Refusal>) -> CollectionAccess.Refusal? {
    if case .failure(let refusal) = verdict { return refusal }
    return nil
}
