import Remote

/// The browser remote as the supervisor holds it (RemoteWiring.swift): its token, made at the first
/// start; its server while `remote.listen` names an address, or why it could not listen; and the
/// nonces of collection signatures accepted so far, kept across restarts of the server so none is
/// accepted twice while the process runs.
struct RemoteEdge {
    enum Server {
        case off
        case listening(RemoteServer)
        /// Why the server could not start, for `get remote.listen`.
        case failed(String)
    }

    var token: String?
    var server = Server.off
    let collectNonces = SeenNonces()

    /// The server, while it listens.
    var listening: RemoteServer? {
        if case .listening(let server) = server { return server }
        return nil
    }
}
