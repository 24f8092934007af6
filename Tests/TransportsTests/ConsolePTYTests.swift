import Foundation
import Testing

/// The serial console end to end: a real `tripod run --console <pty>` process, a pseudo-terminal
/// pair linked by socat, and pyserial at 115200 8N1 on the other end (ConsolePTY/serial_client.py).
@Suite struct ConsolePTYTests {
    @Test func serialConsoleOverAPseudoTerminalWithPyserial() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let script = here.appendingPathComponent("ConsolePTY/serial_client.py").path
        // The test bundle sits beside the tripod executable in the build directory.
        let binDirectory = Bundle.main.bundleURL.deletingLastPathComponent()
        let candidates = [binDirectory.appendingPathComponent("tripod").path,
                          here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/tripod").path]
        guard let tripod = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("no tripod executable at \(candidates); swift build --build-tests builds it")
            return
        }
        for tool in ["/usr/bin/python3", "/usr/bin/socat"] where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is missing: run tools/setup (python3-serial, socat)")
            return
        }
        let work = NSTemporaryDirectory() + "tripod-pty-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, tripod, work]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // A hung client must fail the test, not hang the suite.
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 180, execute: watchdog)
        defer { watchdog.cancel() }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        for line in output.split(separator: "\n") where line.hasPrefix("FAIL") { Issue.record("\(line)") }
        #expect(process.terminationStatus == 0, "serial_client.py:\n\(output)")
        #expect(output.contains("PASS reopen after the device came back"))
    }
}
