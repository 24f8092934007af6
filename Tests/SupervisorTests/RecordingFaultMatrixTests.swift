import Boards
import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
import TestSupport
@testable import Startup
@testable import Supervisor
@testable import Transports

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
            supervisor = try startSimulatedSupervisor(on: loop, catalog: .standard(executablePath: #filePath),
                                                      capturesDirectory: directory.path) { $0.storage = storage }
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
        var imu: SimulatedIMU? { supervisor.devices.imu as? SimulatedIMU }
        var provider: SimulatedCameraProvider? { supervisor.devices.cameraProvider as? SimulatedCameraProvider }
    }

    /// A pre-record ring armed before the camera went away is armed again on the camera that
    /// comes back: its video stream is asked for, and the ring fills.
    @Test func aPrerecordRingIsArmedAgainWhenTheCameraReturns() throws {
        let rig = try Rig()
        #expect(rig.send("set video.prerecord 2s") == "ok video.prerecord=2")
        #expect(rig.supervisor.camera?.videoStreamRequest != nil)
        let provider = try #require(rig.provider)
        provider.simulateUnplug(completingPending: false)
        _ = rig.settle(.seconds(3))
        provider.simulateReplug()
        let events = rig.settle(.seconds(3))
        #expect(events.contains { $0.hasPrefix("event camera.state state=streaming") }, "\(events)")
        #expect(rig.supervisor.camera?.videoStreamRequest != nil, "the new camera is asked for the video stream")
        #expect(rig.supervisor.camera?.isStreaming == true)
        let ring = Int(SimulatedBoardHarness.field("prerecord.bytes", in: rig.send("status")) ?? "") ?? 0
        #expect(ring > 0, "the ring fills from the new camera")
    }

    /// The device faults of the matrix (FaultMatrixTests), here while a recording runs.
    enum DeviceFault: String, CaseIterable, Sendable { case imuNack, imuVanish, cameraDisconnect }

    /// The longest stretch without a row in a Gyroflow log, in seconds, and its row count.
    static func longestGap(inGcsv text: String) -> (seconds: Double, rows: Int) {
        let lines = text.split(separator: "\n")
        let scale = lines.first { $0.hasPrefix("tscale,") }.flatMap { Double($0.dropFirst(7)) } ?? 1
        guard let header = lines.firstIndex(of: "t,gx,gy,gz,ax,ay,az") else { return (0, 0) }
        let times = lines[(header + 1)...].compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
        let gap = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
        return (gap * scale, times.count)
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

    /// IMU NACKs, the IMU vanishing and the camera unplugged while `record start` runs. The IMU
    /// cells: the recording goes on and ends at `record stop` with every frame; the Gyroflow log
    /// has a hole where the IMU was gone (no row marks it). The camera cell: the recording ends by
    /// itself with `record.failed` and a playable file; once the camera is back a new one records.
    @Test(arguments: DeviceFault.allCases)
    func aDeviceFaultWhileRecording(_ fault: DeviceFault) throws {
        let rig = try Rig()
        let started = rig.send("record start")
        let file = try #require(SimulatedBoardHarness.field("file", in: started), "\(started)")
        var heard = rig.settle(.seconds(2))
        let imu = try #require(rig.imu), provider = try #require(rig.provider)
        switch fault {
        case .imuNack: imu.bus.inject(.nack, at: imu.address, count: 5)
        case .imuVanish: imu.bus.unplugged.insert(imu.address)
        case .cameraDisconnect: provider.simulateUnplug()
        }
        heard += rig.settle(.seconds(2))
        let endedByItself = heard.first { $0.hasPrefix("event record.stopped") || $0.hasPrefix("event record.failed") }
        switch fault {
        case .imuNack: break  // transient: the driver's retries use the NACKs up
        case .imuVanish: imu.bus.unplugged.remove(imu.address)
        case .cameraDisconnect: provider.simulateReplug()
        }
        heard += rig.settle(.seconds(8))  // the IMU's retries back off to 2 s; the camera is looked for every second
        #expect(rig.supervisor.state == .ready, "the supervisor keeps running")
        let stillRecording = rig.send("status").contains("recording=VID_000001")
        if stillRecording {
            _ = rig.send("record stop")
            heard += rig.settle(.milliseconds(500))
        }
        let ended = heard.first { $0.hasPrefix("event record.stopped") || $0.hasPrefix("event record.failed") } ?? "never ended"
        let said = heard.filter { $0.hasPrefix("event imu.state") || $0.hasPrefix("event camera.state") || $0.hasPrefix("event record.") }
        #expect(rig.send("status").contains("recording=off"), "the recording has ended")
        let written = Int(SimulatedBoardHarness.field("frames", in: ended) ?? "") ?? 0
        let played = try probe(rig.file(file))
        let gcsv = (try? String(contentsOfFile: rig.file(String(file.dropLast(4)) + ".gcsv"), encoding: .utf8)) ?? ""
        let gyro = Self.longestGap(inGcsv: gcsv)
        switch fault {
        case .imuNack, .imuVanish:
            #expect(said.contains { $0.hasPrefix("event imu.state state=unavailable") }, "\(said)")
            #expect(said.contains("event imu.state state=running"), "the IMU came back: \(said)")
            #expect(endedByItself == nil && stillRecording, "the recording goes on: \(said)")
            #expect(ended.hasPrefix("event record.stopped id=VID_000001"), "\(ended)")
            // 12 s at the default 30 fps, none dropped.
            #expect(written >= 350 && SimulatedBoardHarness.field("dropped", in: ended) == "0", "\(ended)")
            #expect(gyro.rows > 1000, "the log goes on after the IMU returns: \(gyro.rows) rows")
        case .cameraDisconnect:
            #expect(said.contains("event camera.state state=disconnected"), "\(said)")
            #expect(said.contains { $0.hasPrefix("event camera.state state=streaming") }, "the camera came back: \(said)")
            #expect(endedByItself?.hasPrefix("event record.failed id=VID_000001") == true, "ends by itself, saying why: \(said)")
            #expect(ended.contains("camera disconnected"), "\(ended)")
            #expect(written >= 50 && written <= 70, "about 2 s of frames: \(ended)")
            let sidecar = (try? String(contentsOfFile: rig.file(String(file.dropLast(4)) + ".json"), encoding: .utf8)) ?? ""
            #expect(sidecar.contains("\"status\" : \"stopped\"") && sidecar.contains("camera disconnected"), "\(sidecar.prefix(400))")
        }
        // The file plays every frame written (it was finalised, not cut off mid-fragment).
        #expect(played.framePTS.count == written, "\(played.framePTS.count) of \(written) frames play")
        // Recovered: the next recording works.
        _ = rig.settle(.milliseconds(500))
        let again = rig.send("record start")
        #expect(again.hasPrefix("ok recording=VID_000002"), "\(again)")
        _ = rig.settle(.seconds(1))
        _ = rig.send("record stop")
        let after = rig.settle(.milliseconds(500))
        let recovered = after.contains { $0.hasPrefix("event record.stopped id=VID_000002") }
        #expect(recovered, "\(after)")
        print("FAULT-CELL \(fault.rawValue) | recording | said: \(said.map { String($0.prefix(150)) }.joined(separator: " / ")) "
              + "| recovered: \(recovered ? "yes" : "no") (recording ended \(endedByItself == nil ? "at record stop" : "by itself")) "
              + "| on disk: \(file) plays \(played.framePTS.count) of \(written) frames; gcsv \(gyro.rows) rows, longest gap "
              + String(format: "%.3f s", gyro.seconds))
    }
}
