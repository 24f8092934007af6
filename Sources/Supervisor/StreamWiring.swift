import Console
import Recording
import Settings
import Stream

/// The live RTSP stream (docs/stream.md): `stream.rtsp` starts gst-rtsp-server at its address
/// (`/live`), `stream.rtsp.credentials` puts digest authentication in front of it, and the
/// recorder feeds it the encoder's packets (the recording's, or a stream encoder's at
/// `stream.bitrate`). Without credentials only a loopback address is allowed.
extension Supervisor {
    /// The `stream.*` part of a change: checks the address against the credentials, (re)starts the
    /// server when its address or credentials changed, and has the recorder feed it (once the
    /// camera streams: the keys are applied again then).
    func applyStreamPart(_ change: SettingsChange) throws(ConsoleError) {
        guard change.touches(any: SettingsTable.stream) else { return }
        let wanted = change.new.stream
        let credentials = try Self.streamCredentials(wanted)
        let old = change.old.stream
        if liveStream.server == nil || wanted.rtsp != old.rtsp || wanted.credentialsFile != old.credentialsFile {
            stopStream()
            guard case .address(let address, let port) = wanted.rtsp else { return }
            do throws(StreamError) { liveStream = .serving(try RTSPServer(address: address, port: port, credentials: credentials)) } catch {
                throw ConsoleError(.device, "\(SettingsTable.streamRTSP.key) \(error.message)")
            }
        }
        guard let server = liveStream.server, camera != nil else { return }
        do throws(ConsoleError) { try worded { () throws(RecorderError) in try recorder.setStream(server, bitrateBitsPerSecond: wanted.bitrateBitsPerSecond) } } catch {
            stopStream()
            throw error
        }
        log.notice("stream: \(server.url)\(credentials == nil ? "" : " (digest authentication)")")
    }

    /// The credentials `settings` names (nil: none), after refusing an address beyond the loopback
    /// without them.
    static func streamCredentials(_ settings: StreamSettings) throws(ConsoleError) -> StreamCredentials? {
        let credentials = try settings.credentialsFile.map { path throws(ConsoleError) in try StreamCredentials.load(path: path) }
        if credentials == nil, case .address(let address, let port) = settings.rtsp, !isLoopback(address) {
            throw ConsoleError(.badValue, "\(SettingsTable.streamRTSP.key) \(RemoteListen.text(address, port: port)): without \(SettingsTable.streamCredentials.key) the stream listens on the loopback only (127.0.0.1 or [::1]); set \(SettingsTable.streamCredentials.key) FILE (user on line 1, password on line 2, mode 0600) first")
        }
        return credentials
    }

    /// 127.0.0.0/8 or ::1.
    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.split(separator: ".", omittingEmptySubsequences: false).first == "127"
    }

    /// Stops feeding the stream and closes its server (every client).
    func stopStream() {
        guard case .serving(let server) = liveStream else { return }
        try? recorder.setStream(nil, bitrateBitsPerSecond: 0)
        recorder.drainEncoder()  // no push is under way once the queue has done what it had
        server.stop()
        liveStream = .off
    }

    /// `status` fields: the stream's URL, clients and the access units dropped for slow clients.
    func streamStatusFields() -> [(String, String)] {
        guard case .serving(let server) = liveStream else { return [] }
        let counts = server.counts
        return [("stream", server.url), ("stream.clients", String(counts.clients)),
                ("stream.sent", String(counts.pushed)), ("stream.dropped", String(counts.dropped))]
    }
}

/// The live stream: off, or serving through its RTSP server (`stream.rtsp` names an address).
enum LiveStream {
    case off
    case serving(RTSPServer)

    /// The server while serving.
    var server: RTSPServer? {
        guard case .serving(let server) = self else { return nil }
        return server
    }
}

/// The credentials file `stream.rtsp.credentials` names, read and checked: the user on line 1, the
/// password on line 2; refused unless the file is mode 0600.
extension StreamCredentials {
    /// Largest credentials file read, bytes.
    static let maximumBytes = 4096

    /// Reads and checks `path`; the error says what is wrong and how to fix it.
    static func load(path: String) throws(ConsoleError) -> StreamCredentials {
        let bytes = try SettingFile.read(path, what: SettingsTable.streamCredentials.key, maximumBytes: maximumBytes, refusingMode: { mode in
            mode == 0o600 ? nil : "it holds a password, so it must be 600"
        })
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        guard lines.count >= 2, !lines[0].isEmpty, !lines[1].isEmpty else {
            throw ConsoleError(.badValue, "\(SettingsTable.streamCredentials.key) \(path): the user must be on line 1 and the password on line 2")
        }
        guard !lines[0].contains(":") else {
            throw ConsoleError(.badValue, "\(SettingsTable.streamCredentials.key) \(path): the user must not contain ':' (RTSP digest)")
        }
        return StreamCredentials(user: lines[0], password: lines[1])
    }
}
