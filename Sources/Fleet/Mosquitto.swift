import CMosquitto
import Glibc
import Hardware

/// What libmosquitto's network thread reports. Delivered on that thread: hand it to a loop.
public enum MosquittoEvent: Sendable, Equatable {
    /// CONNACK: `code` 0 is accepted; otherwise `mosquitto_connack_string(code)` says why not.
    case connected(code: Int32)
    /// The connection ended: `code` 0 when we asked for it, otherwise lost (libmosquitto reconnects).
    case disconnected(code: Int32)
    /// A PUBLISH for one of our subscriptions.
    case message(topic: String, payload: [UInt8], retained: Bool)
    /// SUBACK: the broker holds the subscription `subscribe` returned `messageID` for.
    case subscribed(messageID: Int32)
}

/// A libmosquitto error: the call and its `mosquitto_strerror` text.
public struct MosquittoError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let code: Int32
    public var description: String { "\(call): \(MosquittoClient.describe(code))" }
}

/// One MQTT client connection through libmosquitto (Debian libmosquitto-dev), threaded: after
/// `startLoop()` libmosquitto's own thread does the network I/O, the keepalive and the reconnects,
/// and reports through `onEvent` on that thread. The calls here are thread-safe in libmosquitto's
/// threaded mode (it locks its own state), so the handle may be used from any one owner.
public final class MosquittoClient: @unchecked Sendable {
    private let handle: OpaquePointer
    private let events: Unmanaged<EventSink>
    /// Whether libmosquitto's thread runs, whether `disconnect` was called, and whether a
    /// `mosquitto_connect_async` is under way: a connection attempt on another thread
    /// (`BrokerConnector`) may end after the owner closed the client, and the handle must not be
    /// disconnected while that call sets up its socket.
    private let lifecycle = LockedValue((loopStarted: false, closed: false, connecting: false))

    /// libmosquitto's global set-up, once per process: `mosquitto_lib_init`.
    private static let libraryReady: Int32 = mosquitto_lib_init()

    /// `mosquitto_new`: a client with a stable `clientID`; `cleanSession` false keeps the session
    /// (subscriptions and QoS 1 messages queued at the broker) across reconnects and restarts.
    public init(clientID: String, cleanSession: Bool, onEvent: @escaping @Sendable (MosquittoEvent) -> Void) throws(MosquittoError) {
        guard Self.libraryReady == MOSQ_ERR_SUCCESS.rawValue else { throw MosquittoError(call: "mosquitto_lib_init", code: Self.libraryReady) }
        let sink = Unmanaged.passRetained(EventSink(onEvent))
        guard let made = mosquitto_new(clientID, cleanSession, sink.toOpaque()) else {
            sink.release()
            throw MosquittoError(call: "mosquitto_new", code: MOSQ_ERR_NOMEM.rawValue)
        }
        handle = made
        events = sink
        mosquitto_connect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<EventSink>.fromOpaque(context).takeUnretainedValue().deliver(.connected(code: code))
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<EventSink>.fromOpaque(context).takeUnretainedValue().deliver(.disconnected(code: code))
        }
        mosquitto_subscribe_callback_set(handle) { _, context, messageID, _, _ in
            guard let context else { return }
            Unmanaged<EventSink>.fromOpaque(context).takeUnretainedValue().deliver(.subscribed(messageID: messageID))
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message, let topic = message.pointee.topic else { return }
            let count = Int(max(0, message.pointee.payloadlen))
            let payload = message.pointee.payload.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            Unmanaged<EventSink>.fromOpaque(context).takeUnretainedValue()
                .deliver(.message(topic: String(cString: topic), payload: payload, retained: message.pointee.retain))
        }
    }

    deinit {
        if lifecycle.current.loopStarted { mosquitto_loop_stop(handle, true) }
        mosquitto_destroy(handle)
        events.release()
    }

    /// `mosquitto_int_option(MOSQ_OPT_TCP_NODELAY, 1)`: each message is sent at once (Nagle's
    /// algorithm off), so a reply does not wait for the previous packet's acknowledgement.
    public func sendImmediately() throws(MosquittoError) {
        try check("mosquitto_int_option", mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1))
    }

    /// `mosquitto_will_set`: what the broker publishes for us when we vanish without a DISCONNECT.
    public func setWill(topic: String, payload: String, qos: Int32, retain: Bool) throws(MosquittoError) {
        let bytes = Array(payload.utf8)
        try check("mosquitto_will_set", mosquitto_will_set(handle, topic, Int32(bytes.count), bytes, qos, retain))
    }

    /// `mosquitto_username_pw_set`.
    public func setCredentials(user: String, password: String) throws(MosquittoError) {
        try check("mosquitto_username_pw_set", mosquitto_username_pw_set(handle, user, password))
    }

    /// `mosquitto_tls_set`: TLS with the CAs in `caFile` (PEM), or those in the directory `caPath`.
    public func setTLS(caFile: String?, caPath: String?) throws(MosquittoError) {
        try check("mosquitto_tls_set", mosquitto_tls_set(handle, caFile, caPath, nil, nil, nil))
    }

    /// `mosquitto_reconnect_delay_set`: the wait before each reconnect, doubling up to `maximumSeconds`.
    public func setReconnectDelay(initialSeconds: UInt32, maximumSeconds: UInt32) throws(MosquittoError) {
        try check("mosquitto_reconnect_delay_set", mosquitto_reconnect_delay_set(handle, initialSeconds, maximumSeconds, true))
    }

    /// `mosquitto_connect_async`: starts connecting; the outcome is a `.connected` event. A broker
    /// that is down gives an error here, and the loop thread keeps reconnecting with the backoff.
    /// It resolves `host` and may block meanwhile: call it off the loop (`BrokerConnector`).
    /// A `disconnect` meanwhile (from another thread) leaves the handle to this call, which then
    /// ends what it began (a clean DISCONNECT) and throws.
    public func connect(host: String, port: Int, keepaliveSeconds: Int32) throws(MosquittoError) {
        let open = lifecycle.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.connecting = true
            return true
        }
        guard open else { throw MosquittoError(call: "mosquitto_connect_async", code: MOSQ_ERR_NO_CONN.rawValue) }
        let code = mosquitto_connect_async(handle, host, Int32(port), keepaliveSeconds)
        let closedMeanwhile = lifecycle.withLock { state -> Bool in
            state.connecting = false
            return state.closed
        }
        if closedMeanwhile {
            _ = mosquitto_disconnect(handle)
            throw MosquittoError(call: "mosquitto_connect_async", code: MOSQ_ERR_NO_CONN.rawValue)
        }
        try check("mosquitto_connect_async", code)
    }

    /// `mosquitto_loop_start`: libmosquitto's network thread (I/O, keepalive, reconnects); refused
    /// once `disconnect` was called.
    public func startLoop() throws(MosquittoError) {
        let handle = self.handle
        let code = lifecycle.withLock { state -> Int32 in
            guard !state.closed else { return MOSQ_ERR_NO_CONN.rawValue }
            let code = mosquitto_loop_start(handle)
            if code == MOSQ_ERR_SUCCESS.rawValue { state.loopStarted = true }
            return code
        }
        try check("mosquitto_loop_start", code)
    }

    /// `mosquitto_subscribe`; returns the message id its SUBACK (`MosquittoEvent.subscribed`) will carry.
    @discardableResult
    public func subscribe(topic: String, qos: Int32) throws(MosquittoError) -> Int32 {
        var messageID: Int32 = 0
        try check("mosquitto_subscribe", mosquitto_subscribe(handle, &messageID, topic, qos))
        return messageID
    }

    /// `mosquitto_subscribe_multiple`: every topic of `topics` in one SUBSCRIBE packet (so the
    /// broker handles them, and queues their retained messages, as one); returns the packet's
    /// message id, which its SUBACK (`.subscribed`) carries.
    public func subscribe(topics: [String], qos: Int32) throws(MosquittoError) -> Int32 {
        var messageID: Int32 = 0
        let copies = topics.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        guard copies.allSatisfy({ $0 != nil }) else { throw MosquittoError(call: "mosquitto_subscribe_multiple", code: MOSQ_ERR_NOMEM.rawValue) }
        let code = copies.withUnsafeBufferPointer { pointers in
            mosquitto_subscribe_multiple(handle, &messageID, Int32(pointers.count), pointers.baseAddress, qos, 0, nil)
        }
        try check("mosquitto_subscribe_multiple", code)
        return messageID
    }

    /// `mosquitto_publish`.
    public func publish(topic: String, payload: String, qos: Int32, retain: Bool) throws(MosquittoError) {
        let bytes = Array(payload.utf8)
        try check("mosquitto_publish", mosquitto_publish(handle, nil, topic, Int32(bytes.count), bytes, qos, retain))
    }

    /// `mosquitto_disconnect` (a clean DISCONNECT: the broker drops the will), then
    /// `mosquitto_loop_stop`, which waits for the network thread to end. Never blocks on a
    /// `connect` under way on another thread: that call disconnects when it returns.
    public func disconnect() {
        let (started, connecting) = lifecycle.withLock { state -> (Bool, Bool) in
            defer { state.closed = true; state.loopStarted = false }
            return (state.loopStarted, state.connecting)
        }
        guard !connecting else { return }
        _ = mosquitto_disconnect(handle)
        if started { _ = mosquitto_loop_stop(handle, false) }
    }

    private func check(_ call: String, _ code: Int32) throws(MosquittoError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw MosquittoError(call: call, code: code) }
    }

    /// This end's address on the broker connection (mosquitto_socket, then getsockname and
    /// getnameinfo with NI_NUMERICHOST), IPv6 in brackets; nil when not connected.
    public func localAddress() -> String? {
        let fd = mosquitto_socket(handle)
        guard fd >= 0 else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard got == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let named = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard named == 0 else { return nil }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Int32(storage.ss_family) == AF_INET6 ? "[\(text)]" : text
    }

    /// `mosquitto_strerror`.
    static func describe(_ code: Int32) -> String { String(cString: mosquitto_strerror(code)) }

    /// `mosquitto_connack_string`: why a broker refused a connection.
    public static func describeRefusal(_ code: Int32) -> String { String(cString: mosquitto_connack_string(code)) }
}

/// The receiver of libmosquitto's callbacks (its `obj` pointer).
private final class EventSink: Sendable {
    let deliver: @Sendable (MosquittoEvent) -> Void
    init(_ deliver: @escaping @Sendable (MosquittoEvent) -> Void) { self.deliver = deliver }
}
