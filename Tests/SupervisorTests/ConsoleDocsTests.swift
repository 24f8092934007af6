import Console
import Foundation
import TestSupport
import Testing
@testable import Supervisor
@testable import Settings
@testable import Transports

/// docs/console.md documents the whole language: each command, setting key and error code.
@Suite struct ConsoleDocsTests {
    static var doc: String {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            return try String(contentsOf: root.appendingPathComponent("docs/console.md"), encoding: .utf8)
        }
    }

    @Test func everyCommandHasASectionWithItsUsage() throws {
        let doc = try Self.doc
        let harness = try SimulatedBoardHarness.devices()
        for command in harness.supervisor.commands.commands {
            #expect(doc.contains("\n### \(command.name)\n"), "docs/console.md has no \"### \(command.name)\" section")
            #expect(doc.contains("`\(command.usage)`"), "docs/console.md does not show the usage `\(command.usage)`")
        }
        #expect(doc.contains("\n### help\n"))
    }

    @Test func everySettingKeyAndErrorCodeIsDocumented() throws {
        let doc = try Self.doc
        for setting in SettingsTable.all {
            #expect(doc.contains("`\(setting.key)`"), "docs/console.md does not document the key \(setting.key)")
        }
        for code in ConsoleError.Code.allCases {
            #expect(doc.contains("`\(code.rawValue)`"), "docs/console.md does not document the error code \(code.rawValue)")
        }
        #expect(doc.contains(String(LineAssembler.defaultMaximumLineBytes)))
        #expect(doc.contains(String(ConsoleInputLimits.linesPerRead)))
    }
}
