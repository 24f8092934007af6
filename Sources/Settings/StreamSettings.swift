/// The `stream.*` settings: the live RTSP stream (module Stream, docs/stream.md).
public struct StreamSettings: Equatable, Sendable {
    /// `stream.rtsp`: where the RTSP server listens (path `/live`), or off.
    public var rtsp = RemoteListen.off
    /// `stream.bitrate`: the bit rate of the encoder that runs for the stream while nothing records
    /// (a recording's stream is the recording's own packets, at `video.bitrate`).
    public var bitrateBitsPerSecond = 4_000_000
    /// `stream.rtsp.credentials`: the file with the digest user (line 1) and password (line 2),
    /// mode 0600; nil: none, and then only a loopback address is allowed.
    public var credentialsFile: String?

    public init() {}
}
