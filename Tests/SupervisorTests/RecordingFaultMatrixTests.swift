import Boards
import Foundation
import Hardware
import ManualLoop
import Testing
import TestSupport
@testable import Startup
@testable import Supervisor

/// The fault matrix's recording cells (issue 19, section 3; issue 17, section 7): a full disk and
/// an I/O error while a video records, and too little room at `record start`. Every cell keeps the
/// supervisor running, says what happened, leaves a file ffprobe plays with the frames written
/// before the fault, and records again once the fault is gone. Prints one `FAULT-CELL` line each.
@Suite(.serialized) struct RecordingFaultMatrixTests {
    /// The simulated board recording to a real directory through a storage with injected faults.
    final class Rig {
        let loop = ManualEventLoop()
        let directory: URL
        let storage: FaultyStorage
        let supervisor: Supervisor
        let output = RecordingConsoleOutput()
        let session: ConsoleSession

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-record-faults-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let storage = try FaultyStorage(root: directory.path)
            self.storage = storage
            let catalog = BoardCatalog.standard(executablePath: #filePath)
            let board = try catalog.board("sim")
            let loop = self.loop, path = directory.path
            supervisor = try loop.perform { () throws(StartupError) -> Supervisor in
                var devices = try BoardFactory.build(board: board, catalog: catalog, loop: loop, capturesDirectory: path, log: .discard)
                devices.storage = storage
                let supervisor = Supervisor(devices: devices, loop: loop, log: .discard)
                try supervisor.start()
                return supervisor
            }
            let output = self.output
            session = loop.perform { [supervisor] in supervisor.attach(name: "faults", kind: .local, output: output) }
            loop.advance(by: .milliseconds(500), inStepsOf: .milliseconds(10), draining: supervisor)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func send(_ line: String) -> String {
            _ = output.take()
            loop.perform { supervisor.run(line: line, from: session) }
            return output.take().last ?? ""
        }

        /// Advances the clock; returns the events that came meanwhile.
        func settle(_ duration: Duration) -> [String] {
            loop.advance(by: duration, inStepsOf: .milliseconds(10), draining: supervisor)
            return output.take()
        }

        func file(_ relative: String) -> String { directory.appendingPathComponent(relative).path }
    }

    static let faults: [(name: String, error: HardwareError)] = [
        ("ENOSPC", HardwareError(.noSpace, "write: No space left on device (injected)", errno: ENOSPC)),
        ("EIO", HardwareError(.io, "write: Input/output error (injected)", errno: EIO)),
    ]

    @Test(arguments: [0, 1])
    func aWriteFaultWhileRecordingStopsItWithAPlayableFile(_ index: Int) throws {
        let (name, error) = Self.faults[index]
        let rig = try Rig()
        let started = rig.send("record start")
        let file = try #require(SimulatedBoardHarness.field("file", in: started), "\(started)")
        _ = rig.settle(.seconds(2))
        // The disk fails after a few more kilobytes: in the middle of a fragment.
        rig.storage.fault = error
        rig.storage.failAfterBytes = 4096
        let events = rig.settle(.seconds(2))
        let failed = try #require(events.first { $0.hasPrefix("event record.failed") }, "\(events)")
        #expect(failed.contains(name == "ENOSPC" ? "No space left" : "Input/output error"), "\(failed)")
        #expect(rig.supervisor.state == .ready)
        #expect(rig.send("status").contains("recording=off"))
        let written = Int(SimulatedBoardHarness.field("frames", in: failed) ?? "") ?? 0
        let played = try probe(rig.file(file))
        // Fragments are flushed at keyframes (every second): at least the first second plays.
        #expect(played.framePTS.count >= 25 && played.framePTS.count <= written, "\(played.framePTS.count) of \(written)")
        // Recovered: the next recording completes once the disk works again.
        rig.storage.failAfterBytes = nil
        let again = rig.send("record start")
        #expect(again.hasPrefix("ok recording=VID_000002"), "\(again)")
        _ = rig.settle(.seconds(1))
        _ = rig.send("record stop")
        let after = rig.settle(.milliseconds(200))
        #expect(after.contains { $0.hasPrefix("event record.stopped id=VID_000002") }, "\(after)")
        print("FAULT-CELL \(name) | recording | said: \(failed) | recovered: \(after.contains { $0.hasPrefix("event record.stopped") } ? "yes" : "no") | on disk: \(file) plays \(played.framePTS.count) of \(written) frames written")
    }

    @Test func tooLittleRoomRefusesTheStartAndSaysHowMuch() throws {
        let rig = try Rig()
        rig.storage.freeBytesOverride = 10 << 20
        let refused = rig.send("record start")
        #expect(refused.hasPrefix("err device"), "\(refused)")
        #expect(refused.contains("10485760 bytes free, a recording needs"), "\(refused)")
        #expect(rig.supervisor.camera?.videoStreamRequest == nil, "the video stream is given back")
        rig.storage.freeBytesOverride = nil
        #expect(rig.send("record start").hasPrefix("ok recording="))
        print("FAULT-CELL noRoom | record start | said: \(refused) | recovered: yes | on disk: nothing")
    }
}
