import Foundation
import TestSupport

/// A raw HTTP/1.1 client on 127.0.0.1 for the remote's tests: it sends exactly the bytes it is
/// given (paths with `..`, missing headers, oversized heads), which URLSession would normalise.
struct HTTPTestClient {
    let port: Int
    /// Over the IPv6 loopback (::1) instead of 127.0.0.1.
    var ipv6 = false

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers[name.lowercased()] }
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    /// A connected socket with a receive timeout, or nil. `source` binds the client's end to
    /// another loopback address (127.0.0.2, 127.0.0.3: loopback on Linux without setup).
    func connect(timeoutSeconds: Int = 10, from source: String? = nil) -> Int32? {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        if let source, !ipv6 {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(fd); return nil }
        }
        let ok: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port)).bigEndian
            address.sin6_addr = in6addr_loopback
            ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard ok == 0 else { close(fd); return nil }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    func send(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Sends one request (Connection: close) and reads the response to its end.
    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [],
                 from source: String? = nil, timeoutSeconds: Int = 10) -> Response? {
        guard let fd = connect(timeoutSeconds: timeoutSeconds, from: source) else { return nil }
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(ipv6 ? "[::1]" : "127.0.0.1"):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        send(fd, Array((head + "\r\n").utf8) + body)
        return Self.parse(readAll(fd))
    }

    /// Reads until the peer closes, the timeout, or `limit` bytes.
    func readAll(_ fd: Int32, limit: Int = 64 << 20) -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while data.count < limit {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        return data
    }

    /// True when this machine has an IPv6 loopback: a socket binds to [::1]:0.
    static var hasIPv6Loopback: Bool {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }

    static func parse(_ data: [UInt8]) -> Response? {
        guard let end = headEnd(data) else { return nil }
        let head = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(data[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    static func headEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 { return i }
        return nil
    }

    static func dechunk(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < data.count {
            guard let lineEnd = (i..<data.count - 1).first(where: { data[$0] == 13 && data[$0 + 1] == 10 }) else { break }
            let sizeText = String(decoding: data[i..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            out += data[start..<min(data.count, start + size)]
            i = start + size + 2
        }
        return out
    }
}

/// A `tripod run` on the simulated board with the remote listening on a free port of 127.0.0.1.
final class RemoteFixture {
    let tripod: RunningTripod
    let port: Int
    let token: String
    var client: HTTPTestClient { HTTPTestClient(port: port) }
    var bearer: (String, String) { ("Authorization", "Bearer \(token)") }

    /// `config`: lines of a config file the process gets (none: no `--config`).
    init(config: [String] = []) throws {
        tripod = try RunningTripod(config: config)
        let set = tripod.ask("set remote.listen 127.0.0.1:0")
        guard set?.hasPrefix("ok") == true else { throw ToolError(description: "set remote.listen: \(set ?? "no reply")") }
        // `get` shows the port the system picked as the active value.
        let got = tripod.ask("get remote.listen") ?? ""
        guard let active = got.split(separator: " ").first(where: { $0.hasPrefix("active=127.0.0.1:") }),
              let port = Int(active.split(separator: ":").last ?? "") else {
            throw ToolError(description: "get remote.listen: \(got)")
        }
        self.port = port
        let reply = tripod.ask("remote token") ?? ""
        guard reply.hasPrefix("ok token="), reply.count == "ok token=".count + 64 else { throw ToolError(description: "remote token: \(reply)") }
        token = String(reply.dropFirst("ok token=".count))
    }
}
