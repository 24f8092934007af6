import Console
import Recording
import Settings
import Video

// The recorder's and video HDR's typed errors and events, in the console's words: the one place
// they are worded (replies, `record.*`).

extension ConsoleError {
    /// A recorder error as `err <code> <message>`.
    public init(_ error: RecorderError) {
        let code: Code = switch error.kind {
        case .usage: .usage
        case .badValue: .badValue
        case .unsupported: .unsupported
        case .busy: .busy
        case .device: .device
        case .notYet: .notYet
        }
        self.init(code, error.message)
    }
}

extension RecorderError {
    /// A console refusal met on the recorder's behalf (a shot's `record start`, run by the
    /// supervisor on the shot's frame): only its words travel on, to the shot's answer.
    init(_ error: ConsoleError) {
        let kind: Kind = switch error.code {
        case .usage: .usage
        case .unsupported: .unsupported
        case .busy: .busy
        case .device: .device
        case .notYet: .notYet
        default: .badValue
        }
        self.init(kind, error.message)
    }
}

/// Runs `body`, a call into the recorder or video HDR, with its error in the console's words.
func worded<T>(_ body: () throws(RecorderError) -> T) throws(ConsoleError) -> T {
    do throws(RecorderError) { return try body() } catch { throw ConsoleError(error) }
}

extension RecordingStarted {
    /// The reply of `record start`, and `record.started`'s fields.
    public var fields: [(String, String)] {
        [("recording", id), ("file", file), ("size", size.description), ("fps", ValueParser.formatNumber(framesPerSecond))]
            + (note.map { [("note", $0)] } ?? [])
    }
}

extension ConsoleEvent {
    /// A recorder event as `event record.* ...`.
    public init(_ event: RecorderEvent) {
        switch event {
        case .started(let started):
            self.init("record.started", started.fields)
        case .fileClosed(let sidecar):
            self.init("record.file", [("id", sidecar.id), ("file", sidecar.file), ("frames", String(sidecar.framesWritten)),
                                      ("dropped", String(sidecar.droppedFrames.count))] + (sidecar.error.map { [("error", $0)] } ?? []))
        case .stopped(let id, let status, let error):
            self.init(error == nil ? "record.stopped" : "record.failed",
                      [("id", id), ("frames", String(status?.framesWritten ?? 0)), ("dropped", String(status?.droppedFrames ?? 0)),
                       ("bytes", String(status?.bytesWritten ?? 0))] + (error.map { [("reason", $0.message)] } ?? []))
        case .encoderFallback(let note):
            self.init("record.encoder", [("note", note)])
        case .recordingFailure(let id, let reason):
            self.init("record.error", [("id", id ?? "none"), ("reason", reason)])
        case .streamFailure(let reason):
            self.init("record.error", [("reason", reason)])
        }
    }
}

extension VideoRecorder.SettingKeys {
    /// The keys as the settings table spells them.
    static let table = VideoRecorder.SettingKeys(prerecord: SettingsTable.videoPrerecord.key, framesPerSecond: SettingsTable.videoFPS.key,
                                                 triggerAction: SettingsTable.triggerAction.key, stream: SettingsTable.streamRTSP.key)
}
