import Boards
import Dispatch
import Foundation
import Hardware
import Lifecycle
import Media
import ManualLoop
import Motion
import SimulatedHardware
import Testing
@testable import Supervisor
@testable import Capture
@testable import Settings
@testable import Transports

/// A state directory whose writes wait until the test lets them through, noting whether they ran on
/// the loop's thread (issue 19: `save`, presets and the gyro bias were written on the loop).
private final class GatedStorage: Storage, @unchecked Sendable {
    let inner = SimulatedStorage(rootDescription: "gated:/state")
    let gate = DispatchSemaphore(value: 0)
    let lock = NSLock()
    var loopThread: pthread_t?
    var writesOnLoopThread = 0
    var writesTimedOut = 0
    var rootDescription: String { inner.rootDescription }
    func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        lock.lock()
        if let loopThread, pthread_equal(loopThread, pthread_self()) != 0 { writesOnLoopThread += 1 }
        lock.unlock()
        // A safety net (the test signals the gate): long enough that a busy machine never trips it.
        if gate.wait(timeout: .now() + 60) == .timedOut { lock.lock(); writesTimedOut += 1; lock.unlock() }
        lock.lock(); defer { lock.unlock() }
        try inner.writeAtomically(bytes, to: path)
    }
    func read(_ path: String) throws -> [UInt8] { lock.lock(); defer { lock.unlock() }; return try inner.read(path) }
    func fileExists(_ path: String) -> Bool { lock.lock(); defer { lock.unlock() }; return inner.fileExists(path) }
    func remove(_ path: String) throws { lock.lock(); defer { lock.unlock() }; try inner.remove(path) }
    func createDirectory(_ path: String) throws { lock.lock(); defer { lock.unlock() }; try inner.createDirectory(path) }
    func list(_ path: String) throws -> [String] { lock.lock(); defer { lock.unlock() }; return try inner.list(path) }
    func freeBytes() throws -> Int64 { try inner.freeBytes() }
}

@Suite(.serialized) struct LoopNeverWaitsTests {
    private func rig(_ state: GatedStorage) throws -> (ManualEventLoop, Supervisor, ConsoleSession, RecordingConsoleOutput) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("board").path
        let catalog = BoardCatalog(directories: [root])
        let board = try catalog.board("sim")
        guard let sensor = try catalog.sensor("imx708") else { throw StartupError("no imx708 in \(root)") }
        let loop = ManualEventLoop()
        let devices = BoardDevices(board: board, cameraProvider: SimulatedCameraProvider(loop: loop, sensor: sensor),
                                   sensors: ["imx708": sensor], imu: nil, shutter: nil, halfPress: nil, led: nil,
                                   display: NullDisplay(), storage: SimulatedStorage())
        let supervisor = Supervisor(devices: devices, loop: loop, services: SupervisorServices(state: StateStore(storage: state)),
                                    log: .discard)
        let output = RecordingConsoleOutput()
        let session = try loop.perform { () throws(StartupError) -> ConsoleSession in
            try supervisor.start()
            return supervisor.attach(name: "test", kind: .local, output: output)
        }
        state.loopThread = pthread_self()  // the test thread runs the manual loop
        loop.advance(by: .milliseconds(200))
        return (loop, supervisor, session, output)
    }

    private func type(_ line: String, _ loop: ManualEventLoop, _ supervisor: Supervisor, _ session: ConsoleSession) {
        loop.perform { supervisor.receive(bytes: Array((line + "\n").utf8), from: session) }
    }

    /// A rig whose state writes wait, after `set exposure.bias +1`, `save` and `get exposure.bias`.
    private func savingWithTheWriteHeld() throws -> (GatedStorage, ManualEventLoop, Supervisor, ConsoleSession, RecordingConsoleOutput) {
        let state = GatedStorage()
        let (loop, supervisor, session, output) = try rig(state)
        _ = output.take()
        for line in ["set exposure.bias +1", "save", "get exposure.bias"] { type(line, loop, supervisor, session) }
        return (state, loop, supervisor, session, output)
    }

    @Test func saveAndPresetsWriteOffTheLoopAndRepliesKeepTheirOrder() throws {
        let (state, loop, supervisor, session, output) = try savingWithTheWriteHeld()
        type("preset save hdr3 ev 3 1", loop, supervisor, session)
        type("preset list", loop, supervisor, session)
        // The loop went on while the writes wait; the lines after `save` wait for its reply.
        let before = output.take()
        #expect(before.count == 1 && before[0].hasPrefix("ok"), "only `set` answered so far: \(before)")
        loop.advance(by: .milliseconds(100))
        #expect(output.take().isEmpty)
        state.gate.signal(); state.gate.signal()
        for _ in 0..<2 {  // `save`'s write, then the preset's (asked for once `save` answered)
            supervisor.waitForStateWrites()
            loop.run()
        }
        let after = output.take().filter { $0.hasPrefix("ok") || $0.hasPrefix("err") }
        #expect(after.count == 4, "\(after)")
        #expect(after.first == "ok saved=1")
        #expect(after.dropFirst().first?.contains("exposure.bias") == true, "\(after)")
        #expect(after.dropFirst(2).first?.hasPrefix("ok preset=hdr3") == true, "\(after)")
        #expect(after.last?.contains("presets=1") == true, "the preset is kept once written: \(after)")
        #expect(state.writesOnLoopThread == 0 && state.writesTimedOut == 0)
        #expect(state.inner.files[StateStore.File.settings] != nil && state.inner.files[StateStore.File.presets] != nil)
    }

    /// Piped input (`printf 'save\nget ...\n' | tripod run`): the end of input comes while `save`
    /// writes; the reply and the lines after it still run before the session ends.
    @Test func theEndOfInputWaitsForTheLinesHeldBehindSave() throws {
        let (state, loop, supervisor, session, output) = try savingWithTheWriteHeld()
        loop.perform { supervisor.endOfInput(from: session) }
        state.gate.signal()
        supervisor.waitForStateWrites()
        loop.run()
        let replies = output.take().filter { $0.hasPrefix("ok") || $0.hasPrefix("err") }
        #expect(replies.count == 3, "\(replies)")
        #expect(replies.dropFirst().first == "ok saved=1")
        #expect(replies.last?.contains("exposure.bias=+1") == true, "\(replies)")
        #expect(session.isClosed, "then the input's end is acted on")
    }

    @Test func theGyroBiasIsWrittenOffTheLoop() throws {
        let state = GatedStorage()
        let (loop, supervisor, _, _) = try rig(state)
        loop.perform {
            supervisor.saveCalibration(GyroCalibration(deviceName: "sim:sim@auto", bias: Vector3(0.01, 0, 0), measuredAt: loop.now(), sampleCount: 100))
        }
        #expect(state.inner.files[StateStore.File.imuCalibration] == nil, "not written yet: the loop did not wait")
        state.gate.signal()
        supervisor.waitForStateWrites()
        loop.run()
        #expect(state.inner.files[StateStore.File.imuCalibration] != nil)
        #expect(state.writesOnLoopThread == 0 && state.writesTimedOut == 0)
    }

    /// A format the camera refuses at configure (the viewfinder still holds a frame) changes
    /// nothing: `set format` answers busy, `get format` is unchanged and the camera streams.
    @Test func aFormatRefusedBusyChangesNothing() throws {
        let state = GatedStorage()
        let (loop, supervisor, session, output) = try rig(state)
        let camera = try #require(loop.perform { supervisor.camera?.device as? SimulatedCamera })
        _ = output.take()
        loop.perform { camera.pipeline.buffersHeldByApplication = 1 }
        type("set format 1", loop, supervisor, session)
        let reply = output.take().last ?? ""
        #expect(reply.hasPrefix("err busy"), "\(reply)")
        type("get format", loop, supervisor, session)
        #expect(output.take().last?.contains("format=0") == true)
        loop.perform { camera.pipeline.buffersHeldByApplication = 0 }
        loop.advance(by: .milliseconds(300))
        #expect(loop.perform { supervisor.camera?.isStreaming } == true)
        type("set format 1", loop, supervisor, session)
        #expect(output.take().last?.hasPrefix("ok") == true)
    }
}

/// The gyro log (up to 30 s of samples) is rendered by the capture writer's queue: the loop only
/// hands over the job (issue 19: the text was built on the loop).
@Test func theGyroLogIsRenderedOnTheWritersQueue() throws {
    let loop = ManualEventLoop()
    let storage = SimulatedStorage()
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("board").path
    let sensor = try #require(try BoardCatalog(directories: [root]).sensor("imx708"))
    let writer = FrameWriter(storage: storage, configuration: CaptureStore.Configuration(sensor: sensor), loop: loop)
    let caller = pthread_self()
    let renderedOnCaller = LockedValue<Bool?>(nil)
    let done = LockedValue(false)
    loop.perform {
        writer.writeFile(rendering: {
            renderedOnCaller.withLock { $0 = pthread_equal(caller, pthread_self()) != 0 }
            return Array("t,gx,gy,gz\n".utf8)
        }, to: "log.gcsv") { error in done.withLock { $0 = error == nil } }
    }
    writer.drain()
    loop.run()
    #expect(renderedOnCaller.current == false, "rendered off the loop's thread")
    #expect(done.current)
    #expect(storage.files["log.gcsv"] == Array("t,gx,gy,gz\n".utf8))
}
