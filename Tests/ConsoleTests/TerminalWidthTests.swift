import Console
import Testing

@Suite struct TerminalWidthTests {
    @Test func textThatFitsIsUnchangedAndLongTextWrapsAtSpacesWithinTheWidth() {
        #expect(TerminalWidth.wrap("short  line", width: 20) == ["short  line"])
        let text = "keys: format zoom exposure.mode exposure.duration exposure.iso exposure.bias focus.mode focus.lens"
        let lines = TerminalWidth.wrap(text, width: 30)
        #expect(lines.allSatisfy { $0.count <= 30 }, "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("  ") })
        #expect(lines.joined(separator: " ").split(separator: " ") == text.split(separator: " "), "no word lost")
        let path = "  captures: /var/lib/tripod/" + String(repeating: "x", count: 100)
        let cut = TerminalWidth.wrap(path, width: 40, indent: "    ")
        #expect(cut.allSatisfy { $0.count <= 40 } && cut.first?.hasPrefix("  captures:") == true, "\(cut)")
        #expect(cut.map { $0.trimmingPrefixSpaces }.joined().contains(String(repeating: "x", count: 100)))
    }

    @Test func twoColumnsPutsALongHeadOnItsOwnLine() {
        #expect(TerminalWidth.twoColumns("get [key]", "read a setting", column: 12) == ["get [key]   read a setting"])
        let lines = TerminalWidth.twoColumns(String(repeating: "u", count: 30), "what it does, at some length here", column: 12, width: 30)
        #expect(lines.allSatisfy { $0.count <= 30 }, "\(lines)")
        #expect(lines.last?.hasPrefix(String(repeating: " ", count: 12)) == true)
    }
}

extension String {
    fileprivate var trimmingPrefixSpaces: String { String(drop { $0 == " " }) }
}
