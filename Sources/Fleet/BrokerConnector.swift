import Foundation  // Thread
import Hardware

/// Turns a broker's host name into numeric addresses. Called off the loop (it may block for as long
/// as the system's resolver takes, or forever).
public protocol HostResolving: Sendable {
    /// The numeric addresses of `host` (IPv4 first), or a message saying why there are none.
    func resolve(host: String, port: Int) -> Result<[String], BrokerConnectFailure>
}

public struct BrokerConnectFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The system's resolver: `getaddrinfo` (SOCK_STREAM), each address written with `getnameinfo`
/// (NI_NUMERICHOST).
public struct SystemResolver: HostResolving {
    public init() {}

    public func resolve(host: String, port: Int) -> Result<[String], BrokerConnectFailure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0, let first = list else {
            return .failure(BrokerConnectFailure("cannot resolve \(host): \(String(cString: gai_strerror(code)))"))
        }
        defer { freeaddrinfo(first) }
        var v4: [String] = []
        var v6: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 {
                let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if current.pointee.ai_family == AF_INET { v4.append(address) } else { v6.append(address) }
            }
            entry = current.pointee.ai_next
        }
        let addresses = v4 + v6
        return addresses.isEmpty ? .failure(BrokerConnectFailure("\(host) has no usable address")) : .success(addresses)
    }
}

/// One attempt at connecting a `MosquittoClient`, on a thread of its own so that neither the name
/// lookup nor `mosquitto_connect_async` ever runs on the loop: resolve the host (`resolver`), then
/// connect to its first address (for `mqtts`, to the host name, so that TLS checks the broker's
/// certificate against it; libmosquitto looks it up again on this same thread), then start
/// libmosquitto's network thread. `done` runs on `loop` with the outcome. A host that never
/// resolves only keeps this thread waiting; the client being closed meanwhile (`disconnect`) makes
/// the late attempt end without starting anything.
public enum BrokerConnector {
    public static func attempt(_ client: MosquittoClient, host: String, port: Int, tls: Bool, keepaliveSeconds: Int32,
                        resolver: any HostResolving, loop: any EventLoop,
                        done: @escaping @Sendable (Result<String, BrokerConnectFailure>) -> Void) {
        let thread = Thread {
            let outcome: Result<String, BrokerConnectFailure>
            switch resolver.resolve(host: host, port: port) {
            case .failure(let failure):
                outcome = .failure(failure)
            case .success(let addresses):
                guard let address = addresses.first else {
                    outcome = .failure(BrokerConnectFailure("\(host) has no usable address"))
                    break
                }
                do throws(MosquittoError) {
                    try client.connect(host: tls ? host : address, port: port, keepaliveSeconds: keepaliveSeconds)
                    try client.startLoop()
                    outcome = .success(address)
                } catch {
                    outcome = .failure(BrokerConnectFailure("\(address): \(error)"))
                }
            }
            loop.execute { done(outcome) }
        }
        thread.name = "tripod.fleet.connect"
        thread.start()
    }
}
