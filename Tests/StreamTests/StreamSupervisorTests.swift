import Foundation
import Hardware
import Testing
import TestSupport
@testable import Supervisor

/// The live RTSP stream on the simulated board (docs/stream.md), read by real clients on the
/// loopback: ffprobe finds H.264 at the video stream's size, ffmpeg decodes frames over TCP and
/// UDP, digest authentication refuses wrong credentials, and an address beyond the loopback without
/// credentials is refused in words. The manual clock runs the camera while a client reads, paced
/// to no faster than real time (the server sends at the frames' timestamps).
@Suite(.serialized) struct StreamSupervisorTests {
    /// A client process with its output collected.
    final class Client {
        let process = Process()
        let out = Pipe()
        let errors: URL

        init(_ executable: String, _ arguments: [String], directory: URL) throws {
            errors = directory.appendingPathComponent("client-\(UUID().uuidString).log")
            guard FileManager.default.createFile(atPath: errors.path, contents: nil) else { throw ToolError(description: "cannot create \(errors.path)") }
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = out
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
        }

        /// The whole output, once the client has exited.
        func output() -> String {
            String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        var errorText: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }
    }

    /// Runs the simulated camera until `client` exits, no faster than real time; gives up (and
    /// stops the client) after `maximum` of simulated time.
    static func run(_ h: SimulatedBoardHarness, until client: Client, maximum: Duration = .seconds(60)) {
        let began = Date()
        var simulated = Duration.zero
        while client.process.isRunning, simulated < maximum {
            h.advance(.milliseconds(20))
            simulated += .milliseconds(20)
            let ahead = simulated.secondsValue - Date().timeIntervalSince(began)
            if ahead > 0 { Thread.sleep(forTimeInterval: ahead) }
        }
        if client.process.isRunning { client.process.terminate() }
        client.process.waitUntilExit()
    }

    /// The stream's URL from `status`, with `user:password@` when given.
    static func url(_ h: SimulatedBoardHarness, user: String? = nil, password: String? = nil) throws -> String {
        let status = h.reply("status")
        let url = try #require(SimulatedBoardHarness.field("stream", in: status), "\(status)")
        guard let user, let password else { return url }
        return url.replacingOccurrences(of: "rtsp://", with: "rtsp://\(user):\(password)@")
    }

    static func ffprobe(_ url: String, directory: URL) throws -> Client {
        try Client("/usr/bin/ffprobe", ["-v", "error", "-rtsp_transport", "tcp", "-select_streams", "v:0",
                                        "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", url], directory: directory)
    }

    @Test func ffprobeReadsTheStreamAndFFmpegDecodesFramesOverTCPAndUDP() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set stream.rtsp 127.0.0.1:0") == "ok stream.rtsp=127.0.0.1:0")
        let url = try Self.url(h)
        #expect(url.hasPrefix("rtsp://127.0.0.1:") && url.hasSuffix("/live"), "\(url)")
        let size = try #require(SimulatedBoardHarness.field("size", in: h.reply("record start")), "the video stream's size")
        _ = h.reply("record stop")
        h.advance(.milliseconds(200))

        let probe = try Self.ffprobe(url, directory: h.directory)
        Self.run(h, until: probe)
        #expect(probe.process.terminationStatus == 0, "\(probe.errorText)")
        let fields = probe.output().trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        #expect(fields.first == "h264", "\(fields)")
        #expect(fields.dropFirst().joined(separator: "x") == size, "\(fields) vs \(size)")

        for transport in ["tcp", "udp"] {
            let decoder = try Client("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", transport, "-i", url,
                                                        "-frames:v", "30", "-f", "framemd5", "-"], directory: h.directory)
            Self.run(h, until: decoder)
            #expect(decoder.process.terminationStatus == 0, "\(transport): \(decoder.errorText)")
            let frames = decoder.output().split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(frames.count == 30, "\(transport): \(frames.count) frames decoded; \(decoder.errorText)")
            #expect(decoder.errorText.isEmpty, "\(transport): the decoder complained: \(decoder.errorText)")
        }
        let status = h.reply("status")
        #expect(SimulatedBoardHarness.field("stream.sent", in: status).flatMap { Int($0) } ?? 0 > 0, "\(status)")
        #expect(h.reply("set stream.rtsp off") == "ok stream.rtsp=off")
        #expect(SimulatedBoardHarness.field("stream", in: h.reply("status")) == nil)
    }

    @Test func digestAuthenticationLetsTheRightCredentialsInAndRefusesOthers() throws {
        let h = try SimulatedBoardHarness()
        let file = h.directory.appendingPathComponent("stream-credentials")
        try "viewer\nsecret-42\n".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let loose = h.reply("set stream.rtsp.credentials \(file.path)")
        #expect(loose.hasPrefix("err") && loose.contains("must be 600"), "\(loose)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(h.reply("set stream.rtsp.credentials \(file.path)").hasPrefix("ok"))
        #expect(h.reply("set stream.rtsp 127.0.0.1:0") == "ok stream.rtsp=127.0.0.1:0")

        for (user, password) in [("viewer", "wrong"), ("someone", "secret-42")] {
            let refused = try Self.ffprobe(try Self.url(h, user: user, password: password), directory: h.directory)
            Self.run(h, until: refused)
            #expect(refused.process.terminationStatus != 0, "\(user):\(password) was let in")
            #expect(refused.errorText.contains("401"), "\(refused.errorText)")
        }
        let anonymous = try Self.ffprobe(try Self.url(h), directory: h.directory)
        Self.run(h, until: anonymous)
        #expect(anonymous.process.terminationStatus != 0, "no credentials and let in")

        let admitted = try Self.ffprobe(try Self.url(h, user: "viewer", password: "secret-42"), directory: h.directory)
        Self.run(h, until: admitted)
        #expect(admitted.process.terminationStatus == 0, "\(admitted.errorText)")
        #expect(admitted.output().hasPrefix("h264,"))
    }

    @Test func anAddressBeyondTheLoopbackWithoutCredentialsIsRefusedInWords() throws {
        let h = try SimulatedBoardHarness()
        for address in ["0.0.0.0:0", "[::]:0", "192.0.2.1:8554"] {
            let refused = h.reply("set stream.rtsp \(address)")
            #expect(refused.hasPrefix("err bad-value") && refused.contains("loopback only") && refused.contains("stream.rtsp.credentials"), "\(refused)")
        }
        #expect(SimulatedBoardHarness.field("stream", in: h.reply("status")) == nil, "nothing listens")
        let file = h.directory.appendingPathComponent("stream-credentials")
        try "viewer\nsecret-42\n".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(h.reply("set stream.rtsp.credentials \(file.path)").hasPrefix("ok"))
        #expect(h.reply("set stream.rtsp 0.0.0.0:0") == "ok stream.rtsp=0.0.0.0:0")
        // Taking the credentials away from a stream beyond the loopback is refused the same way.
        let bare = h.reply("set stream.rtsp.credentials none")
        #expect(bare.hasPrefix("err bad-value") && bare.contains("loopback only"), "\(bare)")
    }

    /// A port another stream already holds: the setting is refused in words naming the bind, and
    /// the rig goes on without a stream (the shim frees what it made before its loop started).
    @Test func aPortAlreadyInUseIsRefusedInWordsAndLeavesNoStream() throws {
        let first = try SimulatedBoardHarness()
        #expect(first.reply("set stream.rtsp 127.0.0.1:0") == "ok stream.rtsp=127.0.0.1:0")
        let url = try Self.url(first)
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first.map(String.init), "\(url)")
        let second = try SimulatedBoardHarness()
        let refused = second.reply("set stream.rtsp 127.0.0.1:\(port)")
        #expect(refused.hasPrefix("err ") && refused.contains("bind"), "\(refused)")
        #expect(second.reply("get stream.rtsp") == "ok stream.rtsp=off", "the refused change is rolled back")
        #expect(SimulatedBoardHarness.field("stream", in: second.reply("status")) == nil, "\(second.reply("status"))")
        #expect(second.reply("set stream.rtsp 127.0.0.1:0") == "ok stream.rtsp=127.0.0.1:0", "a free port still works after the refusal")
        #expect(first.reply("set stream.rtsp off") == "ok stream.rtsp=off")
        #expect(second.reply("set stream.rtsp off") == "ok stream.rtsp=off")
    }

    /// The stream together with a trigger's frame pre-roll is not built (docs/stream.md, "Not built
    /// yet"): whichever comes second is refused `not-yet` in words naming the way out, and the
    /// setting it would have changed stays as it was; the stream and the pre-roll each work alone.
    @Test func aStreamWithATriggersFramePrerollIsRefusedNotYetInEitherOrder() throws {
        let streamFirst = try SimulatedBoardHarness()
        #expect(streamFirst.reply("set stream.rtsp 127.0.0.1:0") == "ok stream.rtsp=127.0.0.1:0")
        #expect(streamFirst.reply("set trigger.action record 2") == "ok trigger.action=\"record 2\"", "no pre-roll yet: allowed")
        let refused = streamFirst.reply("set video.prerecord 1")
        #expect(refused.hasPrefix("err not-yet") && refused.contains("pre-roll") && refused.contains("set stream.rtsp off or video.prerecord 0"), "\(refused)")
        #expect(streamFirst.reply("get video.prerecord").hasPrefix("ok video.prerecord=0"))
        #expect(SimulatedBoardHarness.field("stream", in: streamFirst.reply("status")) != nil, "the stream goes on")

        let prerollFirst = try SimulatedBoardHarness()
        #expect(prerollFirst.reply("set video.prerecord 1") == "ok video.prerecord=1")
        #expect(prerollFirst.reply("set trigger.action record 2") == "ok trigger.action=\"record 2\"")
        #expect(prerollFirst.supervisor.recorder.triggerPrerollFrames == 30)
        let streamRefused = prerollFirst.reply("set stream.rtsp 127.0.0.1:0")
        #expect(streamRefused.hasPrefix("err not-yet") && streamRefused.contains("set stream.rtsp off or video.prerecord 0"), "\(streamRefused)")
        #expect(prerollFirst.reply("get stream.rtsp").hasPrefix("ok stream.rtsp=off"))
        #expect(SimulatedBoardHarness.field("stream", in: prerollFirst.reply("status")) == nil, "nothing listens")
        #expect(prerollFirst.supervisor.recorder.triggerPrerollFrames == 30, "the pre-roll is kept")
    }

    /// While recording, the stream is the recording's own packets (no second encode): every frame
    /// four clients decode is, pixel for pixel, a frame of the file; and the recording drops nothing.
    @Test func fourClientsWatchARecordingThatDropsNothingAndTheyDecodeTheFilesOwnFrames() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set stream.bitrate 500k") == "ok stream.bitrate=500k")  // the recording's is 10M: other pixels
        #expect(h.reply("set stream.rtsp 127.0.0.1:0") == "ok stream.rtsp=127.0.0.1:0")
        let url = try Self.url(h)
        h.advance(.milliseconds(200))
        let started = h.reply("record start")
        let file = try #require(SimulatedBoardHarness.field("file", in: started), "\(started)")
        let clients = try (0..<4).map { _ in
            try Client("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url, "-frames:v", "30",
                                           "-f", "framemd5", "-"], directory: h.directory)
        }
        for client in clients { Self.run(h, until: client) }
        h.advance(.milliseconds(200))
        _ = h.reply("record stop")
        h.supervisor.waitForRecorder()
        h.advance(.milliseconds(200))
        let stopped = try #require(h.output.take().first { $0.hasPrefix("event record.stopped ") })
        #expect(SimulatedBoardHarness.field("dropped", in: stopped) == "0", "\(stopped)")

        /// The frames' MD5s (framemd5's last column), in order.
        func hashes(_ text: String) -> [String] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        let recorded = Set(hashes(String(decoding: try runTool("/usr/bin/ffmpeg", ["-v", "error", "-i", h.captured(file),
                                                                                  "-f", "framemd5", "-"]), as: UTF8.self)))
        #expect(recorded.count > 30)
        for (index, client) in clients.enumerated() {
            #expect(client.process.terminationStatus == 0, "client \(index): \(client.errorText)")
            let seen = hashes(client.output())
            #expect(seen.count == 30, "client \(index): \(seen.count) frames")
            let foreign = seen.filter { !recorded.contains($0) }
            #expect(foreign.isEmpty, "client \(index): \(foreign.count) of \(seen.count) decoded frames are not the file's")
        }
    }

    /// More connections than the server's 8 client slots: those beyond are closed before they are
    /// heard, and every slot comes back when the clients hang up, burst after burst (a closed
    /// connection that kept its count would lock every viewer out after two bursts). socat holds a
    /// TCP connection open without a word and exits when the server closes it.
    @Test func connectionsBeyondTheBoundAreClosedAndGiveTheirSlotsBack() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set stream.rtsp 127.0.0.1:0") == "ok stream.rtsp=127.0.0.1:0")
        let url = try Self.url(h)
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first.map(String.init))
        func clients() -> Int? { SimulatedBoardHarness.field("stream.clients", in: h.reply("status")).flatMap { Int($0) } }
        for burst in 1...2 {
            let held = try (0..<12).map { _ in try Client("/usr/bin/socat", ["-u", "TCP:127.0.0.1:\(port)", "STDOUT"], directory: h.directory) }
            let fourClosed = waitUntil(seconds: 8) { held.filter { !$0.process.isRunning }.count >= 4 }
            #expect(fourClosed && held.filter { !$0.process.isRunning }.count == 4, "burst \(burst): the 4 beyond the 8 slots are closed at once")
            #expect(waitUntil(seconds: 8) { clients() == 8 }, "burst \(burst): \(clients() ?? -1) clients")
            for client in held where client.process.isRunning { client.process.terminate() }
            for client in held { client.process.waitUntilExit() }
            #expect(waitUntil(seconds: 30) { clients() == 0 }, "burst \(burst): \(clients() ?? -1) clients left after every one hung up")
        }
        let probe = try Self.ffprobe(url, directory: h.directory)
        Self.run(h, until: probe)
        #expect(probe.process.terminationStatus == 0, "a viewer after the bursts: \(probe.errorText)")
    }

    /// A connection that asks for nothing (or never authenticates) is closed at its deadline: it
    /// cannot hold one of the server's few client slots. socat holds a TCP connection open without a
    /// word and exits when the server closes it.
    @Test func aSilentConnectionIsClosedAtItsDeadline() throws {
        let h = try SimulatedBoardHarness()
        #expect(h.reply("set stream.rtsp 127.0.0.1:0") == "ok stream.rtsp=127.0.0.1:0")
        let url = try Self.url(h)
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first.map(String.init))
        let silent = try Client("/usr/bin/socat", ["-u", "TCP:127.0.0.1:\(port)", "STDOUT"], directory: h.directory)
        _ = waitUntil(seconds: 60) { !silent.process.isRunning }
        #expect(!silent.process.isRunning, "still connected after 60 s: the deadline is 10 s")
        if silent.process.isRunning { silent.process.terminate() }
        silent.process.waitUntilExit()
        #expect(silent.output().isEmpty, "the server said nothing to a client that asked nothing")
    }
}
