import Foundation
import Testing
import TestSupport

/// The page in a real browser: Debian's chromium, headless, driven by selenium from the test venv
/// (tools/setup installs both), against `tripod run` on the simulated board on 127.0.0.1.
/// Browser/remote_browser.py does the clicking; this test starts everything and checks the rig.
/// With TRIPOD_REMOTE_SCREENSHOTS=DIR it also leaves phone and desktop screenshots there
/// (docs/images is made so).
@Suite(.serialized) struct RemoteBrowserTests {
    @Test func thePageShowsThePreviewSetsExposureCapturesAndRecords() throws {
        let remote = try RemoteFixture()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/remote_browser.py").path
        var arguments = [script, "http://127.0.0.1:\(remote.port)", remote.token, remote.tripod.captures]
        if let shots = ProcessInfo.processInfo.environment["TRIPOD_REMOTE_SCREENSHOTS"] { arguments.append(shots) }
        let (status, output, errors) = try Self.runBrowser(arguments)
        let result = (try? JSONSerialization.jsonObject(with: output)) as? [String: Any]
        #expect(status == 0, "\(String(decoding: output, as: UTF8.self)) \(errors.suffix(2000))")
        #expect(result?["screenshots_differ"] as? Bool == true)
        #expect((result?["capture"] as? [String: Any])?["identical"] as? Bool == true)
        // The policy refused nothing of the page; markup in names never ran; the cookie is HttpOnly.
        #expect((result?["csp_violations"] as? [Any])?.isEmpty == true)
        #expect((result?["markup_capture"] as? [String: Any])?["ran"] as? Bool == false)
        #expect((result?["markup_preset"] as? [String: Any])?["ok"] as? Bool == false)
        #expect(result?["cookie_hidden_from_script"] as? Bool == true)
        // What the page set, the console shows.
        // The stored values (`active=` may follow while the frames still report the last ones).
        #expect(remote.tripod.ask("get exposure.duration")?.split(separator: " ").prefix(2) == ["ok", "exposure.duration=1/250"])
        #expect(remote.tripod.ask("get exposure.mode")?.split(separator: " ").prefix(2) == ["ok", "exposure.mode=custom"])
        var exposure: String?
        _ = waitUntil(seconds: 10, every: .milliseconds(100)) {
            exposure = remote.tripod.ask("status")?.split(separator: " ").first { $0.hasPrefix("exposure=") }.map { String($0.dropFirst(9)) }
            return exposure == "1/250"
        }
        #expect(exposure == "1/250", "status exposure=\(exposure ?? "none")")
        // The recording the page started and stopped is on disk, and none runs now.
        #expect(remote.tripod.ask("status")?.contains("recording=off") == true)
        let videos = try FileManager.default.subpathsOfDirectory(atPath: remote.tripod.captures).filter { $0.hasSuffix(".mp4") || $0.hasSuffix(".mkv") }
        #expect(!videos.isEmpty)
    }

    /// Runs the driver script with the test venv's python; its stdout and exit status.
    static func runBrowser(_ arguments: [String]) throws -> (Int32, Data, String) {
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        let python = cache + "/tripod/pyenv/bin/python"
        for tool in [python, "/usr/bin/chromium", "/usr/bin/chromedriver"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw ToolError(description: "\(tool) is missing: run tools/setup (chromium, chromium-driver, selenium)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        // Selenium Manager is never asked to fetch a driver: chromedriver is Debian's.
        process.environment = ProcessInfo.processInfo.environment.merging(["SE_OFFLINE": "true", "SE_AVOID_STATS": "true"]) { $1 }
        let out = Pipe()
        let errorsPath = NSTemporaryDirectory() + "tripod-browser-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorsPath) }
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: errorsPath)
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
        return (process.terminationStatus, data, errors)
    }
}
