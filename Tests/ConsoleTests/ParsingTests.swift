import Testing
@testable import Console

@Suite struct ParsingTests {
    @Test func tokenizerHandlesQuotesAndComments() throws {
        #expect(try tokenize("set  exposure.iso   ISO 400") == ["set", "exposure.iso", "ISO", "400"])
        #expect(try tokenize("note \"a \\\"b\\\" c\" x") == ["note", "a \"b\" c", "x"])
        #expect(try tokenize("  # just a comment") == [])
        #expect(try tokenize("get a#b") == ["get", "a#b"])
        #expect(throws: ConsoleError.self) { try tokenize("set \"open") }
    }

    @Test(arguments: [
        ("1/60", 16_666_667), ("1/60s", 16_666_667), ("16.7ms", 16_700_000), ("16667us", 16_667_000),
        ("16667µs", 16_667_000), ("0.5s", 500_000_000), ("2", 2_000_000_000), ("250ns", 250), ("30 s", 30_000_000_000),
    ] as [(String, Int64)])
    func durations(text: String, nanoseconds: Int64) throws {
        let (seconds, atto) = try ValueParser.duration(text).components
        #expect(seconds * 1_000_000_000 + atto / 1_000_000_000 == nanoseconds)
    }

    @Test(arguments: ["", "abc", "1/0", "-1ms", "1/-60", "nan", "inf", "1e300s", "ms", "100000s"])
    func badDurations(text: String) {
        #expect(throws: ConsoleError.self) { try ValueParser.duration(text) }
    }

    @Test func otherValueForms() throws {
        #expect(try ValueParser.iso("ISO 400") == 400)
        #expect(try ValueParser.iso("iso800") == 800)
        #expect(try ValueParser.iso("100") == 100)
        #expect(throws: ConsoleError.self) { try ValueParser.iso("-5") }
        #expect(try ValueParser.ev("+1.5 EV") == 1.5)
        #expect(try ValueParser.ev("-1ev") == -1)
        #expect(try ValueParser.kelvin("5600K") == 5600)
        #expect(try ValueParser.dioptres("2.5D") == 2.5)
        #expect(try ValueParser.dioptres("inf") == 0)
        #expect(try ValueParser.dioptres("0.5m") == 2)
        #expect(throws: ConsoleError.self) { try ValueParser.dioptres("5mm") }
        #expect(try ValueParser.gains("1.9, 1.6") == (1.9, 1.6))
        #expect(throws: ConsoleError.self) { try ValueParser.gains("1.9") }
        #expect(try ValueParser.bool("ON"))
        #expect(throws: ConsoleError.self) { try ValueParser.choice("sideways", from: ["auto", "locked"]) }
    }

    @Test func shutterFormatting() {
        #expect(ValueParser.formatShutter(.nanoseconds(16_666_667)) == "1/60")
        #expect(ValueParser.formatShutter(.seconds(2)) == "2s")
        #expect(ValueParser.formatShutter(.milliseconds(7)) == "7ms")
        #expect(ValueParser.formatNumber(1.50) == "1.5")
        #expect(ValueParser.formatNumber(-2) == "-2")
    }
}
