import Foundation
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
