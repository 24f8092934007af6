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
        let cases: [String] = [
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
            "POST /api/command HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: 4\r\n\r\n\u{FF}\u{FE}\u{0}\u{1}",
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
        // Random bytes, and random mutations of a good request.
        let good = Array("GET /api/status HTTP/1.1\r\nHost: x\r\n\(auth)\r\n".utf8)
        var out = cases.map { Array($0.utf8) }
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

    @Test func badRequestsDuringABracketLeaveTheSupervisorAndTheBracketWhole() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        #expect(remote.tripod.ask("bracket ev 5 1")?.hasPrefix("ok") == true)
        var random = Seeded(state: 28)
        let inputs = Self.cases(token: remote.token, random: &random)
        // Slowloris: connections that send a byte now and then, held while the rest runs.
        let crowd = (0..<20).compactMap { _ in http.connect(timeoutSeconds: 1) }
        for fd in crowd { http.send(fd, Array("GET /api/status HTTP/1.1\r\nHo".utf8)) }
        for input in inputs {
            guard let fd = http.connect(timeoutSeconds: 2) else { continue }  // the per-address limit, while the crowd holds
            http.send(fd, input)
            shutdown(fd, Int32(SHUT_WR))
            _ = http.readAll(fd, limit: 1 << 20)
            close(fd)
        }
        crowd.forEach { close($0) }
        #expect(remote.tripod.process.isRunning)
        // The bracket completes: 5 frames saved.
        var status = ""
        let deadline = Date().addingTimeInterval(60)
        while !status.contains("brackets=\"1 saved, 0 failed\""), Date() < deadline {
            status = remote.tripod.ask("status") ?? ""
            usleep(200_000)
        }
        #expect(status.contains("brackets=\"1 saved, 0 failed\""), "\(status)")
        // The server still answers, then wrong tokens lock this address out, and it still answers.
        var answered: HTTPTestClient.Response?
        let again = Date().addingTimeInterval(30)
        while answered?.status != 200, Date() < again {
            answered = http.request("GET", "/api/status", headers: [remote.bearer])
            if answered?.status != 200 { usleep(200_000) }
        }
        #expect(answered?.status == 200)
        for i in 0..<50 {
            _ = http.request("GET", "/api/status", headers: [("Authorization", "Bearer \(String(repeating: "f", count: i))")])
        }
        #expect(http.request("GET", "/api/status", headers: [remote.bearer])?.status == 429)
        #expect(remote.tripod.process.isRunning)
        #expect(remote.tripod.ask("status")?.hasPrefix("ok state=ready") == true)
    }
}
