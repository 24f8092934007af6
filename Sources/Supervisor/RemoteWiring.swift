import Console
import Hardware
import Remote
import Settings

/// The browser remote (module Remote, docs/remote.md): its token, made at the first start, and its
/// server, started and stopped as `remote.listen` is committed.
extension Supervisor {
    func registerRemoteCommands() {
        commands.add(Command("remote", synopsis: "token|preview", summary: "the browser remote's token; its preview's counts (docs/remote.md)",
                             detail: ["example: remote token  →  ok token=<64 hex digits>",
                                      "remote preview  →  ok watchers=2 offered=900 accepted=450 encoded=450 (frames since the server started)"],
                             arguments: 1...1) { context, args in
            switch args[0] {
            case "token":
                guard let token = context.supervisor.remoteEdge.token else { return .err(.unsupported, "the remote has no token yet (not started)") }
                return .ok([("token", token)])
            case "preview":
                guard let preview = context.supervisor.remote?.preview else { return .err(.unsupported, "the remote is off (\(SettingsTable.remoteListen.key))") }
                let counts = preview.frameCounts
                return .ok([("watchers", String(preview.watcherCount)), ("offered", String(counts.offered)),
                            ("accepted", String(counts.accepted)), ("encoded", String(counts.encoded))])
            default:
                return .err(.usage, "usage: remote token|preview")
            }
        })
    }

    /// At start: the token from the state directory (made on the first start), then the server.
    func startRemote() {
        if let directory = services.stateDirectory {
            do throws(RemoteError) { remoteEdge.token = try RemoteToken.loadOrCreate(directory: directory) }
            catch { log.warning("\(error); the remote uses a token for this run only") }
        }
        if remoteEdge.token == nil { remoteEdge.token = RemoteToken.generate() }
        applyRemoteListen()
    }

    /// Starts, moves or stops the server to match `remote.listen` (an observer of committed changes).
    func applyRemoteListen() {
        guard state == .starting || state == .ready, let token = remoteEdge.token else { return }
        remote?.stop()
        remoteEdge.server = .off
        guard case .address(let address, let port) = typed.remote.listen else { return }
        var tls: TLSCredentials?
        if case .files(let certificate, let key) = typed.remote.tls {
            do throws(ConsoleError) { tls = try TLSCredentials.load(certificate: certificate, key: key) }
            catch {
                remoteEdge.server = .failed(error.message)
                log.warning("remote: not started: \(error.message)")
                return
            }
        }
        // The key checks signatures for this rig's name; the nonces used outlive a restarted server.
        var collection: CollectionAccess?
        if let file = typed.remote.collectKeyFile {
            do throws(RemoteError) { collection = CollectionAccess(key: try CollectionKey.load(file), rig: { [inForce = settings.inForce] in inForce.read(\.fleet.rig) },
                                                                seen: remoteEdge.collectNonces) }
            catch { log.warning("remote: \(error.message); the collection key is not accepted") }
        }
        do throws(RemoteError) {
            let server = try RemoteServer(host: LoopBound<any RemoteHost>(self, loop: loop), address: address, port: port, token: token,
                                          collection: collection, captures: CaptureFiles(root: devices.storage.rootDescription), tls: tls)
            remoteEdge.server = .listening(server)
            log.notice("remote: listening on \(server.scheme)://\(RemoteListen.text(address, port: server.port))/")
        } catch {
            remoteEdge.server = .failed(error.message)
            log.warning("\(error)")
        }
    }

    /// The store's participant for the remote's files: a `remote.tls` certificate or key, or a
    /// `remote.collect` key file, that cannot be used is refused at `set` (and in the config file),
    /// in words, before anything changes.
    static func checkRemoteFiles(_ change: SettingsChange) throws(ConsoleError) {
        if change.touches(SettingsTable.remoteCollect), let file = change.new.remote.collectKeyFile {
            do throws(RemoteError) { _ = try CollectionKey.load(file) } catch { throw ConsoleError(.badValue, error.message) }
        }
        guard change.touches(SettingsTable.remoteTLS), case .files(let certificate, let key) = change.new.remote.tls else { return }
        _ = try TLSCredentials.load(certificate: certificate, key: key)
    }

    /// The remote's address as the fleet's status gives it (`remote=`): `remote.advertise`, else
    /// the listen address (a wildcard one is filled in by the fleet with its own address); nil when off.
    var remoteAdvertisedURL: String? {
        guard let remote, case .address(let address, _) = typed.remote.listen else { return nil }
        if case .address(let advertised, let port) = typed.remote.advertise { return "\(remote.scheme)://\(RemoteListen.text(advertised, port: port))" }
        return "\(remote.scheme)://\(RemoteListen.text(address, port: remote.port))"
    }

    func stopRemote() {
        guard let remote else { return }
        remote.stop()
        remoteEdge.server = .off
    }

    /// `get remote.listen`'s active value: the address in use (the port picked for 0), or why none.
    var remoteActiveDescription: String {
        if case .failed(let why) = remoteEdge.server { return "failed: \(why)" }
        guard let remote, case .address(let address, _) = typed.remote.listen else { return "off" }
        return RemoteListen.text(address, port: remote.port)
    }
}

extension Supervisor: RemoteHost {
    public var settingsInForce: TypedSettings { typed }
}
