import Boards
import Console
import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Startup
import Supervisor
import Transports

/// Fuzz target for the console: raw bytes go through the line editor, the tokenizer and the real
/// command table of a supervisor on the simulated board (built once, on a ManualEventLoop).
///
/// Built with `-sanitize=fuzzer -DFUZZING` by tools/fuzz-console, libFuzzer calls
/// `LLVMFuzzerTestOneInput`. Built normally, `ConsoleFuzz FILE...` replays inputs (a crash's
/// reproducer, or the corpus) through the same function.
enum ConsoleFuzz {
    /// The supervisor every input talks to; built on first use.
    nonisolated(unsafe) static var fixture: (loop: ManualEventLoop, supervisor: Supervisor)?

    static func makeFixture() -> (loop: ManualEventLoop, supervisor: Supervisor) {
        if let fixture { return fixture }
        let loop = ManualEventLoop()
        let captures = NSTemporaryDirectory() + "tripod-fuzz-\(getpid())"
        do {
            try FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
            let catalog = BoardCatalog.standard()
            let devices = try BoardFactory.build(board: try catalog.board("sim"), catalog: catalog, loop: loop,
                                                 capturesDirectory: captures, log: .discard)
            let supervisor = Supervisor(devices: devices, loop: loop, log: .discard)
            let bound = LoopBound(supervisor, loop: loop)
            loop.execute { try? bound.value.start() }
            loop.run()
            fixture = (loop, supervisor)
            return (loop, supervisor)
        } catch {
            FileHandle.standardError.write(Data("ConsoleFuzz: cannot build the simulated board: \(error)\n".utf8))
            exit(2)
        }
    }

    /// One input: a fresh client (kind from the first byte) sends the bytes in two reads.
    /// Traps (a finding) when a reply breaks the console's output rules.
    static func run(_ bytes: [UInt8]) {
        let (loop, supervisor) = makeFixture()
        let output = RecordingConsoleOutput()
        let kinds: [ConsoleSession.Kind] = [.control, .serial, .local]
        let kind = kinds[Int(bytes.first ?? 0) % kinds.count]
        let split = bytes.count / 2
        let bound = LoopBound((supervisor, output), loop: loop)
        loop.execute {
            let (s, output) = bound.value
            let session = s.attach(name: "fuzz", kind: kind, output: output, echoes: kind == .serial)
            s.receive(bytes: bytes[..<split], from: session)
            s.receive(bytes: bytes[split...] + [0x0A], from: session)
            if !session.isClosed { s.detach(session) }
        }
        loop.run()
        for line in output.lines {
            // Every line is one line of printable text, and a reply, a body line or an event.
            precondition(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control character in output: \(line)")
            let known = ["ok", "err ", "# ", "event ", "{\"type\":"].contains { line.hasPrefix($0) }
            precondition(known, "unexpected output line: \(line)")
        }
        if supervisor.state != .ready && supervisor.state != .stopping {
            preconditionFailure("supervisor left ready: \(supervisor.state)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func consoleFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    ConsoleFuzz.run(bytes)
    return 0
}

#if FUZZING
/// libFuzzer's driver (extern "C" in FuzzerInterface.h).
@_extern(c, "LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// SwiftPM links an executable's entry point as `<module>_main` (`--defsym main=ConsoleFuzz_main`),
/// so libFuzzer's own `main` is never linked in: this entry point hands over to its driver.
@_cdecl("ConsoleFuzz_main")
func consoleFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var vector = argv
    return llvmFuzzerRunDriver(&count, &vector, consoleFuzzTestOneInput)
}
#else
/// Without the fuzzer: replays the files (or every file in the directories) given.
@main struct ConsoleFuzzReplay {
    static func main() {
        var files: [String] = []
        for argument in CommandLine.arguments.dropFirst() {
            if let names = try? FileManager.default.contentsOfDirectory(atPath: argument) {
                files += names.sorted().map { argument + "/" + $0 }
            } else {
                files.append(argument)
            }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("ConsoleFuzz: cannot read \(file)\n".utf8))
                exit(1)
            }
            ConsoleFuzz.run(Array(data))
        }
        print("replayed \(files.count) inputs")
    }
}
#endif
