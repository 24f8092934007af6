import SimulatedHardware
import Testing
@testable import Console

@Suite struct LineAssemblerTests {
    @Test func splitsOnCRLFAndLF() {
        var a = LineAssembler()
        #expect(a.feed(Array("status\r\nget x\nset a b\r".utf8)) == [.line("status"), .line("get x"), .line("set a b")])
        #expect(!a.hasPartialLine)
    }

    @Test func partialLinesWaitForTheirEnd() {
        var a = LineAssembler()
        #expect(a.feed(Array("sta".utf8)).isEmpty)
        #expect(a.hasPartialLine)
        #expect(a.feed(Array("tus\n".utf8)) == [.line("status")])
    }

    @Test func backspaceDeletesWholeUTF8Characters() {
        var a = LineAssembler()
        // "aé" then DEL removes the two-byte é, then "b".
        #expect(a.feed(Array("aé".utf8) + [0x7F] + Array("b\n".utf8)) == [.line("ab")])
        #expect(a.feed([0x08, 0x08] + Array("x\n".utf8)) == [.line("x")])
    }

    @Test func ctrlUClearsAndCtrlCDrops() {
        var a = LineAssembler()
        #expect(a.feed(Array("garbage".utf8) + [0x15] + Array("status\n".utf8)) == [.line("status")])
        #expect(a.feed(Array("half".utf8) + [0x03] + Array("\n".utf8)) == [.interrupted, .line("")])
    }

    @Test func overlongLineIsRejectedWhole() {
        var a = LineAssembler(maximumLineBytes: 8)
        let out = a.feed(Array("0123456789abc\nok\n".utf8))
        #expect(out.count == 2)
        if case .rejected(let e) = out[0] { #expect(e.code == .lineTooLong) } else { Issue.record("expected rejection") }
        #expect(out[1] == .line("ok"))
    }

    @Test func nulControlBytesAndInvalidUTF8AreRejected() {
        var a = LineAssembler()
        let out = a.feed([0x73, 0x00, 0x74, 0x0A, 0x1B, 0x5B, 0x41, 0x0A, 0xFF, 0xFE, 0x0A, 0x09, 0x61, 0x0A])
        #expect(out.count == 4)
        for i in 0..<3 {
            if case .rejected(let e) = out[i] { #expect(e.code == .badInput) } else { Issue.record("line \(i) not rejected") }
        }
        #expect(out[3] == .line("\ta"))
    }

    @Test func echoReturnsTypedBytesAndErases() {
        var a = LineAssembler(echoes: true)
        let out = a.feed(Array("ab".utf8) + [0x7F])
        #expect(out == [.echo([0x61, 0x62, 0x08, 0x20, 0x08])])
    }

    @Test func randomBytesNeverCrashOrYieldControlCharacters() {
        var generator = SeededGenerator(seed: 42)
        var a = LineAssembler(maximumLineBytes: 64)
        for _ in 0..<2000 {
            let chunk = (0..<Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            for case .line(let text) in a.feed(chunk) {
                #expect(text.utf8.count <= 64)
                #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" })
            }
        }
    }
}

