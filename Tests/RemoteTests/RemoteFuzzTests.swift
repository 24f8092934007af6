import Foundation
import Testing
import TestSupport

/// Bad input over HTTP while a bracket runs: malformed request lines, huge and broken headers, bad
/// chunking, short bodies, a slowloris crowd, path tricks and wrong tokens, each seeded so a
/// failure replays. The supervisor keeps running, the bracket completes, the server still answers.
@Suite(.serialized) struct RemoteFuzzTests {
    /// A small deterministic generator (SplitMix64), so every run sends the same bytes.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func cases(token: String, random: inout Seeded) -> [[UInt8]] {
        let auth = "Authorization: Bearer \(token)\r\n"
        // Random bytes, and random mutations of a good request.
        let good = Array("GET /api/status HTTP/1.1\r\nHost: x\r\n\(auth)\r\n".utf8)
        var out = Self.named(auth).map { Array($0.utf8) }
        // A body that is not UTF-8 (a Swift string cannot hold these bytes).
        out.append(Array("POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: 4\r\n\r\n".utf8) + [0xFF, 0xFE, 0x00, 0x01])
        for _ in 0..<60 {
            out.append((0..<Int.random(in: 1...2000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            var mutated = good
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                mutated[Int.random(in: 0..<mutated.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            out.append(mutated)
        }
        return out
    }

    /// The named cases and the one with a body that is not UTF-8.
    static let namedCaseCount = named("").count + 1
    /// libmicrohttpd 0.9.75 drops a header line with an empty name and reads the rest, which is
    /// a good request: answered 200.
    static let toleratedIndex = named("").firstIndex { $0.contains(": empty name") }
    /// Named cases answered with a status at least: 23 of 27 were here (the others are closed
    /// unanswered; a few answers may be lost to the reset of a close with unread input). With the
    /// crowd on the same address, as before, none was: each was cut at accept by the per-address limit.
    static let namedAnsweredAtLeast = 20

    /// The named malformed requests, `auth` being the Authorization header line.
    static func named(_ auth: String) -> [String] {
        [
            "\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET /api/status\r\n\r\n", "GARBAGE / HTTP/1.1\r\n\r\n",
            "GET /api/status HTTP/1.1\r\nHost: x\r\n\(auth)NoColonHere\r\n\r\n",
            "GET /api/status HTTP/1.1\r\nHost: x\r\n\(auth): empty name\r\n\r\n",
            "GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /api/status HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-A: b\r\n", count: 5000) + "\r\n",
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\n\r\nzz\r\nstatus\r\n0\r\n\r\n",
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\nstatus\r\n",
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\n\r\n-5\r\nstatus\r\n0\r\n\r\n",
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\nContent-Length: 6\r\n\r\n6\r\nstatus\r\n0\r\n\r\n",
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: 100\r\n\r\nstat",
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: -1\r\n\r\nstatus",
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: 99999999999999999999\r\n\r\nstatus",
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: 7\r\n\r\nstatus\u{0}",
            "GET /captures/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\(auth)\r\n",
            "GET /captures/%00 HTTP/1.1\r\nHost: x\r\n\(auth)\r\n",
            "GET /captures/%2e%2e%2f%2e%2e%2fetc%2fpasswd HTTP/1.1\r\nHost: x\r\n\(auth)\r\n",
            "GET /captures/" + String(repeating: "a/", count: 2000) + "b HTTP/1.1\r\nHost: x\r\n\(auth)\r\n",
            "GET /captures/x HTTP/1.1\r\nHost: x\r\n\(auth)Range: bytes=-0\r\n\r\n",
            "GET /captures/x HTTP/1.1\r\nHost: x\r\n\(auth)Range: bytes=99999999999999999999999-\r\n\r\n",
            "GET /api/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n\r\n",
            "GET /api/status HTTP/1.1\r\nHost: x\r\nCookie: tripod_token=\r\n\r\n",
            "GET /api/status HTTP/1.1\r\nHost: x\r\nCookie: ;;;=;tripod_token\r\n\r\n",
        ]
    }

    /// What one malformed request got: an HTTP status, the connection closed without one, or
    /// nothing at all within the deadline (hanging).
    enum Outcome: Equatable { case answered(Int), closed, hanging }

    /// Sends `input` on a fresh connection from `source`, half-closes, and reads until the server
    /// closes or `deadlineSeconds` pass with nothing more.
    static func send(_ input: [UInt8], client: HTTPTestClient, from source: String, deadlineSeconds: Int = 5) -> Outcome? {
        guard let fd = client.connect(timeoutSeconds: deadlineSeconds, from: source) else { return nil }
        defer { close(fd) }
        client.send(fd, input)
        shutdown(fd, Int32(SHUT_WR))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while data.count < 1 << 20 {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { data += buffer[0..<n]; continue }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .hanging }
            break
        }
        if let response = HTTPTestClient.parse(data) { return .answered(response.status) }
        return .closed
    }

    @Test func badRequestsDuringABracketLeaveTheSupervisorAndTheBracketWhole() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        #expect(remote.tripod.ask("bracket ev 5 1")?.hasPrefix("ok") == true)
        var random = Seeded(state: 28)
        let fixed = Self.cases(token: remote.token, random: &random)
        // Slowloris beside it: 20 half-sent requests from another address (its whole per-address
        // limit), held while the rest runs; the fuzzing comes from a third address, so neither the
        // crowd nor wrong tokens among the mutations touch the owner at 127.0.0.1.
        let crowd = (0..<20).compactMap { _ in http.connect(timeoutSeconds: 1, from: "127.0.0.2") }
        #expect(crowd.count == 20)
        for fd in crowd { http.send(fd, Array("GET /api/status HTTP/1.1\r\nHo".utf8)) }
        var outcomes: [Outcome?] = []
        for input in fixed { outcomes.append(Self.send(input, client: http, from: "127.0.0.3")) }
        crowd.forEach { close($0) }
        let named = Self.namedCaseCount
        // Every request reached the server and was answered or closed, none left hanging.
        #expect(!outcomes.contains(nil), "a connection was refused")
        #expect(!outcomes.contains(.hanging), "hanging: \(outcomes.indices.filter { outcomes[$0] == .hanging })")
        // The named malformed requests are refused: a 4xx (505 for HTTP/9.9) or the connection closed.
        for (i, outcome) in outcomes.prefix(named).enumerated() {
            if case .answered(let status)? = outcome, i != Self.toleratedIndex { #expect(status >= 400, "case \(i) answered \(status)") }
        }
        // They reached the parser: most are answered with a status, not cut at accept.
        let answeredCount = outcomes.prefix(named).filter { if case .answered? = $0 { true } else { false } }.count
        #expect(answeredCount >= Self.namedAnsweredAtLeast, "\(answeredCount) of \(named) answered: \(outcomes.prefix(named))")
        let tally = Dictionary(grouping: outcomes.compactMap { $0 }, by: { "\($0)" }).mapValues(\.count)
        print("fuzz: \(answeredCount) of \(named) named cases answered; \(outcomes.count) requests: \(tally.sorted { $0.key < $1.key })")
        #expect(remote.tripod.process.isRunning)
        // The bracket completes: 5 frames saved.
        var status = ""
        _ = waitUntil(every: .milliseconds(200)) {
            status = remote.tripod.ask("status") ?? ""
            return status.contains("brackets=\"1 saved, 0 failed\"")
        }
        #expect(status.contains("brackets=\"1 saved, 0 failed\""), "\(status)")
        // The server answers the owner at once, then wrong tokens lock this address out.
        #expect(http.request("GET", "/api/status", headers: [remote.bearer])?.status == 200)
        for i in 0..<50 {
            _ = http.request("GET", "/api/status", headers: [("Authorization", "Bearer \(String(repeating: "f", count: i))")])
        }
        #expect(http.request("GET", "/api/status", headers: [remote.bearer])?.status == 429)
        #expect(remote.tripod.process.isRunning)
        #expect(remote.tripod.ask("status")?.hasPrefix("ok state=ready") == true)
    }
}
