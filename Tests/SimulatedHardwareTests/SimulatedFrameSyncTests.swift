import Foundation
import Boards
import FrameSyncNetwork
import Glibc
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
import TestSupport

/// Frame sync on the simulated camera, done as the fork's IPA does it: a server sends its frame
/// timing every 30 frames, a client shortens one frame to line up, both report SyncReady and
/// SyncTimer. On one manual clock, with the datagrams in memory (the UDP path has its own test).
@Suite struct SimulatedFrameSyncTests {
    /// Datagrams in memory: every receiving channel gets what any sender sends.
    final class Hub: FrameSyncChannelFactory, @unchecked Sendable {
        final class Channel: FrameSyncChannel {
            let hub: Hub
            var queue: [FrameSyncPayload] = []
            init(hub: Hub) { self.hub = hub }
            func send(_ payload: FrameSyncPayload) throws {
                hub.sent.append(payload)
                for receiver in hub.receivers { receiver.queue.append(payload) }
            }
            func newest() throws -> FrameSyncPayload? { defer { queue = [] }; return queue.last }
        }
        var receivers: [Channel] = []
        var sent: [FrameSyncPayload] = []
        func channel(receiving: Bool) throws -> any FrameSyncChannel {
            let channel = Channel(hub: self)
            if receiving { receivers.append(channel) }
            return channel
        }
    }

    final class Log: @unchecked Sendable {
        var frames: [CompletedRequest] = []
        weak var camera: SimulatedCamera?
        var cookie: UInt64 = 1000
    }

    static let frameMicroseconds: Int64 = 33_333  // 30 fps, below the mode's 120

    /// A camera streaming at a fixed 30 fps with SyncMode `mode` on every request, re-queued as each completes.
    /// One wall clock for the test's cameras: the client's start offset is the manual clock's 12.345 ms,
    /// not that plus however long the server's set-up took in real time.
    static let wallClockOffsetNanoseconds = Int64(Date().timeIntervalSince1970 * 1e9)

    static func streaming(_ loop: ManualEventLoop, hub: Hub, mode: FrameSyncMode) throws -> (SimulatedCamera, Log) {
        let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"),
                                               wallClockOffsetNanoseconds: wallClockOffsetNanoseconds)
        provider.maximumRenderSize = PixelSize(width: 64, height: 36)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        camera.frameSyncChannels = hub
        let log = Log()
        var controls: ControlList = [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(5000),
                                     ControlName.analogueGain: .float(2), ControlName.awbEnable: .bool(false),
                                     ControlName.colourGains: .floatArray([2, 1.5]),
                                     ControlName.frameDurationLimits: .int64Array([frameMicroseconds, frameMicroseconds]),
                                     ControlName.syncMode: .int32(mode.controlValue)]
        if mode == .server { controls[ControlName.syncFrames] = .int32(100) }
        let request = controls
        log.camera = camera
        camera.setEventHandler { event in
            guard case .requestCompleted(let c) = event, c.isComplete else { return }
            log.frames.append(c)
            log.cookie += 1
            try? log.camera?.queueRequest(CaptureRequest(cookie: log.cookie, controls: request, roles: [.viewfinder]))
        }
        _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .xrgb8888, size: PixelSize(width: 640, height: 480))])
        try camera.start(controls: controls)
        for n in 1...4 { try camera.queueRequest(CaptureRequest(cookie: UInt64(n), controls: controls, roles: [.viewfinder])) }
        return (camera, log)
    }

    static func wallClock(_ frame: CompletedRequest) throws -> Int64 {
        try #require(frame.metadata[ControlName.frameWallClock]?.int64Value) / 1000
    }

    @Test func aClientLinesUpWithTheServerWithinFiftyMicroseconds() throws {
        let loop = ManualEventLoop()
        let hub = Hub()
        let (serverCamera, server) = try Self.streaming(loop, hub: hub, mode: .server)
        loop.advance(by: .microseconds(12_345))  // the client starts 12.345 ms into the server's frame
        let (clientCamera, client) = try Self.streaming(loop, hub: hub, mode: .client)
        loop.advance(by: .seconds(6))
        withExtendedLifetime((serverCamera, clientCamera)) {}

        // The server sends every 30 frames: its frame's wall clock, its frame duration, its ready time.
        #expect(hub.sent.count >= 5)
        let first = try #require(hub.sent.first)
        #expect(first.frameDurationMicroseconds == UInt32(Self.frameMicroseconds))
        #expect(server.frames.contains { (try? Self.wallClock($0)) == Int64(first.wallClockFrameMicroseconds) })

        // A client has no SyncTimer until it hears the server; then it counts down to the server's ready time.
        let heard = try #require(client.frames.firstIndex { $0.metadata[ControlName.syncTimer] != nil })
        #expect(heard > 0)
        #expect(client.frames[..<heard].allSatisfy { $0.metadata[ControlName.syncReady]?.boolValue == false })

        // Before the first datagram the phase is the start offset; from the frame after a correction on, under 50 µs.
        let serverStarts = try server.frames.map(Self.wallClock)
        func phase(_ frame: CompletedRequest) throws -> Int64 {
            let wall = try Self.wallClock(frame)
            let nearest = try #require(serverStarts.min { abs($0 - wall) < abs($1 - wall) })
            return wall - nearest
        }
        #expect(abs(try phase(client.frames[0])) > 1000)
        let aligned = client.frames[(heard + 2)...]
        #expect(aligned.count > 60)
        for frame in aligned { #expect(abs(try phase(frame)) < 50, "client frame \(frame.sequence)") }

        // Ready from the frame whose start plus half a frame passes the ready time (server's frame 100), on both.
        let readyAt = Int64(first.wallClockReadyMicroseconds)
        for log in [server, client] {
            let ready = try #require(log.frames.firstIndex { $0.metadata[ControlName.syncReady]?.boolValue == true })
            #expect(try Self.wallClock(log.frames[ready]) + Self.frameMicroseconds / 2 > readyAt)
            #expect(try Self.wallClock(log.frames[ready - 1]) + Self.frameMicroseconds / 2 <= readyAt)
            #expect(log.frames[ready...].allSatisfy { $0.metadata[ControlName.syncReady]?.boolValue == true })
        }
        let timer = try #require(server.frames[10].metadata[ControlName.syncTimer]?.int64Value)
        #expect(timer == readyAt - (try Self.wallClock(server.frames[10])))
    }

    @Test func syncOffSendsNothingAndReportsNothing() throws {
        let loop = ManualEventLoop()
        let hub = Hub()
        let (camera, log) = try Self.streaming(loop, hub: hub, mode: .off)
        loop.advance(by: .seconds(2))
        withExtendedLifetime(camera) {}
        #expect(hub.sent.isEmpty)
        #expect(log.frames.count > 30)
        #expect(log.frames.allSatisfy { $0.metadata[ControlName.syncReady] == nil && $0.metadata[ControlName.syncTimer] == nil })
    }

    @Test func debiansLibcameraListsNoSyncControls() throws {
        let loop = ManualEventLoop()
        let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"))
        provider.libcamera = .debian0_0_3
        let camera = try provider.open(id: provider.cameraID)
        #expect(camera.controlInfo[ControlName.syncMode] == nil)
        provider.libcamera = .raspberryPi0_5
        let fork = try provider.open(id: provider.cameraID)
        #expect(fork.controlInfo[ControlName.syncMode]?.maximum == .int32(2))
        #expect(fork.controlInfo[ControlName.syncFrames]?.minimum == .int32(100))
    }

    /// The datagram is the fork's `struct SyncPayload`: a 32-bit duration, padding, four 64-bit times, little-endian.
    @Test func thePayloadIsTheForksFortyByteStruct() throws {
        let payload = FrameSyncPayload(frameDurationMicroseconds: 0x0102_0304, systemFrameMicroseconds: 0x1112_1314_1516_1718,
                                       wallClockFrameMicroseconds: 0x2122_2324_2526_2728, systemReadyMicroseconds: 5,
                                       wallClockReadyMicroseconds: 0x4142_4344_4546_4748)
        let bytes = payload.bytes
        #expect(bytes.count == 40)
        #expect(Array(bytes[0..<8]) == [0x04, 0x03, 0x02, 0x01, 0, 0, 0, 0])
        #expect(Array(bytes[8..<16]) == [0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11])
        #expect(Array(bytes[16..<24]) == [0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21])
        #expect(Array(bytes[24..<32]) == [5, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[32..<40]) == [0x48, 0x47, 0x46, 0x45, 0x44, 0x43, 0x42, 0x41])
        #expect(FrameSyncPayload(bytes: bytes) == payload)
        #expect(FrameSyncPayload(bytes: bytes.dropLast()) == nil)
    }

    @Test func thePhaseFoldsIntoHalfAFrameEitherSide() {
        #expect(frameSyncPhaseMicroseconds(frameMicroseconds: 1_000_100, serverFrameMicroseconds: 1_000_000, frameDurationMicroseconds: 1000) == 100)
        #expect(frameSyncPhaseMicroseconds(frameMicroseconds: 1_000_900, serverFrameMicroseconds: 1_000_000, frameDurationMicroseconds: 1000) == -100)
        #expect(frameSyncPhaseMicroseconds(frameMicroseconds: 990_000, serverFrameMicroseconds: 1_000_000, frameDurationMicroseconds: 1000) == 0)
        #expect(frameSyncPhaseMicroseconds(frameMicroseconds: 999_700, serverFrameMicroseconds: 1_000_000, frameDurationMicroseconds: 1000) == -300)
    }

    /// The real path: UDP multicast on the loopback, two receivers (a client camera and a listener)
    /// each get every datagram; a datagram of another size is skipped.
    @Test func multicastOnTheLoopbackReachesEveryReceiver() throws {
        let port = UInt16(40_000 + Int(getpid() % 20_000))
        let address = FrameSyncAddress(group: "239.255.77.7", port: port, interface: "127.0.0.1")
        let a = try MulticastFrameSyncChannel(address: address, receiving: true)
        let b = try MulticastFrameSyncChannel(address: address, receiving: true)
        let sender = try MulticastFrameSyncChannel(address: address, receiving: false)
        #expect(try a.newest() == nil)
        let first = FrameSyncPayload(frameDurationMicroseconds: 33_333, systemFrameMicroseconds: 1, wallClockFrameMicroseconds: 2,
                                     systemReadyMicroseconds: 3, wallClockReadyMicroseconds: 4)
        var second = first
        second.wallClockFrameMicroseconds = 99
        try sender.send(first)
        try sender.send(second)
        for receiver in [a, b] {
            var got: FrameSyncPayload?
            // Delivery on the loopback is asynchronous: until a datagram is there, however busy the machine.
            _ = try waitUntil(seconds: 30) { got = try receiver.newest(); return got != nil }
            #expect(got == second || got == first)
            if got == first { #expect(try receiver.newest() == second) }  // the second had not arrived yet
        }
        #expect(throws: HardwareError.self) { try MulticastFrameSyncChannel(address: FrameSyncAddress(group: "not-an-address", port: port), receiving: true) }
    }
}
