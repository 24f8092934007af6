import CGstRTSPShim
import Hardware
import Video

/// The live stream's RTSP server (docs/stream.md): gst-rtsp-server on its own GLib main loop
/// thread, serving `/live` from an appsrc fed with the encoder's own H.264 (`EncodedVideoSink`),
/// through h264parse and rtph264pay; RTP over UDP and TCP; RTSP digest authentication when
/// credentials are given. A push never blocks: when the queue is full (a client that cannot keep
/// up) the access unit is dropped, counted, and the stream starts again at the next keyframe.
public final class RTSPServer: EncodedVideoSink, @unchecked Sendable {
    /// The mount path clients open.
    public static let path = "/live"
    /// The most bytes queued for the clients before access units are dropped (about 2 s at 8 Mbit/s).
    public static let maximumQueueBytes: UInt32 = 2 << 20
    /// The most clients connected at once (the rest are closed at once).
    public static let maximumClients: UInt32 = 8

    /// The C server; thread-safe (its own lock), freed in `stop`.
    private let server: OpaquePointer
    private let stopped = LockedValue(false)
    public let address: String
    /// The port it listens on (the one the system chose for port 0).
    public let port: Int

    /// Listens on `address`:`port` (gst_rtsp_server_create_source); `credentials` nil serves anyone
    /// who reaches the address (the caller keeps that to the loopback).
    public init(address: String, port: Int, credentials: StreamCredentials?) throws(StreamError) {
        var error = [CChar](repeating: 0, count: 512)
        let made = error.withUnsafeMutableBufferPointer { buffer in
            tripod_rtsp_start(address, Int32(port), Self.path, credentials?.user, credentials?.password,
                              Self.maximumQueueBytes, Self.maximumClients, buffer.baseAddress, buffer.count)
        }
        guard let made else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw StreamError("\(address):\(port): cannot listen: \(message)")
        }
        server = made
        self.address = address
        self.port = Int(tripod_rtsp_port(made))
    }

    deinit { stop() }

    /// The URL a client opens (the address as given: 0.0.0.0 means any of the rig's).
    public var url: String {
        let host = address.contains(":") ? "[\(address)]" : address
        return "rtsp://\(host):\(port)\(Self.path)"
    }

    /// Every call into the C server holds `stopped`'s lock, so `stop` cannot free it meanwhile
    /// (the calls never block).
    public func push(accessUnit: [UInt8], sensorTimestamp: MonotonicTime, isKeyframe: Bool) {
        stopped.withLock { stopped in
            guard !stopped else { return }
            accessUnit.withUnsafeBufferPointer { bytes in
                _ = tripod_rtsp_push(server, bytes.baseAddress, bytes.count, sensorTimestamp.nanoseconds, isKeyframe ? 1 : 0)
            }
        }
    }

    public func takeKeyframeRequest() -> Bool {
        stopped.withLock { stopped in !stopped && tripod_rtsp_take_keyframe_request(server) != 0 }
    }

    /// Access units queued for the clients, dropped (a full queue, or waiting for a keyframe), and
    /// clients connected now.
    public var counts: (pushed: UInt64, dropped: UInt64, clients: Int) {
        stopped.withLock { stopped in
            var pushed: UInt64 = 0, dropped: UInt64 = 0, clients: UInt32 = 0
            if !stopped { tripod_rtsp_counts(server, &pushed, &dropped, &clients) }
            return (pushed, dropped, Int(clients))
        }
    }

    /// Closes every client and the listening socket, and ends the loop thread (tripod_rtsp_stop).
    /// The encoder must no longer push (the recorder's stream is set to nil first).
    public func stop() {
        stopped.withLock { stopped in
            if !stopped { tripod_rtsp_stop(server) }
            stopped = true
        }
    }
}
