import Console
import Foundation
import Hardware
import Settings
import TestSupport
import Testing
@testable import Supervisor
@testable import Transports

/// Golden console transcripts: Tests/SupervisorTests/Transcripts/<command>.txt.
///
/// Format, one directive per line:
/// - `> text` sends `text` as one line (`\xNN` is a raw byte, `\\` a backslash);
/// - `!kind stdio|serial|control|local` (first lines only) picks the kind of client (default local);
/// - `!advance 2s` moves the manual clock;
/// - `// ...` is a comment;
/// - any other line is an expected output line, in order.
/// Outputs are normalised: the captures directory reads `$CAPTURES`, free space `free=*`, the host
/// name (fleet.rig's default) `$HOSTNAME`.
/// Regenerate with `TRIPOD_REGENERATE_TRANSCRIPTS=1 swift test --filter Transcript`: the expected
/// lines are rewritten from what the supervisor answers; directives and comments stay.
struct Transcript {
    enum Step: Equatable {
        case send([UInt8], source: String)
        case expect(String)
        case advance(Duration, source: String)
        case kind(ConsoleSession.Kind, source: String)
        case comment(String)
    }

    var steps: [Step]

    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Transcripts")
    }

    static func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".txt") }.map { String($0.dropLast(4)) }.sorted()
    }

    init(text: String) throws(ConsoleError) {
        steps = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if raw.hasPrefix("> ") || raw == ">" {
                steps.append(.send(Self.decode(String(raw.dropFirst(2))), source: raw))
            } else if raw.hasPrefix("!kind ") {
                let kinds: [String: ConsoleSession.Kind] = ["stdio": .stdio, "serial": .serial, "control": .control, "local": .local]
                guard let kind = kinds[String(raw.dropFirst(6))] else { throw ConsoleError(.badValue, "bad kind: \(raw)") }
                steps.append(.kind(kind, source: raw))
            } else if raw.hasPrefix("!advance ") {
                steps.append(.advance(try ValueParser.duration(String(raw.dropFirst(9))), source: raw))
            } else if raw.hasPrefix("//") || raw.isEmpty {
                steps.append(.comment(raw))
            } else {
                steps.append(.expect(raw))
            }
        }
        while case .comment("")? = steps.last { steps.removeLast() }
    }

    /// `\xNN` escapes become raw bytes; a line end is added.
    static func decode(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "\\"), i + 1 < utf8.count, utf8[i + 1] == UInt8(ascii: "\\") {
                bytes.append(utf8[i]); i += 2; continue
            }
            if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count, utf8[i + 1] == UInt8(ascii: "x"),
               let b = UInt8(String(decoding: utf8[(i + 2)...(i + 3)], as: UTF8.self), radix: 16) {
                bytes.append(b); i += 4; continue
            }
            bytes.append(utf8[i]); i += 1
        }
        return bytes + [0x0A]
    }

    /// Replays against a fresh supervisor; returns the transcript with the actual outputs.
    func replay() throws -> (actual: String, expected: String) {
        let harness = try SimulatedBoardHarness.devices()
        var kind = ConsoleSession.Kind.local
        for case .kind(let k, _) in steps { kind = k }
        let (session, output) = harness.attach(kind: kind, name: "transcript")
        var actual: [String] = []
        var expected: [String] = []
        for step in steps {
            switch step {
            case .send(let bytes, let source):
                actual.append(source); expected.append(source)
                for line in harness.send(bytes, from: session, output: output) {
                    actual.append(Self.normalise(line, captures: harness.captures))
                }
            case .expect(let line): expected.append(line)
            case .advance(let d, let source):
                harness.advance(d)
                actual.append(source); expected.append(source)
                actual += output.take().map { Self.normalise($0, captures: harness.captures) }
            case .kind(_, let source), .comment(let source):
                actual.append(source); expected.append(source)
            }
        }
        return (actual.joined(separator: "\n") + "\n", expected.joined(separator: "\n") + "\n")
    }

    static func normalise(_ line: String, captures: String) -> String {
        var s = line.replacingOccurrences(of: captures, with: "$CAPTURES")
        // fleet.rig's default is the host name.
        s = s.replacingOccurrences(of: "fleet.rig=" + FleetSettings.hostName(), with: "fleet.rig=$HOSTNAME")
        s = s.replacingOccurrences(of: #"free=[0-9.]+GB"#, with: "free=*", options: .regularExpression)
        s = s.replacingOccurrences(of: #""free":"[0-9.]+GB""#, with: "\"free\":\"*\"", options: .regularExpression)
        // The remote's token is random.
        s = s.replacingOccurrences(of: #"\btoken=[0-9a-f]{64}\b"#, with: "token=*", options: .regularExpression)
        // Capture folders are named by today's date.
        s = s.replacingOccurrences(of: #"\b[0-9]{4}-[0-9]{2}-[0-9]{2}/"#, with: "$DATE/", options: .regularExpression)
        // An encoder's byte counts depend on its thread count (the machine's cores).
        if s.hasPrefix("event record.") || s.contains("recording=VID_") {
            s = s.replacingOccurrences(of: #"\bbytes=[0-9]+"#, with: "bytes=*", options: .regularExpression)
        }
        // During a recording, `status` counts the frames the encoder's queue has written so far: that
        // queue runs on its own thread, beside the manual clock, so the count depends on the machine
        // (19 or 29 at the same instant). The frames a recording kept are checked where they are
        // final: record.stopped, and the recording tests.
        if s.contains("recording=VID_") && !s.hasPrefix("event record.") {
            s = s.replacingOccurrences(of: #"\brecording\.frames=[0-9]+"#, with: "recording.frames=*", options: .regularExpression)
            s = s.replacingOccurrences(of: #"\brecording\.duration=[0-9.]+s"#, with: "recording.duration=*", options: .regularExpression)
        }
        return s
    }
}

@Suite(.serialized) struct TranscriptTests {
    @Test(arguments: try Transcript.names())
    func transcript(_ name: String) throws {
        let url = Transcript.directory.appendingPathComponent(name + ".txt")
        let transcript = try Transcript(text: String(contentsOf: url, encoding: .utf8))
        let (actual, expected) = try transcript.replay()
        if ProcessInfo.processInfo.environment["TRIPOD_REGENERATE_TRANSCRIPTS"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let mismatch = (0..<min(a.count, e.count)).first { a[$0] != e[$0] }
        if let i = mismatch ?? (a.count != e.count ? min(a.count, e.count) : nil) {
            Issue.record("\(name).txt line \(i + 1): expected \(i < e.count ? String(e[i]) : "<end>"), got \(i < a.count ? String(a[i]) : "<end>") (TRIPOD_REGENERATE_TRANSCRIPTS=1 rewrites)")
        }
    }

    /// Every command in the table, and help, has its own transcript that runs it.
    @Test func everyCommandHasATranscript() throws {
        let harness = try SimulatedBoardHarness.devices()
        let names = ["help"] + harness.supervisor.commands.commands.map(\.name)
        let files = Set(try Transcript.names())
        for name in names {
            guard files.contains(name) else {
                Issue.record("command \(name) has no transcript Tests/SupervisorTests/Transcripts/\(name).txt; add one with `> \(name) ...` lines and regenerate")
                continue
            }
            let text = try String(contentsOf: Transcript.directory.appendingPathComponent(name + ".txt"), encoding: .utf8)
            let sends = text.split(separator: "\n").filter { $0.hasPrefix("> ") }
            #expect(sends.contains { $0.dropFirst(2).split(separator: " ").first.map(String.init) == name },
                    "\(name).txt never sends \(name)")
        }
    }
}
