import Foundation
import Remote
import Testing
import TestSupport

/// The remote's edge against `tripod run` (issue 37, "Remote input is bounded"): the security
/// headers on every answer, the login's HttpOnly cookie, and failed tokens from other addresses
/// (127.0.0.2) that never lock the owner out.
@Suite(.serialized) struct RemoteEdgeTests {
    static let expected = [
        "content-security-policy": "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        "x-content-type-options": "nosniff", "x-frame-options": "DENY", "referrer-policy": "no-referrer",
    ]

    @Test func everyAnswerCarriesTheSecurityHeaders() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        let requests: [(String, String, [(String, String)])] = [
            ("GET", "/login", []), ("GET", "/app.js", []), ("GET", "/app.css", []), ("GET", "/", []),
            ("GET", "/", [("Cookie", "tripod_token=\(remote.token)")]), ("GET", "/api/status", [remote.bearer]),
            ("GET", "/api/status", []), ("GET", "/nosuch", [remote.bearer]), ("PUT", "/login", []),
            ("POST", "/api/command", [remote.bearer]), ("POST", "/login", [remote.bearer]),
        ]
        for (method, path, headers) in requests {
            guard let response = http.request(method, path, headers: headers) else { Issue.record("\(method) \(path): no answer"); continue }
            for (name, value) in Self.expected {
                #expect(response.header(name) == value, "\(method) \(path) (\(response.status)) \(name): \(response.header(name) ?? "none")")
            }
        }
        // The daemon's own refusals, made before the router sees the request, carry them too.
        let refusals: [(headers: [(String, String)], body: [UInt8], status: Int)] = [
            ([remote.bearer] + (0..<49).map { ("X-Many-\($0)", "1") }, [], 431),
            ([remote.bearer, ("Transfer-Encoding", "chunked")], Array("0\r\n\r\n".utf8), 400),
        ]
        for refusal in refusals {
            let response = http.request("POST", "/api/command", headers: refusal.headers, body: refusal.body)
            #expect(response?.status == refusal.status)
            for (name, value) in Self.expected {
                #expect(response?.header(name) == value, "\(refusal.status) \(name): \(response?.header(name) ?? "none")")
            }
        }
    }

    /// Reads one response (its head and its Content-Length body) from `fd`, leaving the connection as it is.
    static func readOne(_ fd: Int32) -> HTTPTestClient.Response? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = HTTPTestClient.headEnd(data), let response = HTTPTestClient.parse(data),
               data.count - (end + 4) >= Int(response.header("Content-Length") ?? "0") ?? 0 {
                return response
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            data += buffer[0..<n]
        }
    }

    /// True when the server has closed `fd` (end of stream or reset), false when the read timed out.
    static func closedByServer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let n = read(fd, &byte, 1)
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Keep-alive only with the token: a peer without it (the open login page, a 401, a refusal
    /// of the daemon's own) is answered and its connection closed; with the token one connection
    /// carries two requests.
    @Test func onlyARequestWithTheTokenKeepsItsConnection() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        let many = (0..<49).map { "X-Many-\($0): 1\r\n" }.joined()
        let heads = ["GET /login HTTP/1.1\r\nHost: x\r\n\r\n", "GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n",
                     "GET /api/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(remote.token)\r\n\(many)\r\n"]
        for head in heads {
            guard let fd = http.connect() else { Issue.record("no connection"); continue }
            defer { close(fd) }
            http.send(fd, Array(head.utf8))
            let response = Self.readOne(fd)
            let line = head.prefix { $0 != "\r" }
            #expect(response?.header("Connection")?.lowercased() == "close", "\(line) (\(response?.status ?? 0))")
            #expect(Self.closedByServer(fd), "\(line) (\(response?.status ?? 0)): the connection stays open")
        }
        guard let fd = http.connect() else { Issue.record("no connection"); return }
        defer { close(fd) }
        let status = "GET /api/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(remote.token)\r\n\r\n"
        for _ in 0..<2 {
            http.send(fd, Array(status.utf8))
            #expect(Self.readOne(fd)?.status == 200)
        }
    }

    /// A collection signature names the rig (`fleet.rig`): after `set fleet.rig r2` the running
    /// server refuses a signature for r1 and accepts one for r2, with no restart of the remote.
    @Test func collectionSignaturesFollowTheRigsNewName() throws {
        let folder = NSTemporaryDirectory() + "tripod-collect-rename-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = String(repeating: "0123456789abcdef", count: 4)
        try (key + "\n").write(toFile: folder + "/key", atomically: true, encoding: .utf8)
        chmod(folder + "/key", 0o600)
        let remote = try RemoteFixture(config: ["remote.collect = \(folder)/key", "fleet.rig = r1"])
        func status(signedFor rig: String) throws -> Int? {
            let header = try CollectSignature.sign(key: key, method: "GET", path: "/api/captures", rig: rig).header
            return remote.client.request("GET", "/api/captures", headers: [("Authorization", header)])?.status
        }
        #expect(try status(signedFor: "r1") == 200)
        #expect(try status(signedFor: "r2") == 401)
        #expect(remote.tripod.ask("set fleet.rig r2") == "ok fleet.rig=r2")
        #expect(try status(signedFor: "r1") == 401)
        #expect(try status(signedFor: "r2") == 200)
    }

    @Test func theLoginAnswersWithAnHttpOnlyStrictCookieAndTheLogoutRemovesIt() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        let login = http.request("POST", "/login", headers: [remote.bearer])
        #expect(login?.status == 204)
        let cookie = login?.header("Set-Cookie") ?? ""
        let attributes = Set(cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        #expect(cookie.hasPrefix("tripod_token=\(remote.token);"), "\(cookie)")
        #expect(attributes.isSuperset(of: ["httponly", "samesite=strict", "path=/"]), "\(cookie)")
        #expect(!attributes.contains("secure"), "plain HTTP: \(cookie)")
        // The cookie it set opens the page and the API's GETs.
        #expect(http.request("GET", "/api/status", headers: [("Cookie", "tripod_token=\(remote.token)")])?.status == 200)
        // A wrong token, no token, or the cookie alone get no cookie.
        let wrong = http.request("POST", "/login", headers: [("Authorization", "Bearer " + String(repeating: "0", count: 64))])
        #expect(wrong?.status == 401 && wrong?.header("Set-Cookie") == nil)
        let none = http.request("POST", "/login")
        #expect(none?.status == 401 && none?.header("Set-Cookie") == nil)
        let cookieOnly = http.request("POST", "/login", headers: [("Cookie", "tripod_token=\(remote.token)")])
        #expect(cookieOnly?.status == 403 && cookieOnly?.header("Set-Cookie") == nil)
        // The logout (open: it only clears this browser's cookie).
        let logout = http.request("POST", "/logout")
        #expect(logout?.status == 204)
        let cleared = logout?.header("Set-Cookie") ?? ""
        #expect(cleared.hasPrefix("tripod_token=;") && cleared.contains("Max-Age=0") && cleared.contains("HttpOnly"), "\(cleared)")
        // The page's script never writes the cookie itself.
        let script = http.request("GET", "/app.js")?.text ?? ""
        #expect(!script.contains("document.cookie") && !script.contains("localStorage"))
    }

    @Test func wrongTokensFromOtherAddressesNeverLockOutTheOwner() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        for source in ["127.0.0.2", "127.0.0.3"] {
            for i in 0..<8 {
                let guess = String(repeating: String(i), count: 64)
                _ = http.request("GET", "/api/status", headers: [("Authorization", "Bearer \(guess)")], from: source)
            }
            #expect(http.request("GET", "/api/status", headers: [remote.bearer], from: source)?.status == 429, "\(source) is locked out")
        }
        #expect(http.request("GET", "/api/status", headers: [remote.bearer])?.status == 200, "the owner at 127.0.0.1 is not")
        #expect(http.request("POST", "/login", headers: [remote.bearer])?.status == 204)
    }
}
