/// The `remote.*` settings: the browser remote's HTTP server (docs/remote.md, docs/collect.md).
public struct RemoteSettings: Equatable, Sendable {
    /// `remote.listen`: where the browser remote's HTTP server listens, or off.
    public var listen = RemoteListen.off
    /// `remote.tls`: HTTPS with this certificate and key, or plain HTTP.
    public var tls = RemoteTLS.off
    /// `remote.collect`: the file holding the group's read-only collection key, or none.
    public var collectKeyFile: String?
    /// `remote.advertise`: the address the fleet's status gives for this remote (behind NAT), or off: the listen address.
    public var advertise = RemoteListen.off

    public init() {}
}
