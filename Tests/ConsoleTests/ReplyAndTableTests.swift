import Testing
@testable import Console

@Suite struct ReplyAndTableTests {
    @Test func humanReplies() {
        #expect(ReplyFormatter.lines(.ok([("a", "1"), ("b", "two words")]), mode: .human) == ["ok a=1 b=\"two words\""])
        #expect(ReplyFormatter.lines(.err(.outOfRange, "ISO 12 is below 100"), mode: .human) == ["err out-of-range ISO 12 is below 100"])
        #expect(ReplyFormatter.lines(.ok([("n", "2")], body: ["line 1", "line\n2"]), mode: .human) == ["# line 1", "# line 2", "ok n=2"])
    }

    /// Body lines went out as they were, "# " added: a long preset ran to hundreds of columns on
    /// an 80-column serial terminal. Each now wraps, every piece starting with "# ".
    @Test func longBodyLinesWrapAtEightyColumnsAndKeepEveryWord() {
        let long = "long: manual " + (1...40).map { "1/\(1000 + $0)@\(100 * $0)" }.joined(separator: " ")
        let lines = ReplyFormatter.lines(.ok([("presets", "2")], body: ["hdr5: ev 5 1", long]), mode: .human)
        #expect(lines.first == "# hdr5: ev 5 1", "a line that fits is unchanged")
        #expect(lines.last == "ok presets=2")
        let info = lines.dropLast()
        #expect(info.count > 3, "\(lines)")
        for line in info {
            #expect(line.count <= 80, "\(line.count) columns: \(line)")
            #expect(line.hasPrefix("# "), "\(line)")
        }
        #expect(info.dropFirst(2).allSatisfy { $0.hasPrefix("#   ") }, "continuations are indented under their line")
        let words = info.dropFirst().flatMap { $0.dropFirst(2).split(separator: " ") }
        #expect(words == long.split(separator: " "), "no word lost or reordered")
        // JSON clients get the line whole.
        let json = ReplyFormatter.lines(.ok([], body: [long]), mode: .json)
        #expect(json.count == 1 && json[0].contains(long))
    }

    @Test func jsonRepliesAndEventsAreOneEscapedLine() {
        let ok = ReplyFormatter.lines(.ok([("k", "v\"q\u{1}")], body: ["t"]), mode: .json)
        #expect(ok == ["{\"type\":\"reply\",\"ok\":true,\"values\":{\"k\":\"v\\\"q\\u0001\"},\"lines\":[\"t\"]}"])
        let err = ReplyFormatter.lines(.err(.usage, "usage: set <key> <value>"), mode: .json)
        #expect(err == ["{\"type\":\"reply\",\"ok\":false,\"code\":\"usage\",\"message\":\"usage: set <key> <value>\"}"])
        let event = ReplyFormatter.format(ConsoleEvent("imu.state", [("state", "unavailable")]), mode: .json)
        #expect(event == "{\"type\":\"event\",\"event\":\"imu.state\",\"values\":{\"state\":\"unavailable\"}}")
        #expect(ReplyFormatter.format(ConsoleEvent("bracket.done", [("frames", "5")]), mode: .human) == "event bracket.done frames=5")
    }

    @Test func tableDispatchChecksArgumentsAndGeneratesHelp() {
        var table = CommandTable<Int>()
        table.add(Command("add", synopsis: "<n>", summary: "add n", arguments: 1...1) { total, args in
            guard let n = Int(args[0]) else { return .err(.badValue, "not a number") }
            total += n
            return .ok([("total", String(total))])
        })
        var total = 0
        #expect(table.dispatch("add 5", origin: .serial, context: &total) == .ok([("total", "5")]))
        #expect(total == 5)
        #expect(table.dispatch("ADD 1", origin: .serial, context: &total) == .ok([("total", "6")]))
        #expect(table.dispatch("add", origin: .serial, context: &total) == .err(.usage, "usage: add <n>"))
        #expect(table.dispatch("", origin: .serial, context: &total) == nil)
        if case .error(let e)? = table.dispatch("frobnicate", origin: .serial, context: &total) { #expect(e.code == .unknownCommand) }
        else { Issue.record("unknown command accepted") }
        guard case .ok(_, _, let body)? = table.dispatch("help", origin: .serial, context: &total) else { Issue.record("help failed"); return }
        #expect(body.contains { $0.hasPrefix("add <n>") && $0.hasSuffix("add n") })
        guard case .ok(_, _, let detail)? = table.dispatch("help add", origin: .serial, context: &total) else { Issue.record("help add failed"); return }
        #expect(detail.first == "add <n>")
        #expect(total == 6)
    }
}
