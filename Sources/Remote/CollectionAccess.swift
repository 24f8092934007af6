import Media
import Synchronization

/// The rig's side of the collection key (docs/security.md): checks a request's `TripodCollect`
/// signature. It holds the key, how to read this rig's name (`fleet.rig` in force) and the nonces
/// already used. Called on the connections' threads.
public final class CollectionAccess: Sendable {
    private let key: [UInt8]
    private let rig: @Sendable () -> String
    private let seen: SeenNonces

    /// `key`: the group's collection key (`remote.collect`); `rig`: reads this rig's `fleet.rig` in
    /// force, at each request (a renamed rig is checked under its new name at once);
    /// `seen`: the nonces used so far (kept by the supervisor, so a restarted server still refuses them).
    public init(key: String, rig: @escaping @Sendable () -> String, seen: SeenNonces = SeenNonces()) {
        self.key = Array(key.utf8)
        self.rig = rig
        self.seen = seen
    }

    /// The same for a rig whose name does not change.
    public convenience init(key: String, rig: String, seen: SeenNonces = SeenNonces()) {
        self.init(key: key, rig: { rig }, seen: seen)
    }

    /// The name a signature must name: this rig's `fleet.rig` in force.
    public var rigName: String { rig() }

    /// Why a signature is refused (each answers 401 and counts as a wrong token).
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case malformed, otherRig(String), badMAC, replayed, unavailable

        public var description: String {
            switch self {
            case .malformed: return "a TripodCollect signature needs rig=\"NAME\", nonce=\"32 hex\", mac=\"64 hex\""
            case .otherRig(let name): return "the signature is for rig \(name), not this one"
            case .badMAC: return "wrong signature"
            case .replayed: return "that nonce was used before"
            case .unavailable: return "the signature cannot be checked (libcrypto)"
            }
        }
    }

    /// Accepts `header` (an `Authorization` value) for `method` `path` when it names this rig, its
    /// MAC is right (compared in constant time) and its nonce is new; the nonce is remembered only then.
    public func verify(_ header: String, method: String, path: String) -> Result<Void, Refusal> {
        guard let signature = CollectSignature.parse(header), let nonce = SeenNonces.Nonce(hex: signature.nonce) else { return .failure(.malformed) }
        guard signature.rig == rigName else { return .failure(.otherRig(signature.rig)) }
        let expected: String
        do throws(MediaError) {
            expected = try CollectSignature.mac(key: key, method: method, path: path, rig: signature.rig, nonce: signature.nonce)
        } catch {
            return .failure(.unavailable)
        }
        guard RemoteToken.matches(signature.mac, expected) else { return .failure(.badMAC) }
        return seen.insert(nonce) ? .success(()) : .failure(.replayed)
    }
}

/// The last `capacity` nonces of signatures that verified (a bounded replay cache: the oldest is
/// forgotten first). No clock is involved, so a rig without NTP is collected all the same.
public final class SeenNonces: Sendable {
    /// The 16 bytes of a nonce.
    struct Nonce: Hashable {
        let high: UInt64, low: UInt64

        /// From 32 hex digits; nil otherwise.
        init?(hex: String) {
            guard hex.utf8.count == 32, let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else { return nil }
            self.high = high; self.low = low
        }
    }

    private struct Ring {
        var members: Set<Nonce> = []
        /// In the order they came, overwritten from `next` once full.
        var order: [Nonce] = []
        var next = 0
    }

    /// Nonces remembered at most (16 bytes each, about 3 MB with the set's own).
    public let capacity: Int
    private let ring = Mutex(Ring())

    public init(capacity: Int = 65_536) {
        self.capacity = max(1, capacity)
    }

    /// True when `nonce` was not seen (it is remembered from now on); false when it was.
    func insert(_ nonce: Nonce) -> Bool {
        let capacity = self.capacity
        return ring.withLock { ring in
            guard ring.members.insert(nonce).inserted else { return false }
            if ring.order.count < capacity {
                ring.order.append(nonce)
            } else {
                ring.members.remove(ring.order[ring.next])
                ring.order[ring.next] = nonce
                ring.next = (ring.next + 1) % capacity
            }
            return true
        }
    }

    /// How many nonces are remembered.
    public var count: Int { ring.withLock { $0.members.count } }
}
