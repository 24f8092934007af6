import Foundation
import Hardware
import Logging
import Media
import SimulatedHardware
import Testing
import Boards
import ManualLoop
import TestSupport
@testable import Startup
@testable import Supervisor
@testable import Transports

/// The fault matrix (issue 19, section 3) on the simulated board, in process on the manual clock:
/// each fault in each phase (idle, bracket running, frames being written). Every cell must keep
/// the supervisor running, lose no completed frame, leave no partial file, and either recover by
/// itself or say why not. The test prints one line per cell: what the supervisor said, whether
/// the next bracket worked, what is on disk.
@Suite(.serialized) struct FaultMatrixTests {
    enum Fault: String, CaseIterable, Sendable { case imuNack, imuVanish, cameraDisconnect, enospc, eio }
    enum Phase: String, CaseIterable, Sendable { case idle, bracket, writing }

    struct Cell: Sendable, CustomTestStringConvertible {
        var fault: Fault
        var phase: Phase
        var testDescription: String { "\(fault.rawValue) while \(phase.rawValue)" }
        static var all: [Cell] { Fault.allCases.flatMap { f in Phase.allCases.map { Cell(fault: f, phase: $0) } } }
    }

    /// The simulated board (camera, MPU-6050 on the simulated bus, button) with in-memory storage.
    final class Rig {
        let loop = ManualEventLoop()
        let storage = SimulatedStorage()
        let supervisor: Supervisor
        let output = RecordingConsoleOutput()
        let session: ConsoleSession
        let logged = LockedValue<[String]>([])
        var imu: SimulatedIMU? { supervisor.devices.imu as? SimulatedIMU }
        var provider: SimulatedCameraProvider? { supervisor.devices.cameraProvider as? SimulatedCameraProvider }

        init() throws {
            let storage = self.storage, logged = self.logged
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-faults-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let log = Logger(withPriorityPrefix: false) { line in logged.withLock { $0.append(line) } }
            supervisor = try startSimulatedSupervisor(on: loop, catalog: .standard(executablePath: #filePath),
                                                      capturesDirectory: directory.path, log: log) { $0.storage = storage }
            let output = self.output
            session = loop.perform { [supervisor] in supervisor.attach(name: "faults", kind: .local, output: output) }
            settle(.milliseconds(500))
        }

        func send(_ line: String) -> String {
            loop.perform { supervisor.run(line: line, from: session) }
            return output.lines.last { $0.hasPrefix("ok") || $0.hasPrefix("err") } ?? ""
        }

        /// Advances in 5 ms steps, letting the writer queue finish between steps (so the storage,
        /// which is not thread-safe, is only touched by the test while the writer is idle).
        func settle(_ duration: Duration) {
            let end = loop.now() + duration
            while loop.now() < end {
                loop.advance(by: .milliseconds(5))
                supervisor.captureService.drainWrites()
                loop.run()
            }
        }

        func settle(until event: (String) -> Bool, limit: Duration = .seconds(15)) -> String? {
            let end = loop.now() + limit
            while loop.now() < end {
                if let line = output.lines.first(where: event) { return line }
                settle(.milliseconds(5))
            }
            return output.lines.first(where: event)
        }

        static func ended(_ line: String) -> Bool { line.hasPrefix("event bracket.done") || line.hasPrefix("event bracket.failed") }

        /// Every file a sidecar names exists with its recorded size and hash; every image file on
        /// disk is named by a sidecar (none is partial or orphaned).
        func diskReport() -> (ok: Bool, summary: String) {
            let sidecars = storage.files.keys.filter { $0.hasSuffix(".json") }.compactMap { path -> BracketSidecar? in
                try? BracketSidecar.decode(storage.files[path] ?? [])
            }
            var named = Set<String>()
            var ok = true
            for s in sidecars {
                for frame in s.frames { for file in frame.files {
                    let path = s.folder + "/" + file.name
                    named.insert(path)
                    if storage.files[path]?.count != file.bytes { ok = false }
                } }
            }
            let images = storage.files.keys.filter { $0.hasSuffix(".dng") || $0.hasSuffix(".jpg") }
            let orphans = images.filter { !named.contains($0) }
            if !orphans.isEmpty { ok = false }
            let statuses = sidecars.map(\.result.status.rawValue).sorted().joined(separator: ",")
            return (ok, "\(sidecars.count) sidecar(s) [\(statuses)], \(images.count) image file(s), \(orphans.count) orphan(s)")
        }
    }

    @Test(arguments: Cell.all)
    func faultCell(_ cell: Cell) throws {
        let rig = try Rig()
        #expect(rig.send("set capture.format both").hasPrefix("ok"))
        var heard: [String] = []
        func inject() {
            switch cell.fault {
            case .imuNack: if let imu = rig.imu { imu.bus.inject(.nack, at: imu.address, count: 5) }
            case .imuVanish: if let imu = rig.imu { imu.bus.unplugged.insert(imu.address) }
            case .cameraDisconnect: rig.provider?.simulateUnplug()
            case .enospc: rig.storage.capacityBytes = rig.storage.usedBytes + 1000
            case .eio: rig.storage.failWrite(1, with: .io, andAfter: true)
            }
        }
        func clear() {
            switch cell.fault {
            case .imuNack: break  // transient: the driver's retries use the 5 NACKs up
            case .imuVanish: if let imu = rig.imu { imu.bus.unplugged.remove(imu.address) }
            case .cameraDisconnect: rig.provider?.simulateReplug()
            case .enospc: rig.storage.capacityBytes = nil
            case .eio: rig.storage.clearFaults()
            }
        }
        switch cell.phase {
        case .idle:
            inject()
            rig.settle(.seconds(1))
        case .bracket:
            _ = rig.send("bracket ev 5 1")
            inject()
            heard += [rig.settle(until: Rig.ended) ?? "no end"]
        case .writing:
            _ = rig.send("bracket ev 5 1")
            _ = rig.settle(until: { $0.hasPrefix("event bracket.frame") })
            inject()
            heard += [rig.settle(until: Rig.ended) ?? "no end"]
        }
        heard += rig.output.lines.filter { $0.hasPrefix("event imu.state") || $0.hasPrefix("event camera.state") }
        heard += rig.logged.current.filter { $0.contains("warning") || $0.contains("error") }
        let duringDisk = rig.diskReport()
        clear()
        rig.settle(.seconds(8))  // the IMU's retries back off to 2 s
        _ = rig.output.take()
        // Recovery: a bracket after the fault is cleared.
        let after = rig.send("bracket ev 3 1")
        let next = after.hasPrefix("err") ? after : (rig.settle(until: Rig.ended) ?? "no end")
        let recovered = next.hasPrefix("event bracket.done")
        let status = rig.send("status")
        let imuState = SimulatedBoardHarness.field("imu", in: status) ?? "?"
        let disk = rig.diskReport()
        print("FAULT-CELL \(cell.fault.rawValue) | \(cell.phase.rawValue) | said: \(heard.map { String($0.prefix(140)) }.joined(separator: " / ")) "
              + "| recovered: \(recovered ? "yes" : "no: " + next.prefix(120)) | imu: \(imuState) | disk: \(disk.summary)")
        #expect(rig.supervisor.state == .ready, "the supervisor keeps running")
        #expect(duringDisk.ok && disk.ok, "no partial or orphaned file: \(disk.summary)")
        if cell.phase != .idle {
            #expect(heard.first.map(Rig.ended) == true, "the bracket ended and said so: \(heard)")
        }
        #expect(recovered, "recovered by itself: \(next)")
        if cell.fault == .imuVanish || cell.fault == .imuNack {
            #expect(imuState.contains("unavailable") == false, "the IMU came back: \(imuState)")
        }
    }

    /// The camera unplugged and plugged back: brackets are refused, saying why, while it is gone;
    /// the supervisor picks it up again when the camera manager lists it, with the same settings.
    @Test func anUnpluggedCameraIsPickedUpAgainWhenItReturns() throws {
        let rig = try Rig()
        #expect(rig.send("set exposure.duration 1/100") == "ok exposure.duration=1/100 exposure.mode=custom")
        let provider = try #require(rig.provider)
        provider.simulateUnplug(completingPending: false)
        rig.settle(.seconds(3))
        #expect(rig.output.lines.contains("event camera.state state=disconnected"))
        #expect(rig.send("capture").hasPrefix("err device the camera is not streaming"))
        #expect(SimulatedBoardHarness.field("camera", in: rig.send("status"))?.contains("stopped") == true
                || SimulatedBoardHarness.field("camera", in: rig.send("status"))?.contains("idle") == true)
        provider.simulateReplug()
        let back = rig.settle(until: { $0.hasPrefix("event camera.state state=streaming") }, limit: .seconds(3))
        #expect(back != nil, "\(rig.output.lines.suffix(5))")
        #expect(rig.logged.current.contains { $0.contains("reconnected") })
        rig.settle(.milliseconds(300))
        #expect(rig.supervisor.camera?.isStreaming == true)
        #expect(rig.send("get exposure.duration").hasPrefix("ok exposure.duration=1/100"), "settings kept")
        _ = rig.output.take()
        _ = rig.send("capture")
        #expect(rig.settle(until: Rig.ended)?.hasPrefix("event bracket.done") == true)
    }

    /// A GPIO line that cannot be had (busy with another consumer, or no such chip here) is a
    /// start-up condition: the supervisor starts without the button and says why. On this machine
    /// there is no GPIO chip, so the request fails with "not found"; a busy line takes the same path
    /// with a message naming its holder (GPIODTests.busyMessageNamesTheLineAndItsConsumer).
    @Test func aShutterLineThatCannotBeHadLeavesTheConsoleWorking() throws {
        let boardFile = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-gpio-\(UUID().uuidString).json")
        try """
        {"name":"sim-gpiod","summary":"simulated camera, a gpiod shutter line that cannot be had",
         "camera":{"backend":"sim","sensor":"imx708"},"imu":{"backend":"none"},
         "gpio":{"backend":"gpiod","shutter":{"chip":"/dev/gpiochip-tripod-test","offset":17}},"display":{"backend":"none"}}
        """.write(to: boardFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: boardFile) }
        let board = try SimulatedBoardHarness(board: boardFile.path)
        board.advance(.milliseconds(300))
        let said = board.logLines.filter { $0.contains("shutter button") }
        let status = board.reply("status")
        #expect(SimulatedBoardHarness.field("shutter", in: status) == "none")
        #expect(said.contains { $0.contains("the console still works") }, "\(board.logLines)")
        #expect(board.reply("capture").hasPrefix("ok"))
        print("FAULT-CELL gpio-unavailable | start-up | said: \(said.joined(separator: " / ")) | recovered: n/a (console works, "
              + "status shutter=none; the line is not retried) | disk: -")
    }
}
