import Foundation
import Testing
import Settings
import TestSupport

/// The remote over HTTP, against `tripod run` on the simulated board, listening on 127.0.0.1 on a
/// port the system picked: each security point tried and refused, the API, the preview, downloads.
@Suite(.serialized) struct RemoteHTTPTests {
    @Test func everyEndpointButTheLoginNeedsTheToken() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        // The login page, its script and its style are open; nothing else is.
        for open in ["/login", "/app.js", "/app.css"] { #expect(http.request("GET", open)?.status == 200, "\(open)") }
        let page = http.request("GET", "/")
        #expect(page?.status == 303 && page?.header("Location") == "/login")
        for path in ["/api/status", "/api/settings", "/api/formats", "/api/captures", "/api/events",
                     "/stream.mjpg", "/captures/anything.jpg"] {
            let response = http.request("GET", path)
            #expect(response?.status == 401, "\(path): \(response?.status ?? 0)")
        }
        #expect(http.request("POST", "/api/command", body: Array("status".utf8))?.status == 401)
        // A wrong token of the right length, and the right one sent another way.
        let wrong = String(repeating: "0", count: 64)
        #expect(http.request("GET", "/api/status", headers: [("Authorization", "Bearer \(wrong)")])?.status == 401)
        #expect(http.request("GET", "/api/status", headers: [("Authorization", "Basic \(remote.token)")])?.status == 401)
        let status = http.request("GET", "/api/status", headers: [remote.bearer])
        #expect(status?.status == 200)
        #expect(status?.json?["ok"] as? Bool == true)
        #expect(http.request("GET", "/", headers: [("Cookie", "tripod_token=\(remote.token)")])?.status == 200)
    }

    @Test func wrongTokensLockTheClientOutEvenWithTheRightOneAfterwards() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        for i in 0..<5 {
            let guess = String(repeating: String(i), count: 64)
            #expect(http.request("GET", "/api/status", headers: [("Authorization", "Bearer \(guess)")])?.status == 401)
        }
        let locked = http.request("GET", "/api/status", headers: [remote.bearer])
        #expect(locked?.status == 429, "\(locked?.status ?? 0)")
        #expect(locked?.header("Retry-After") == "60")
        // The console is not locked out.
        #expect(remote.tripod.ask("status")?.hasPrefix("ok") == true)
    }

    @Test func aCommandWithTheCookieAloneIsRefused() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        let forged = http.request("POST", "/api/command", headers: [("Cookie", "tripod_token=\(remote.token)"), ("Content-Type", "text/plain")],
                                  body: Array("set exposure.iso 800".utf8))
        #expect(forged?.status == 403, "\(forged?.status ?? 0)")
        // The stored value; `active=` may follow while the camera's frames still report the last one.
        #expect(remote.tripod.ask("get exposure.iso")?.split(separator: " ").prefix(2) == ["ok", "exposure.iso=100"])
        let allowed = http.request("POST", "/api/command", headers: [remote.bearer], body: Array("set exposure.iso 800".utf8))
        #expect(allowed?.status == 200)
        #expect(remote.tripod.ask("get exposure.iso")?.split(separator: " ").prefix(2) == ["ok", "exposure.iso=800"])
    }

    @Test func aCommandsReplyIsTheConsolesJSONReply() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        guard let fd = RunningTripod.connect(remote.tripod.socket) else { Issue.record("no control socket"); return }
        defer { close(fd) }
        RunningTripod.send(fd, "json on\n")
        _ = readLine(fd)
        for line in ["get exposure.iso", "set exposure.bias +0.5", "set nosuch 1", "frobnicate", "preset list"] {
            RunningTripod.send(fd, line + "\n")
            let console = readLine(fd)
            let web = http.request("POST", "/api/command", headers: [remote.bearer], body: Array(line.utf8))
            #expect(web?.status == 200)
            #expect(web?.text == console, "\(line)")
        }
        // One line per request.
        #expect(http.request("POST", "/api/command", headers: [remote.bearer], body: Array("status\nstatus".utf8))?.status == 400)
        // status and formats are the console's replies too.
        let formats = http.request("GET", "/api/formats", headers: [remote.bearer])?.json
        #expect((formats?["lines"] as? [String])?.isEmpty == false)
        let status = http.request("GET", "/api/status", headers: [remote.bearer])?.json?["values"] as? [String: String]
        #expect(status?["state"] == "ready")
    }

    /// The console's JSON reply lines (events skipped).
    func readLine(_ fd: Int32) -> String? {
        var pending: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if byte == 0x0A {
                let line = String(decoding: pending, as: UTF8.self)
                if line.hasPrefix("{\"type\":\"reply\"") { return line }
                pending = []
            } else { pending.append(byte) }
        }
        return nil
    }

    @Test func theSettingsTableIsServedWithTheValuesInForce() throws {
        let remote = try RemoteFixture()
        let json = remote.client.request("GET", "/api/settings", headers: [remote.bearer])?.json
        let settings = json?["settings"] as? [[String: Any]] ?? []
        #expect(settings.compactMap { $0["key"] as? String } == SettingsTable.all.map(\.key))
        let byKey = Dictionary(uniqueKeysWithValues: settings.compactMap { s in (s["key"] as? String).map { ($0, s) } })
        #expect(byKey["remote.listen"]?["value"] as? String == "127.0.0.1:0")
        #expect(byKey["exposure.mode"]?["choices"] as? [String] == ["auto", "locked", "custom"])
        #expect(byKey["video.fps"]?["unit"] as? String == "fps")
        #expect(byKey["video.fps"]?["minimum"] as? Int == 1 && byKey["video.fps"]?["maximum"] as? Int == 240)
        #expect(byKey["exposure.duration"]?["selects"] as? String == "exposure.mode")
    }

    @Test func downloadsAreByteIdenticalWithRangesAndStayInsideTheCaptures() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        #expect(remote.tripod.ask("capture")?.hasPrefix("ok") == true)
        var listed: [[String: Any]] = []
        _ = waitUntil(seconds: 30, every: .milliseconds(200)) {
            listed = http.request("GET", "/api/captures", headers: [remote.bearer])?.json?["captures"] as? [[String: Any]] ?? []
            return listed.contains(where: { ($0["path"] as? String)?.hasSuffix(".json") == true })
        }
        guard let path = listed.compactMap({ $0["path"] as? String }).first(where: { $0.hasSuffix(".jpg") }) else {
            Issue.record("no JPEG listed: \(listed)"); return
        }
        let onDisk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: remote.tripod.captures + "/" + path)))
        let whole = http.request("GET", "/captures/" + path, headers: [remote.bearer])
        #expect(whole?.status == 200 && whole?.header("Content-Type") == "image/jpeg")
        #expect(whole?.body == onDisk)
        let part = http.request("GET", "/captures/" + path, headers: [remote.bearer, ("Range", "bytes=100-1099")])
        #expect(part?.status == 206)
        #expect(part?.header("Content-Range") == "bytes 100-1099/\(onDisk.count)")
        #expect(part?.body == Array(onDisk[100...1099]))
        let tail = http.request("GET", "/captures/" + path, headers: [remote.bearer, ("Range", "bytes=-16")])
        #expect(tail?.body == Array(onDisk.suffix(16)))
        let beyond = http.request("GET", "/captures/" + path, headers: [remote.bearer, ("Range", "bytes=\(onDisk.count)-")])
        #expect(beyond?.status == 416)
        // Out of the directory: a file beside it, reached by .., its encoded form, an absolute path, a symlink.
        try Data("secret".utf8).write(to: URL(fileURLWithPath: remote.tripod.work + "/secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: remote.tripod.captures + "/link.txt", withDestinationPath: remote.tripod.work + "/secret.txt")
        for (trick, expected) in [("/captures/../secret.txt", [400, 404]), ("/captures/%2e%2e/secret.txt", [400]),
                                  ("/captures/%2E%2E%2Fsecret.txt", [400]), ("/captures//etc/passwd", [400]),
                                  ("/captures/%2Fetc%2Fpasswd", [400]), ("/captures/link.txt", [404])] {
            let response = http.request("GET", trick, headers: [remote.bearer])
            #expect(expected.contains(response?.status ?? 0), "\(trick): \(response?.status ?? 0)")
            #expect(response?.text.contains("secret") == false)
        }
        // An escaped NUL anywhere in the URL: unescaped as a C string, `a.jpg%00.txt` would be a.jpg.
        for trick in ["/captures/" + path + "%00.txt", "/captures/" + path + "%00/../../secret.txt", "/api/status?x=%00"] {
            let response = http.request("GET", trick, headers: [remote.bearer])
            #expect(response?.status == 400 && response?.text.contains("a NUL (%00) in the URL") == true,
                    "\(trick): \(response?.status ?? 0)")
            let servedTheFile = response?.body == onDisk
            #expect(!servedTheFile, "\(trick) served the file")
        }
        // The marker only refuses: the same file without the NUL is still served on the next request.
        let again = http.request("GET", "/captures/" + path, headers: [remote.bearer])?.body == onDisk
        #expect(again)
    }

    @Test func thePreviewStreamsChangingJPEGsAbout640Wide() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        guard let fd = http.connect() else { Issue.record("cannot connect"); return }
        defer { close(fd) }
        http.send(fd, Array("GET /stream.mjpg HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(remote.token)\r\n\r\n".utf8))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var frames: [[UInt8]] = []
        let deadline = Date().addingTimeInterval(20)
        while frames.count < 4, Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data += buffer[0..<n]
            frames = MJPEGParts.jpegs(in: data)
        }
        #expect(String(decoding: data.prefix(200), as: UTF8.self).contains("multipart/x-mixed-replace; boundary=tripodframe"))
        #expect(frames.count >= 4, "\(frames.count) frames")
        for frame in frames { #expect(frame.prefix(2) == [0xFF, 0xD8] && frame.suffix(2) == [0xFF, 0xD9]) }
        #expect(Set(frames).count > 1, "the frames change")
        #expect(frames.first.flatMap(MJPEGParts.jpegWidth) == 640)
        // Each part carries its frame's SensorTimestamp, later for a later frame.
        let stamps = MJPEGParts.parts(in: data).compactMap(\.sensorTimestamp)
        #expect(stamps.count == frames.count && stamps == stamps.sorted() && Set(stamps).count == stamps.count)
        // `remote preview` counts the encoder's work: one watcher, at least the JPEGs it received.
        let counts = Dictionary(uniqueKeysWithValues: (remote.tripod.ask("remote preview") ?? "").split(separator: " ").dropFirst().compactMap {
            field -> (String, Int)? in
            let pair = field.split(separator: "=")
            return pair.count == 2 ? (String(pair[0]), Int(pair[1]) ?? -1) : nil
        })
        #expect(counts["watchers"] == 1)
        #expect((counts["encoded"] ?? 0) >= frames.count && (counts["accepted"] ?? 0) >= (counts["encoded"] ?? 0))
        #expect((counts["offered"] ?? 0) >= (counts["accepted"] ?? 0))
    }

    @Test func eventsArriveAsServerSentEvents() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        guard let fd = http.connect() else { Issue.record("cannot connect"); return }
        defer { close(fd) }
        http.send(fd, Array("GET /api/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(remote.token)\r\n\r\n".utf8))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // The stream opens before the capture is asked for.
        while !String(decoding: data, as: UTF8.self).contains("tripod events") {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        #expect(remote.tripod.ask("capture")?.hasPrefix("ok") == true)
        let deadline = Date().addingTimeInterval(30)
        while !String(decoding: data, as: UTF8.self).contains("\"event\":\"bracket.done\""), Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("text/event-stream"))
        #expect(text.contains("data: {\"type\":\"event\",\"event\":\"bracket.started\""))
        #expect(text.contains("data: {\"type\":\"event\",\"event\":\"bracket.done\""))
        #expect(!text.contains("\"type\":\"reply\""), "the stream carries events, not replies")
    }

    @Test func oversizedAndSlowRequestsAreRefusedAndTheSupervisorGoesOn() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        let big = http.request("POST", "/api/command", headers: [remote.bearer], body: Array(repeating: UInt8(ascii: "a"), count: 5000))
        #expect(big?.status == 413)
        let headers = (0..<60).map { ("X-Filler-\($0)", "1") }
        #expect(http.request("GET", "/api/status", headers: [remote.bearer] + headers)?.status == 431)
        let huge = http.request("GET", "/api/status", headers: [remote.bearer, ("X-Huge", String(repeating: "h", count: 40_000))])
        #expect(huge == nil || (huge?.status ?? 0) >= 400, "\(huge?.status ?? 0)")
        // A client that sends half a request line and stops is closed at the head deadline (10 s).
        if let slow = http.connect(timeoutSeconds: 40) {
            http.send(slow, Array("GET /api/sta".utf8))
            let started = Date()
            let rest = http.readAll(slow)
            #expect(Date().timeIntervalSince(started) < 35, "closed by the server")
            _ = rest
            close(slow)
        }
        #expect(http.request("GET", "/api/status", headers: [remote.bearer])?.status == 200)
        #expect(remote.tripod.ask("status")?.hasPrefix("ok") == true)
    }

    /// remote.listen and remote.tls never change over the remote itself (a new address or TLS would
    /// cut the connection the change came on): `set` and a `reset` that would move them are refused
    /// in words naming where they can change, the server listens on, the table marks them read-only.
    @Test func theRemoteSettingsCannotChangeOverTheRemote() throws {
        let remote = try RemoteFixture()
        let http = remote.client
        let before = remote.tripod.ask("get remote.listen")
        for line in ["set remote.listen off", "set remote.listen 127.0.0.1:1", "set remote.tls /no/such.crt /no/such.key", "reset"] {
            let reply = http.request("POST", "/api/command", headers: [remote.bearer], body: Array(line.utf8))?.json
            #expect(reply?["ok"] as? Bool == false, "\(line)")
            #expect(reply?["code"] as? String == "denied", "\(line)")
            let message = reply?["message"] as? String ?? ""
            #expect(message.contains("console") && message.contains("config file"), "\(line): \(message)")
        }
        #expect(remote.tripod.ask("get remote.listen") == before)
        #expect(http.request("GET", "/api/status", headers: [remote.bearer])?.status == 200)
        // Even to the value it has: the remote never sets a remote.* key.
        let same = http.request("POST", "/api/command", headers: [remote.bearer], body: Array("set remote.tls off".utf8))?.json
        #expect(same?["code"] as? String == "denied")
        let settings = http.request("GET", "/api/settings", headers: [remote.bearer])?.json?["settings"] as? [[String: Any]] ?? []
        #expect(!settings.isEmpty)
        for setting in settings {
            let key = setting["key"] as? String ?? ""
            let ownerOnly = key.hasPrefix("remote.") || key.hasPrefix("fleet.") || key.hasPrefix("stream.")
            #expect((setting["readOnly"] != nil) == ownerOnly, "\(key)")
        }
        // The console changes them.
        #expect(remote.tripod.ask("set remote.listen off")?.hasPrefix("ok") == true)
        #expect(remote.client.connect() == nil)
    }

    /// `remote.listen [::1]:0` listens on the IPv6 loopback (IPv6 only: 127.0.0.1 no longer
    /// answers), the token is needed there as on IPv4. Skipped only without an IPv6 loopback.
    @Test(.enabled(if: HTTPTestClient.hasIPv6Loopback, "no IPv6 loopback (::1) on this machine"))
    func anIPv6AddressListens() throws {
        let remote = try RemoteFixture()
        #expect(remote.tripod.ask("set remote.listen [::1]:0")?.hasPrefix("ok remote.listen=[::1]:0") == true)
        let got = remote.tripod.ask("get remote.listen") ?? ""
        let active = got.split(separator: " ").first { $0.hasPrefix("active=[::1]:") }
        let port = try #require(active.flatMap { Int($0.split(separator: ":").last ?? "") }, "\(got)")
        let http = HTTPTestClient(port: port, ipv6: true)
        #expect(http.request("GET", "/api/status")?.status == 401)
        let status = http.request("GET", "/api/status", headers: [remote.bearer])
        #expect(status?.status == 200)
        #expect(status?.json?["ok"] as? Bool == true)
        #expect(HTTPTestClient(port: port).connect() == nil, "127.0.0.1 is not listened on")
        #expect(remote.tripod.ask("set remote.listen [::]:8080x")?.hasPrefix("err") == true)
    }

    @Test func turningTheRemoteOffClosesTheListener() throws {
        let remote = try RemoteFixture()
        #expect(remote.tripod.ask("set remote.listen off")?.hasPrefix("ok") == true)
        #expect(remote.client.connect() == nil)
        #expect(remote.tripod.ask("get remote.listen") == "ok remote.listen=off")
    }
}
