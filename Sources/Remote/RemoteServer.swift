import Console
import Foundation
import Hardware
import Settings
import Transports

/// The browser remote (docs/remote.md): the page, the API over the console's operations, the
/// MJPEG preview and downloads, behind the token. Made and stopped by the supervisor as
/// `remote.listen` changes; serves a `RemoteHost`.
public final class RemoteServer: Sendable {
    public let preview: PreviewEncoder
    public let captures: CaptureFiles
    public let limiter: FailedAttemptLimiter
    /// The collection key's checks (signatures, this rig's name, used nonces), or nil: only the token opens it.
    public let collection: CollectionAccess?
    private let token: String
    private let runner: RemoteCommandRunner
    private let daemon: DaemonBox

    /// Listens on `address`:`port` (0: a free one; see `port`).
    /// `collection`: the group's read-only key (`remote.collect`) and this rig's name, whose
    /// `TripodCollect` signatures it accepts; nil: only the token opens it.
    public init(host: LoopBound<any RemoteHost>, address: String, port: Int, token: String, collection: CollectionAccess? = nil, captures: CaptureFiles,
                tls: TLSCredentials? = nil, limits: HTTPLimits = HTTPLimits(), limiter: FailedAttemptLimiter = FailedAttemptLimiter()) throws(RemoteError) {
        self.preview = PreviewEncoder()
        self.captures = captures
        self.limiter = limiter
        self.token = token
        self.collection = collection
        self.runner = RemoteCommandRunner(host: host)
        let box = DaemonBox()
        self.daemon = box
        let router = RemoteRouter(token: token, collection: collection, captures: captures, limiter: limiter, runner: runner, preview: preview, overTLS: tls != nil)
        do {
            box.daemon = try HTTPDaemon(address: address, port: port, limits: limits, tls: tls, headers: RemoteRouter.securityHeaders) { router.route($0) }
        } catch {
            preview.stop()
            throw error
        }
    }

    /// The port it listens on.
    public var port: Int { daemon.daemon?.port ?? 0 }
    /// "https" over TLS (`remote.tls`), else "http".
    public var scheme: String { daemon.daemon?.usesTLS == true ? "https" : "http" }

    /// Ends every stream and request, then stops listening (joins the connections' threads).
    public func stop() {
        runner.stop()
        preview.stop()
        daemon.daemon?.stop()
    }

    private final class DaemonBox: @unchecked Sendable { var daemon: HTTPDaemon? }
}

/// Where each request goes, after the token (HTTPDaemon calls it on the connection's thread).
struct RemoteRouter: Sendable {
    let token: String
    /// The read-only collection key's signatures, or nil (docs/collect.md).
    let collection: CollectionAccess?
    let captures: CaptureFiles
    let limiter: FailedAttemptLimiter
    let runner: RemoteCommandRunner
    let preview: PreviewEncoder
    /// Served over HTTPS: the cookie is `Secure`.
    let overTLS: Bool
    static let cookieName = "tripod_token"

    /// On every response (the daemon adds them, to its own refusals too): only this server's own
    /// files, in no frame, no Referer sent elsewhere, types as declared (docs/remote.md, "Security").
    static let securityHeaders = [
        ("Content-Security-Policy", "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
    ]

    /// The answer to `request`. A connection stays open (keep-alive) only after a request with
    /// the right token: other answers close it, so a peer without the token holds a connection
    /// for at most one head deadline.
    func route(_ request: HTTPRequest) -> HTTPResponse {
        let (response, authenticated) = answer(request)
        return authenticated ? response : response.adding([("Connection", "close")])
    }

    private func answer(_ request: HTTPRequest) -> (HTTPResponse, authenticated: Bool) {
        // The login page and its script and style (static, no secret), and the logout, are the only open paths.
        switch (request.method, request.path) {
        case ("GET", "/login"): return (RemotePage.login, false)
        case ("GET", "/app.js"): return (RemotePage.script, false)
        case ("GET", "/app.css"): return (RemotePage.style, false)
        case ("POST", "/logout"): return (.bytes(status: 204, contentType: "text/plain", body: [], headers: [("Set-Cookie", cookie(""))]), false)
        case ("POST", "/login"): break
        case (_, "/login"), (_, "/app.js"), (_, "/app.css"), (_, "/logout"): return (.text(405, "method not allowed"), false)
        default: break
        }
        switch credential(request) {
        case .failure(let refusal): return (refusal.response, false)
        case .success(let credential):
            let resource = Self.resource(request)
            if let resource, !OriginPolicy.mayRequest(resource, with: credential) {
                return (.text(403, OriginPolicy.requestRefusal(resource)), true)
            }
            return (authorized(request, resource), true)
        }
    }

    /// What `request` asks for, for the origin policy; nil for what is not found or not allowed
    /// (answered 404/405 whoever asks). The one routing table: `authorized` serves by its answer.
    static func resource(_ request: HTTPRequest) -> RemoteResource? {
        switch (request.method, request.path) {
        case ("POST", "/login"): return .login
        case ("GET", "/"): return .page
        case ("POST", "/api/command"): return .command
        case ("GET", "/api/status"): return .status
        case ("GET", "/api/formats"): return .formats
        case ("GET", "/api/settings"): return .settings
        case ("GET", "/api/captures"): return .captureList
        case ("GET", "/api/events"): return .events
        case ("GET", "/stream.mjpg"): return .preview
        case ("GET", _) where request.path.hasPrefix("/captures/"): return .download
        case ("GET", _) where request.path.hasPrefix("/api/shots/"): return .shotPart
        default: return nil
        }
    }

    /// The `Set-Cookie` value that keeps `token` in the browser (an empty token removes it):
    /// never readable by the page's script, never sent with another site's requests.
    func cookie(_ token: String) -> String {
        "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" + (overTLS ? "; Secure" : "") + (token.isEmpty ? "; Max-Age=0" : "")
    }

    /// The answer to a request whose credential may ask for `resource`. It serves by the resource
    /// `resource(_:)` named, never by the path again, so nothing is served that the origin policy
    /// did not judge.
    private func authorized(_ request: HTTPRequest, _ resource: RemoteResource?) -> HTTPResponse {
        guard let resource else {
            switch request.path {
            case "/", "/api/command", "/api/status", "/api/formats", "/api/settings", "/api/captures", "/api/events", "/stream.mjpg":
                return .text(405, "method not allowed")
            default:
                return .text(404, "not found")
            }
        }
        switch resource {
        // The login: the token came in the Authorization header and is right; the browser keeps it
        // as an HttpOnly cookie for what cannot send the header (the preview, downloads, events).
        case .login:
            return .bytes(status: 204, contentType: "text/plain", body: [], headers: [("Set-Cookie", cookie(token)), ("Cache-Control", "no-store")])
        case .page: return RemotePage.page
        case .command: return command(request)
        case .status: return console("status")
        case .formats: return console("formats")
        case .settings: return settings()
        case .captureList: return captureList()
        case .events: return events()
        case .preview:
            return .stream(contentType: "multipart/x-mixed-replace; boundary=\(MJPEGStream.boundary)", headers: [],
                           body: MJPEGStream(encoder: preview))
        case .download:
            return download(String(request.path.dropFirst("/captures/".count)), range: request.header("Range"))
        case .shotPart:
            return shotPart(String(request.path.dropFirst("/api/shots/".count)))
        }
    }

    /// A refusal's response (the error side of `credential`).
    struct Refused: Error { let response: HTTPResponse }

    /// The credential the request showed, or its refusal. The token comes as `Authorization: Bearer` (API clients, the
    /// page's commands) or, for GETs only, the login's cookie (the preview `<img>`, downloads,
    /// EventSource, which cannot send headers). A POST with the cookie alone is refused: another
    /// site can make a browser send the cookie, never the header (CSRF). The collection key is
    /// never sent: its holder signs each request (`Authorization: TripodCollect ...`,
    /// `CollectionAccess`); the key itself as a bearer is a wrong token.
    func credential(_ request: HTTPRequest) -> Result<RemoteCredential, Refused> {
        guard limiter.allows(request.client) else {
            return .failure(Refused(response: .text(429, "too many wrong tokens from \(request.client); wait a minute", headers: [("Retry-After", "60")])))
        }
        if let authorization = request.header("Authorization"), CollectSignature.isSignature(authorization) {
            return signed(request, authorization)
        }
        let bearer = request.header("Authorization").flatMap { value -> String? in
            let parts = value.split(separator: " ", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "bearer" ? String(parts[1]).trimmingCharacters(in: .whitespaces) : nil
        }
        let cookie = request.header("Cookie").flatMap(Self.cookieToken)
        let given: String?
        if request.method == "GET" || request.method == "HEAD" {
            given = bearer ?? cookie
        } else {
            guard let bearer else {
                return .failure(Refused(response: .text(cookie == nil ? 401 : 403,
                             cookie == nil ? "a token is needed: Authorization: Bearer <token> (tripod ctl remote token)"
                                           : "commands need the Authorization header, not only the cookie")))
            }
            given = bearer
        }
        guard let given else {
            if request.path == "/" { return .failure(Refused(response: .bytes(status: 303, contentType: "text/plain", body: [], headers: [("Location", "/login")]))) }
            return .failure(Refused(response: .text(401, "a token is needed: Authorization: Bearer <token> (tripod ctl remote token)",
                                                    headers: [("WWW-Authenticate", "Bearer")])))
        }
        if RemoteToken.matches(given, token) { return .success(.token) }
        limiter.failed(request.client)
        return .failure(Refused(response: .text(401, "wrong token", headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\"")])))
    }

    /// A request signed with the collection key: the collection credential when the signature is
    /// for this rig, right and new; otherwise 401, counted as a wrong token.
    private func signed(_ request: HTTPRequest, _ authorization: String) -> Result<RemoteCredential, Refused> {
        let verdict = collection?.verify(authorization, method: request.method, path: request.path) ?? .failure(.unavailable)
        switch verdict {
        case .success: return .success(.collectionKey)
        case .failure(let refusal):
            limiter.failed(request.client)
            let words = collection == nil ? "this rig accepts no collection key (\(SettingsTable.remoteCollect.key))" : refusal.description
            return .failure(Refused(response: .text(401, words, headers: [("WWW-Authenticate", CollectSignature.scheme)])))
        }
    }

    static func cookieToken(_ header: String) -> String? {
        for item in header.split(separator: ";") {
            let pair = item.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix(cookieName + "=") { return String(pair.dropFirst(cookieName.count + 1)) }
        }
        return nil
    }

    /// `POST /api/command`: the body is one console line; the reply is the console's JSON reply.
    func command(_ request: HTTPRequest) -> HTTPResponse {
        guard let line = String(validating: request.body, as: UTF8.self) else { return .text(400, "the line is not UTF-8") }
        let trimmed = line.hasSuffix("\n") ? String(line.dropLast()) : line
        guard !trimmed.contains("\n"), !trimmed.contains("\r") else { return .text(400, "one console line per request") }
        // The console answers no empty line: the request would wait for a reply until its timeout.
        guard !trimmed.allSatisfy(\.isWhitespace) else { return .text(400, "an empty line") }
        guard !trimmed.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
            return .text(400, "control characters in the line")
        }
        return console(trimmed)
    }

    func console(_ line: String) -> HTTPResponse {
        guard let reply = runner.run(line) else { return .text(503, "no reply from the supervisor in time") }
        return .json(200, reply)
    }

    /// `GET /api/settings`: the settings table with each value in force.
    func settings() -> HTTPResponse {
        guard let current = runner.onLoop({ $0.settingsInForce }) else { return .text(503, "no reply from the supervisor in time") }
        return .json(200, SettingsJSON.table(current))
    }

    func captureList() -> HTTPResponse {
        let items = captures.list().map { e in
            "{\"path\":\(ReplyFormatter.jsonString(e.path)),\"bytes\":\(e.bytes),\"modified\":\(e.modified)}"
        }
        return .json(200, "{\"captures\":[" + items.joined(separator: ",") + "]}")
    }

    func events() -> HTTPResponse {
        let host = runner.host
        let holder = SessionHolder()
        let stream = EventStream(stopping: runner.stopping) {
            host.loop.execute {
                guard let session = holder.session?.value, !session.isClosed else { return }
                host.value.detach(session)
            }
        }
        host.loop.execute {
            let session = host.value.attach(name: "remote-events", kind: .remote, output: stream)
            session.mode = .json
            holder.session = LoopBound(session, loop: host.loop)
        }
        return .stream(contentType: "text/event-stream", headers: [], body: stream)
    }

    /// `GET /captures/<path>`: the file, whole or one range.
    func download(_ relative: String, range header: String?) -> HTTPResponse {
        let file: CaptureFiles.OpenFile
        do throws(CaptureFiles.Refusal) { file = try captures.open(relative) }
        catch { return error == .badPath ? .text(400, "not a captures path") : .text(404, "no such capture") }
        let type = [("Content-Type", CaptureFiles.contentType(relative)), ("Accept-Ranges", "bytes")]
        switch ByteRange(header: header, size: file.size) {
        case .whole:
            return .file(status: 200, descriptor: file.descriptor, offset: 0, length: file.size, headers: type)
        case .part(let first, let last):
            return .file(status: 206, descriptor: file.descriptor, offset: first, length: last - first + 1,
                         headers: type + [("Content-Range", "bytes \(first)-\(last)/\(file.size)")])
        case .unsatisfiable:
            close(file.descriptor)
            return .text(416, "range not satisfiable", headers: [("Content-Range", "bytes */\(file.size)")])
        }
    }
}

/// The event stream's session, set on the loop once attached.
private final class SessionHolder: @unchecked Sendable {
    var session: LoopBound<ConsoleSession>?
}

