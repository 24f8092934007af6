import CMicroHTTPD
import CMicroHTTPDShim
import Foundation
import Hardware
import Settings
import Syscalls

/// What a hostile or slow client is allowed (docs/remote.md, "Limits").
public struct HTTPLimits: Sendable {
    /// Connections open at once (each has a thread); more are refused by libmicrohttpd. Over twice
    /// `connectionsPerAddress`, so two addresses cannot fill it.
    public var connections = 64
    /// Connections open at once from one address (16 viewers and a few requests beside them).
    public var connectionsPerAddress = 20
    /// A request (line, headers and body) not all in this long after accept (or after the
    /// previous request's end) closes the connection, however many bytes trickle in (slowloris).
    public var headDeadline: Duration = .seconds(10)
    /// A connection with no traffic for this long is closed (libmicrohttpd's timeout; every byte resets it).
    public var idleTimeoutSeconds = 15
    /// Memory per connection for the request line and headers: a bigger request head is refused (431/413).
    public var requestHeadBytes = 32 << 10
    /// Headers per request at most.
    public var headerCount = 48
    /// A request body (a console line) at most.
    public var bodyBytes = 4096

    public init() {}
}

/// One request, read on its connection's thread: what the router sees.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path as libmicrohttpd unescaped it, without the query.
    public var path: String
    /// The headers the router reads, by lower-case name (Authorization, Cookie, Range, ...).
    public var headers: [String: String]
    public var body: [UInt8]
    /// The client's IP address as text.
    public var client: String

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A body written as the client reads it (MJPEG, server-sent events), on the connection's thread.
public protocol HTTPStreamBody: AnyObject, Sendable {
    /// Fills `buffer`; returns the bytes written, 0 when nothing is ready yet (after a bounded
    /// wait), or nil at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int?
    /// The client went away or the server stops: release what the stream holds.
    func finished()
}

/// What the router answers.
public enum HTTPResponse: Sendable {
    case bytes(status: Int, contentType: String, body: [UInt8], headers: [(String, String)])
    /// `length` bytes of the open file `descriptor` from `offset`; libmicrohttpd closes it.
    case file(status: Int, descriptor: Int32, offset: UInt64, length: UInt64, headers: [(String, String)])
    case stream(contentType: String, headers: [(String, String)], body: any HTTPStreamBody)

    public static func text(_ status: Int, _ text: String, headers: [(String, String)] = []) -> HTTPResponse {
        .bytes(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8), headers: headers)
    }

    public static func json(_ status: Int, _ json: String, headers: [(String, String)] = []) -> HTTPResponse {
        .bytes(status: status, contentType: "application/json", body: Array(json.utf8), headers: headers)
    }

    /// The same response with `more` headers after its own.
    public func adding(_ more: [(String, String)]) -> HTTPResponse {
        switch self {
        case .bytes(let status, let type, let body, let headers): .bytes(status: status, contentType: type, body: body, headers: headers + more)
        case .file(let status, let fd, let offset, let length, let headers): .file(status: status, descriptor: fd, offset: offset, length: length, headers: headers + more)
        case .stream(let type, let headers, let body): .stream(contentType: type, headers: headers + more, body: body)
        }
    }
}

/// A libmicrohttpd daemon with a thread per connection: requests are read (head, then a body up
/// to `HTTPLimits.bodyBytes`) and handed to `handler` on the connection's thread, which may block
/// (waiting for the loop, or for the next preview frame) without holding other clients.
public final class HTTPDaemon: @unchecked Sendable {
    public let limits: HTTPLimits
    /// The port it listens on (the one the system picked when asked for port 0).
    public private(set) var port = 0
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    /// The request heads' deadline and its reaper thread.
    let deadlines: HeadDeadlines
    /// Added to every response, the daemon's own refusals included (the remote's security headers).
    let everyResponse: [(String, String)]
    private var daemon: OpaquePointer?

    /// Whether it serves HTTPS.
    public let usesTLS: Bool

    /// The nice value of a connection's thread once it has served a file (a capture download, a
    /// collector's transfer), for the rest of that connection. The sensor, the encoder and the
    /// loop stay at 0, so a rig being collected keeps its cadence: when both want a core, a nice-10
    /// thread gets about a tenth of a nice-0 one's share (the kernel's weights 110 and 1024).
    public static let fileServingNice: Int32 = 10

    /// Starts listening on the IPv4 or IPv6 `address`:`port` (MHD_start_daemon through
    /// tripod_mhd_start), over TLS when `tls` is given (GnuTLS inside libmicrohttpd). `headers`
    /// go on every response it sends, its own refusals (400, 413, 431) included.
    public init(address: String, port: Int, limits: HTTPLimits, tls: TLSCredentials? = nil, headers: [(String, String)] = [],
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(RemoteError) {
        self.limits = limits
        self.everyResponse = headers
        self.usesTLS = tls != nil
        if tls != nil, tripod_mhd_supports_tls() != 1 {
            throw RemoteError("remote: this libmicrohttpd was built without TLS, so \(SettingsTable.remoteTLS.key) cannot be served; set \(SettingsTable.remoteTLS.key) off")
        }
        self.handler = handler
        self.deadlines = HeadDeadlines(deadline: limits.headDeadline)
        // Room for either family; filled as sockaddr_in or sockaddr_in6 (inet_pton).
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
            if address.contains(":") {
                var v6 = sockaddr_in6()
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = in_port_t(UInt16(clamping: port)).bigEndian
                guard inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 else { return false }
                withUnsafeBytes(of: v6) { raw.copyMemory(from: $0) }
            } else {
                var v4 = sockaddr_in()
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
                guard inet_pton(AF_INET, address, &v4.sin_addr) == 1 else { return false }
                withUnsafeBytes(of: v4) { raw.copyMemory(from: $0) }
            }
            return true
        }
        guard parsed else { throw RemoteError("remote: \(address) is not an IPv4 or IPv6 address") }
        let c = tripod_mhd_limits(connection_limit: UInt32(limits.connections), per_ip_limit: UInt32(limits.connectionsPerAddress),
                                  idle_timeout_seconds: UInt32(limits.idleTimeoutSeconds),
                                  memory_limit_bytes: limits.requestHeadBytes)
        let context = Unmanaged.passUnretained(self).toOpaque()
        errno = 0
        let started: OpaquePointer? = withPEM(tls?.certificatePEM) { certificate in
            withPEM(tls?.keyPEM) { key in
                withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        tripod_mhd_start($0, c, certificate, key, httpAccess, context, httpCompleted, context, httpConnection, context)
                    }
                }
            }
        }
        guard let started else {
            let reason = errno != 0 ? String(cString: strerror(errno))
                : tls != nil ? "MHD_start_daemon failed (GnuTLS rejected the certificate or key, or they do not match)" : "MHD_start_daemon failed"
            throw RemoteError("remote: cannot listen on \(address.contains(":") ? "[\(address)]" : address):\(port): \(reason)")
        }
        daemon = started
        deadlines.start()
        let bound = Int(tripod_mhd_bound_port(started))
        self.port = bound == 0 ? port : bound
    }

    /// Stops listening and ends every connection (MHD_stop_daemon; it joins their threads, so
    /// streams must have been told to end first).
    public func stop() {
        guard let daemon else { return }
        self.daemon = nil
        deadlines.stop()
        MHD_stop_daemon(daemon)
    }

    deinit { stop() }
}

/// Calls `body` with the NUL-terminated PEM text as a C string, or NULL.
private func withPEM<T>(_ pem: [UInt8]?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let pem else { return body(nil) }
    return pem.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress) }
    }
}

/// Per-request state kept between the access handler's calls (req_cls).
private final class PendingRequest {
    var body: [UInt8] = []
    var refused: HTTPResponse?
    init() {}
}

/// MHD_AccessHandlerCallback: the first call sets up the request, the next ones carry the body,
/// the last one (upload size 0) answers.
private let httpAccess: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let context, let connection, let requestContext else { return .NO }
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context).takeUnretainedValue()
    let escapedNUL = requestContext.pointee == tripod_mhd_escaped_nul_marker()
    guard !escapedNUL, let pending = requestContext.pointee.map({ Unmanaged<PendingRequest>.fromOpaque($0).takeUnretainedValue() }) else {
        let state = PendingRequest()
        // One pass over the headers: it returns how many there are and counts the unnamed ones.
        var unnamed = 0
        let headerCount = Int(withUnsafeMutablePointer(to: &unnamed) { MHD_get_connection_values(connection, .HEADER_KIND, countUnnamed, $0) })
        let contentLength = lookUp(connection, "Content-Length")
        if escapedNUL {
            // Unescaped, the URL would end at the NUL: `a.jpg%00.txt` would serve a.jpg.
            state.refused = .text(400, "a NUL (%00) in the URL")
        } else if headerCount > daemon.limits.headerCount {
            state.refused = .text(431, "too many headers (at most \(daemon.limits.headerCount))")
        } else if unnamed > 0 {
            state.refused = .text(400, "a header without a name")
        } else if contentLength != nil, lookUp(connection, "Transfer-Encoding") != nil {
            // RFC 9112 6.1: refused rather than read one way here and another by a proxy in front (smuggling).
            state.refused = .text(400, "both Content-Length and Transfer-Encoding")
        } else if let length = contentLength.flatMap({ Int($0) }), length > daemon.limits.bodyBytes {
            state.refused = .text(413, "request body over \(daemon.limits.bodyBytes) bytes")
        }
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        return .YES
    }
    if let uploadSize, uploadSize.pointee > 0 {
        if pending.refused == nil, let uploadData {
            if pending.body.count + uploadSize.pointee > daemon.limits.bodyBytes {
                pending.refused = .text(413, "request body over \(daemon.limits.bodyBytes) bytes")
                pending.body = []
            } else {
                pending.body += UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
            }
        }
        uploadSize.pointee = 0
        return .YES
    }
    // The whole request (head and body) is in: from here it is served, however long (a stream).
    daemon.deadlines.requestArrived(UInt(bitPattern: connection))
    let response: HTTPResponse
    if let refused = pending.refused {
        // Refused before the handler, so before any token: the connection is not kept.
        response = refused.adding([("Connection", "close")])
    } else {
        var headers: [String: String] = [:]
        for name in ["Authorization", "Cookie", "Range", "Content-Type", "Origin", "Host"] {
            if let value = lookUp(connection, name) { headers[name.lowercased()] = value }
        }
        var address = [CChar](repeating: 0, count: 64)
        let client = tripod_mhd_client_address(connection, &address, address.count) == 1
            ? String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/",
                                  headers: headers, body: pending.body, client: client)
        response = daemon.handler(request)
    }
    return queue(response.adding(daemon.everyResponse), on: connection)
}

/// MHD_RequestCompletedCallback: releases the request's state; the next head's deadline runs from now.
private let httpCompleted: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
    if let context, let connection {
        Unmanaged<HTTPDaemon>.fromOpaque(context).takeUnretainedValue().deadlines.requestEnded(UInt(bitPattern: connection))
    }
    guard let requestContext, let state = requestContext.pointee else { return }
    // A request closed before its first access call still holds the marker, which owns nothing.
    if state != tripod_mhd_escaped_nul_marker() { Unmanaged<PendingRequest>.fromOpaque(state).release() }
    requestContext.pointee = nil
}

/// MHD_NotifyConnectionCallback: a connection was accepted (its socket from
/// MHD_CONNECTION_INFO_CONNECTION_FD) or is about to be closed.
private let httpConnection: MHD_NotifyConnectionCallback = { context, connection, _, event in
    guard let context, let connection else { return }
    let deadlines = Unmanaged<HTTPDaemon>.fromOpaque(context).takeUnretainedValue().deadlines
    let key = UInt(bitPattern: connection)
    switch event {
    case .CONNECTION_NOTIFY_STARTED: deadlines.opened(key, socket: tripod_mhd_connection_fd(connection))
    case .CONNECTION_NOTIFY_CLOSED: deadlines.closed(key)
    }
}

/// MHD_KeyValueIterator: counts the headers with an empty name into the Int at `context`; goes
/// through them all (MHD_get_connection_values then returns how many there are).
private let countUnnamed: MHD_KeyValueIterator = { context, _, key, _ in
    if let context, key.map({ $0.pointee == 0 }) ?? true { context.assumingMemoryBound(to: Int.self).pointee += 1 }
    return .YES
}

/// A request header's value (MHD_lookup_connection_value).
private func lookUp(_ connection: OpaquePointer, _ name: String) -> String? {
    MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
}

/// Makes the libmicrohttpd response (MHD_create_response_from_buffer, _from_fd_at_offset64 or
/// _from_callback), adds its headers (MHD_add_response_header) and queues it (MHD_queue_response).
private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made: OpaquePointer?
    let status: Int
    var headers: [(String, String)]
    switch response {
    case .bytes(let code, let contentType, let body, let extra):
        status = code
        headers = [("Content-Type", contentType)] + extra
        made = body.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .file(let code, let descriptor, let offset, let length, let extra):
        status = code
        headers = extra
        // The card's bytes go out at the camera's leisure: this connection's thread, which sends
        // the file (sendfile in libmicrohttpd), runs at a lower priority from now on.
        ThreadPriority.lowerCallingThread(toNice: HTTPDaemon.fileServingNice)
        made = MHD_create_response_from_fd_at_offset64(length, descriptor, offset)
        if made == nil { close(descriptor) }
    case .stream(let contentType, let extra, let body):
        status = 200
        headers = [("Content-Type", contentType), ("Cache-Control", "no-store")] + extra
        let box = Unmanaged.passRetained(StreamBox(body)).toOpaque()
        // MHD_SIZE_UNKNOWN ((uint64_t)-1): the stream ends when the connection does.
        made = MHD_create_response_from_callback(UInt64.max, 64 << 10, streamRead, box, streamFree)
        if made == nil { Unmanaged<StreamBox>.fromOpaque(box).release(); body.finished() }
    }
    guard let made else { return .NO }
    for (name, value) in headers { _ = MHD_add_response_header(made, name, value) }
    let result = MHD_queue_response(connection, UInt32(status), made)
    MHD_destroy_response(made)
    return result
}

/// The stream behind a callback response (crc_cls).
private final class StreamBox {
    let body: any HTTPStreamBody
    init(_ body: any HTTPStreamBody) { self.body = body }
}

/// MHD_ContentReaderCallback: asks the stream for bytes; -1 (MHD_CONTENT_READER_END_OF_STREAM) at its end.
private let streamRead: MHD_ContentReaderCallback = { context, _, buffer, capacity in
    guard let context, let buffer else { return -1 }
    let box = Unmanaged<StreamBox>.fromOpaque(context).takeUnretainedValue()
    guard let count = box.body.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)) else { return -1 }
    return count
}

/// MHD_ContentReaderFreeCallback: the response is gone (client closed, or the daemon stops).
private let streamFree: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let box = Unmanaged<StreamBox>.fromOpaque(context).takeRetainedValue()
    box.body.finished()
}

/// A failure of the browser remote (start-up, token file), said in one line.
public struct RemoteError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
