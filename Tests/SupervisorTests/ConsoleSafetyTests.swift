import Console
import Foundation
import TestSupport
import Testing
@testable import Supervisor

/// No console command reaches a path outside the captures directory or runs a program.
@Suite struct ConsoleSafetyTests {
    static let hostileArguments = [
        "../escape", "../../etc/passwd", "/etc/passwd", "/tmp/tripod-escape", "~/x", "$(touch x)", "`id`",
        "a;rm -rf", "..", "/", "\\..\\..", "captures/../../x", "%2e%2e%2f", "|sh", "x\u{0}y",
    ]

    /// Runs every command in the table with every hostile argument, in every argument position the
    /// command accepts, and checks that nothing appeared outside the captures directory.
    @Test func noCommandWritesOutsideTheCapturesDirectory() throws {
        let harness = try SimulatedBoardHarness.devices()
        let outside = NSTemporaryDirectory() + "tripod-escape"
        try? FileManager.default.removeItem(atPath: outside)
        let (session, output) = harness.attach(kind: .control)
        let commands = harness.supervisor.commands.commands.filter { $0.name != "quit" }
        #expect(!commands.isEmpty)
        for command in commands {
            let counts = Set([command.arguments.lowerBound, min(command.arguments.upperBound, 3), 1])
            for argument in Self.hostileArguments {
                for count in counts where command.arguments.contains(count) {
                    let line = ([command.name] + Array(repeating: "\"\(argument.replacingOccurrences(of: "\"", with: "\\\""))\"", count: count))
                        .joined(separator: " ")
                    harness.send(Array((line + "\n").utf8), from: session, output: output, settle: .milliseconds(1))
                }
            }
        }
        let sandbox = try FileManager.default.contentsOfDirectory(atPath: harness.sandbox)
        #expect(sandbox == ["captures"], "files appeared beside the captures directory: \(sandbox)")
        #expect(!FileManager.default.fileExists(atPath: outside))
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/x"))
        #expect(harness.supervisor.state == .ready)
    }

    /// The console's code never starts a program: no process-spawning call in the modules that hold
    /// the command table and its handlers.
    @Test func consoleSourcesRunNoPrograms() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let forbidden = ["Process(", "posix_spawn", "execv", "execl", "system(", "popen(", "fork("]
        var scanned = 0
        for directory in ["Sources/Console", "Sources/Supervisor"] {
            let base = root.appendingPathComponent(directory)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else {
                Issue.record("cannot read \(directory)"); continue
            }
            for case let file as String in walker where file.hasSuffix(".swift") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                scanned += 1
                for word in forbidden where text.contains(word) {
                    Issue.record("\(directory)/\(file) uses \(word): console commands must not run programs")
                }
            }
        }
        #expect(scanned > 10)
    }
}
