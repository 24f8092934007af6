import Foundation
import Testing
import TestSupport

/// `remote.tls`: the remote over HTTPS with a certificate made here by openssl, checked by curl
/// (another TLS stack than the server's GnuTLS); keys others can read and files that are not PEM
/// are refused at `set`, and a plain HTTP client gets no page from the HTTPS port.
@Suite(.serialized) struct RemoteTLSTests {
    /// A self-signed certificate for 127.0.0.1 and its key, in a fresh directory.
    struct Certificate {
        let directory: String
        var certificate: String { directory + "/remote.crt" }
        var key: String { directory + "/remote.key" }

        init() throws {
            directory = NSTemporaryDirectory() + "tripod-tls-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            _ = try runTool("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                                 "-nodes", "-keyout", directory + "/remote.key", "-out", directory + "/remote.crt",
                                                 "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        }

        func chmod(_ path: String, _ mode: Int) throws {
            try FileManager.default.setAttributes([.posixPermissions: NSNumber(value: mode)], ofItemAtPath: path)
        }
    }

    /// curl's status line code and body for `url`, or its exit status when it fails (60: the
    /// certificate is not trusted; 35: no TLS handshake).
    func curl(_ arguments: [String]) -> (exit: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--silent", "--max-time", "20", "--noproxy", "*"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, "curl: \(error)") }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func theRemoteServesHTTPSWithTheCertificateItIsGiven() throws {
        let cert = try Certificate()
        try cert.chmod(cert.key, 0o600)
        let tripod = try RunningTripod()
        let set = tripod.ask("set remote.tls \(cert.certificate) \(cert.key)") ?? ""
        #expect(set.hasPrefix("ok"), "\(set)")
        #expect(tripod.ask("set remote.listen 127.0.0.1:0")?.hasPrefix("ok") == true)
        let listen = tripod.ask("get remote.listen") ?? ""
        let port = listen.split(separator: " ").first { $0.hasPrefix("active=127.0.0.1:") }.flatMap { Int($0.split(separator: ":").last ?? "") }
        guard let port else { Issue.record("get remote.listen: \(listen)"); return }
        #expect(tripod.ask("get remote.tls")?.contains("active=https") == true)
        let token = String((tripod.ask("remote token") ?? "").dropFirst("ok token=".count))
        let url = "https://127.0.0.1:\(port)/api/status"

        // Trusted through the certificate: the API answers, and still needs the token.
        let status = curl(["--cacert", cert.certificate, "-H", "Authorization: Bearer \(token)", url])
        #expect(status.exit == 0, "curl exit \(status.exit)")
        #expect(status.output.contains("\"ok\":true"), "\(status.output.prefix(200))")
        let anonymous = curl(["--cacert", cert.certificate, "-o", "/dev/null", "-w", "%{http_code}", url])
        #expect(anonymous.output == "401", "\(anonymous.output)")
        // Over TLS the login's cookie is Secure as well as HttpOnly and SameSite=Strict.
        let login = curl(["--cacert", cert.certificate, "-X", "POST", "-H", "Authorization: Bearer \(token)", "-D", "-", "-o", "/dev/null",
                          "https://127.0.0.1:\(port)/login"])
        let cookie = login.output.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }.map(String.init) ?? ""
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Secure"), "\(cookie)")
        // Without the certificate curl does not trust the server (exit 60), so TLS is really in use.
        #expect(curl(["-o", "/dev/null", url]).exit == 60)
        // A plain HTTP request to the HTTPS port gets no HTTP response.
        let plain = HTTPTestClient(port: port).request("GET", "/api/status", headers: [("Authorization", "Bearer \(token)")])
        #expect(plain == nil || plain?.status == 0, "\(plain?.status ?? -1)")

        // Back to plain HTTP: the same port number is not kept, but HTTP works again.
        #expect(tripod.ask("set remote.tls off")?.hasPrefix("ok") == true)
        let again = tripod.ask("get remote.listen") ?? ""
        let plainPort = again.split(separator: " ").first { $0.hasPrefix("active=127.0.0.1:") }.flatMap { Int($0.split(separator: ":").last ?? "") }
        #expect(HTTPTestClient(port: plainPort ?? 0).request("GET", "/api/status", headers: [("Authorization", "Bearer \(token)")])?.status == 200)
    }

    @Test func keysOthersCanReadAndFilesThatAreNotPEMAreRefusedAtSet() throws {
        let cert = try Certificate()
        let tripod = try RunningTripod()
        try cert.chmod(cert.key, 0o644)
        let readable = tripod.ask("set remote.tls \(cert.certificate) \(cert.key)") ?? ""
        #expect(readable.hasPrefix("err") && readable.contains("600"), "\(readable)")
        try cert.chmod(cert.key, 0o600)
        let missing = tripod.ask("set remote.tls \(cert.directory)/none.crt \(cert.key)") ?? ""
        #expect(missing.hasPrefix("err") && missing.contains("cannot read"), "\(missing)")
        try cert.chmod(cert.certificate, 0o600)
        let swapped = tripod.ask("set remote.tls \(cert.key) \(cert.certificate)") ?? ""
        #expect(swapped.hasPrefix("err") && swapped.contains("not a PEM certificate"), "\(swapped)")
        let relative = tripod.ask("set remote.tls remote.crt remote.key") ?? ""
        #expect(relative.hasPrefix("err") && relative.contains("CERTFILE KEYFILE"), "\(relative)")
        // Nothing changed: the setting is still off.
        #expect(tripod.ask("get remote.tls")?.hasPrefix("ok remote.tls=off") == true)
        #expect(tripod.ask("set remote.tls \(cert.certificate) \(cert.key)")?.hasPrefix("ok") == true)
    }

    @Test func aKeyThatDoesNotMatchTheCertificateLeavesTheRemoteOffAndSaysWhy() throws {
        let cert = try Certificate()
        let other = try Certificate()
        try cert.chmod(other.key, 0o600)
        let tripod = try RunningTripod()
        #expect(tripod.ask("set remote.tls \(cert.certificate) \(other.key)")?.hasPrefix("ok") == true)
        #expect(tripod.ask("set remote.listen 127.0.0.1:0")?.hasPrefix("ok") == true)
        let listen = tripod.ask("get remote.listen") ?? ""
        #expect(listen.contains("failed"), "\(listen)")
        #expect(tripod.ask("status")?.hasPrefix("ok") == true, "the supervisor goes on")
    }
}
