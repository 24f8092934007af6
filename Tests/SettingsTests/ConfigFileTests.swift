import Foundation
import Testing
@testable import Supervisor
@testable import Settings

/// A schema like the settings table will be: two known keys, normalising and range-checking.
private let schema = ClosureConfigSchema { key, value in
    switch key {
    case "iso":
        guard let iso = Int(value), (100...6400).contains(iso) else {
            throw ConfigSchemaError.invalidValue(key: key, reason: "expected 100 to 6400, got \"\(value)\"")
        }
        return String(iso)
    case "label", "note":
        return value
    case "shutter":
        return value.lowercased()
    default:
        throw ConfigSchemaError.unknownKey(key)
    }
}

private func problems(_ text: String) -> [String] {
    do {
        _ = try ConfigFile.parse(text, file: "tripod.conf", schema: schema)
        return []
    } catch let error as ConfigFileError {
        return error.problems.map(\.description)
    } catch {
        return ["unexpected \(error)"]
    }
}

@Suite struct ConfigFileParsing {
    @Test func keysValuesCommentsBlanksAndWhitespace() throws {
        let text = """
        # Tripod settings
        iso = 400

          shutter=AUTO\t
        \tlabel   =   "  spaced # not a comment  "   # a comment
        note = 'a "b" \\n' # single quotes are literal
        """
        let config = try ConfigFile.parse(text, file: "tripod.conf", schema: schema)
        #expect(config.entries.map(\.key) == ["iso", "shutter", "label", "note"])
        #expect(config.entries.map(\.line) == [2, 4, 5, 6])
        #expect(config.values["iso"] == "400")
        #expect(config.values["shutter"] == "auto")  // normalised by the schema
        #expect(config.values["label"] == "  spaced # not a comment  ")
        #expect(config.values["note"] == "a \"b\" \\n")
    }

    @Test func unquotedValueEndsAtBlankHash() throws {
        let config = try ConfigFile.parse("label = red#1 # colour\r\nnote = x\r\n", file: "f", schema: schema)
        #expect(config.values["label"] == "red#1")
        #expect(config.values["note"] == "x")  // CRLF line ends accepted
    }

    @Test func doubleQuotedEscapes() throws {
        let config = try ConfigFile.parse(#"label = "a\"b\\c\td\ne""#, file: "f", schema: schema)
        #expect(config.values["label"] == "a\"b\\c\td\ne")
    }

    @Test func emptyValueMustBeQuoted() throws {
        let config = try ConfigFile.parse("label = \"\"", file: "f", schema: schema)
        #expect(config.values["label"] == "")
        #expect(problems("label =") == [#"tripod.conf:1: missing value for "label" (write "" for an empty value)"#])
        #expect(problems("label = # nothing") == [#"tripod.conf:1: missing value for "label" (write "" for an empty value)"#])
    }

    @Test func everyLexicalErrorNamesFileAndLine() {
        #expect(problems("\n\niso 400") == [#"tripod.conf:3: expected "key = value", found "iso 400""#])
        #expect(problems("= 3") == [#"tripod.conf:1: missing key before "=""#])
        #expect(problems("is o = 3") == [#"tripod.conf:1: key "is o" contains " " (keys are letters, digits, _ - .)"#])
        #expect(problems("label = \"abc") == [#"tripod.conf:1: unterminated " in value for "label""#])
        #expect(problems("label = \"abc\\") == [#"tripod.conf:1: unterminated " in value for "label""#])
        #expect(problems("label = 'abc") == [#"tripod.conf:1: unterminated ' in value for "label""#])
        #expect(problems(#"label = "a\qb""#) == [#"tripod.conf:1: unknown escape "\q" in value for "label""#])
        #expect(problems(#"label = "ab" cd"#) == [#"tripod.conf:1: unexpected "cd" after the quoted value for "label""#])
        #expect(problems("label = 'ab' cd") == [#"tripod.conf:1: unexpected "cd" after the quoted value for "label""#])
        #expect(problems("label = a\"b") == [#"tripod.conf:1: value for "label" has a quote inside; quote the whole value"#])
    }

    @Test func duplicateKeyIsAnErrorNamingBothLines() {
        #expect(problems("iso = 100\n# again\niso = 200") == [#"tripod.conf:3: "iso" is already set on line 1"#])
    }

    @Test func schemaErrorsNameFileAndLine() {
        #expect(problems("iso = 100\nzoom = 2") == [#"tripod.conf:2: unknown setting "zoom""#])
        #expect(problems("iso = 50") == [#"tripod.conf:1: invalid value for "iso": expected 100 to 6400, got "50""#])
    }

    @Test func allProblemsAreReportedInLineOrder() {
        let found = problems("iso = 50\nlabel = ok\nbogus\nzoom = 1\niso = 200")
        #expect(found == [
            #"tripod.conf:1: invalid value for "iso": expected 100 to 6400, got "50""#,
            #"tripod.conf:3: expected "key = value", found "bogus""#,
            #"tripod.conf:4: unknown setting "zoom""#,
            #"tripod.conf:5: "iso" is already set on line 1"#,
        ])
    }

    @Test func loadReadsAFileAndNamesItInErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-conf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.conf").path
        try Data("iso = 800\n".utf8).write(to: URL(fileURLWithPath: good))
        #expect(try ConfigFile.load(path: good, schema: schema).values == ["iso": "800"])

        let bad = dir.appendingPathComponent("bad.conf").path
        try Data("iso = 800\niso = 1600\n".utf8).write(to: URL(fileURLWithPath: bad))
        #expect(throws: ConfigFileError.self) { try ConfigFile.load(path: bad, schema: schema) }
        do { _ = try ConfigFile.load(path: bad, schema: schema) } catch let error as ConfigFileError {
            #expect(error.description == "\(bad):2: \"iso\" is already set on line 1")
        }

        let binary = dir.appendingPathComponent("binary.conf").path
        try Data([0x69, 0x73, 0x6F, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: binary))
        do { _ = try ConfigFile.load(path: binary, schema: schema); Issue.record("expected an error") }
        catch let error as ConfigFileError { #expect(error.description == "\(binary):0: not UTF-8 text") }

        #expect(ConfigFile.check(path: good, schema: schema) == (0, "\(good): ok, 1 setting"))
        #expect(ConfigFile.check(path: bad, schema: schema) == (1, "\(bad):2: \"iso\" is already set on line 1"))

        let missing = dir.appendingPathComponent("missing.conf").path
        do { _ = try ConfigFile.load(path: missing, schema: schema); Issue.record("expected an error") }
        catch let error as ConfigFileError {
            #expect(error.problems.count == 1)
            #expect(error.description.hasPrefix("\(missing):0: cannot read: "))
        }
    }
}
