import Testing
@testable import Console

/// The natural value forms the issue names, written the ways people type them.
@Suite struct ValueFormTests {
    @Test func spacingAndCaseVariants() throws {
        #expect(try ValueParser.kelvin("5600 K") == 5600)
        #expect(try ValueParser.kelvin("5600k") == 5600)
        #expect(try ValueParser.ev("+1.5EV") == 1.5)
        #expect(try ValueParser.ev("0.7") == 0.7)
        #expect(try ValueParser.iso("  ISO   400 ") == 400)
        #expect(try ValueParser.dioptres("2.5dpt") == 2.5)
        #expect(try ValueParser.dioptres("Infinity") == 0)
        #expect(try ValueParser.dioptres("2 m") == 0.5)
        #expect(try ValueParser.duration("16.7 ms") == .nanoseconds(16_700_000))
        #expect(try ValueParser.duration("1/8000") == .nanoseconds(125_000))
    }

    @Test(arguments: ["ISO", "ISO -400", "0", "iso abc"])
    func badISO(text: String) {
        #expect(throws: ConsoleError.self) { try ValueParser.iso(text) }
    }

    @Test(arguments: ["K", "-5600K", "0K", "warm"])
    func badKelvin(text: String) {
        #expect(throws: ConsoleError.self) { try ValueParser.kelvin(text) }
    }

    @Test(arguments: ["EV", "+-1", "one"])
    func badEV(text: String) {
        #expect(throws: ConsoleError.self) { try ValueParser.ev(text) }
    }

    @Test func errorsNameTheAcceptedForms() {
        do { _ = try ValueParser.duration("soon"); Issue.record("soon parsed") }
        catch { #expect(error.code == .badValue && error.message.contains("1/60")) }
        do { _ = try ValueParser.dioptres("near"); Issue.record("near parsed") }
        catch { #expect(error.code == .badValue && error.message.contains("0.5m")) }
    }
}
