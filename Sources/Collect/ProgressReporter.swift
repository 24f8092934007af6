import Foundation

/// Where a collection stands (the progress line and the JSON lines' `progress`).
public struct ProgressSnapshot: Sendable, Equatable {
    public var shot: String
    public var rigsDone: Int
    public var rigsAsked: Int
    public var filesChecked: Int
    public var filesKnown: Int
    public var bytesChecked: Int
    public var bytesKnown: Int
    public var fetchedBytes: Int
    public var elapsedSeconds: Double

    /// Fetched megabytes per second since the shot's collection began.
    public var megabytesPerSecond: Double { elapsedSeconds > 0 ? Double(fetchedBytes) / 1e6 / elapsedSeconds : 0 }
    /// Seconds left at that rate, for the bytes known; nil before any came.
    public var etaSeconds: Double? {
        let rate = megabytesPerSecond * 1e6
        return rate > 0 ? Double(max(0, bytesKnown - bytesChecked)) / rate : nil
    }
}

/// Tells the person or the program watching: on a terminal, one line rewritten in place on
/// stderr; otherwise one JSON object a line on stdout (`progress`, `file`, `note`, `summary`).
public final class ProgressReporter {
    public enum Mode: Sendable { case terminal, jsonLines }
    let mode: Mode
    private var lineShown = false

    public init(mode: Mode) { self.mode = mode }

    /// A terminal on stderr: the line; otherwise JSON lines.
    public static func forStandardStreams() -> ProgressReporter {
        ProgressReporter(mode: isatty(2) == 1 && isatty(1) == 1 ? .terminal : .jsonLines)
    }

    func progress(_ s: ProgressSnapshot) {
        switch mode {
        case .terminal:
            let eta = s.etaSeconds.map { String(format: "%.0fs", $0) } ?? "-"
            let line = "\(s.shot): rigs \(s.rigsDone)/\(s.rigsAsked)  files \(s.filesChecked)/\(s.filesKnown)  "
                + String(format: "%.1f/%.1f MB  %.1f MB/s", Double(s.bytesChecked) / 1e6, Double(s.bytesKnown) / 1e6, s.megabytesPerSecond)
                + "  ETA \(eta)"
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
            lineShown = true
        case .jsonLines:
            emit(["type": "progress", "shot": s.shot, "rigsDone": s.rigsDone, "rigsAsked": s.rigsAsked, "filesChecked": s.filesChecked,
                  "filesKnown": s.filesKnown, "bytesChecked": s.bytesChecked, "bytesKnown": s.bytesKnown, "fetchedBytes": s.fetchedBytes,
                  "megabytesPerSecond": (s.megabytesPerSecond * 10).rounded() / 10])
        }
    }

    func file(shot: String, rig: String, name: String, state: FileState) {
        guard mode == .jsonLines else { return }
        emit(["type": "file", "shot": shot, "rig": rig, "file": name, "state": state.rawValue])
    }

    public func note(_ text: String) {
        switch mode {
        case .terminal: say(text)
        case .jsonLines: emit(["type": "note", "message": text])
        }
    }

    /// The broker's answer is in: connected, and every retained message of the group here
    /// (`seconds` after the command began), with the rigs and reports it named.
    public func ready(seconds: Double, rigs: Int, reports: Int) {
        guard mode == .jsonLines else { return }
        emit(["type": "ready", "seconds": (seconds * 1000).rounded() / 1000, "rigs": rigs, "reports": reports])
    }

    /// The end of a shot: every missing or corrupt file with its rig, and the counts.
    func summary(_ outcome: ShotOutcome) {
        switch mode {
        case .terminal:
            var lines = ["\(outcome.shot): \(outcome.checked) checked, \(outcome.missing.count) missing, \(outcome.corrupt.count) corrupt; fetched \(outcome.fetchedFiles) files, \(String(format: "%.1f", Double(outcome.fetchedBytes) / 1e6)) MB in \(String(format: "%.1f", outcome.seconds)) s; manifest \(outcome.manifest)"]
            lines += outcome.missingRigs.map { "  missing rig \($0)" }
            lines += outcome.missing.map { "  missing \($0.rig) \($0.file)" }
            lines += outcome.corrupt.map { "  corrupt \($0.rig) \($0.file)" }
            say(lines.joined(separator: "\n"))
        case .jsonLines:
            emit(["type": "summary", "shot": outcome.shot, "checked": outcome.checked, "fetchedFiles": outcome.fetchedFiles,
                  "fetchedBytes": outcome.fetchedBytes, "seconds": (outcome.seconds * 1000).rounded() / 1000, "manifest": outcome.manifest,
                  "missingRigs": outcome.missingRigs,
                  "missing": outcome.missing.map { ["rig": $0.rig, "file": $0.file] },
                  "corrupt": outcome.corrupt.map { ["rig": $0.rig, "file": $0.file] }])
        }
    }

    private func say(_ text: String) {
        FileHandle.standardError.write(Data(((lineShown ? "\r\u{1B}[K" : "") + text + "\n").utf8))
        lineShown = false
    }

    private func emit(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
