import Foundation
import Glibc
import Hardware
import Media
import SimulatedHardware
import Syscalls
import Testing
import TestSupport
@testable import LinuxHardware

/// The capture store on a real directory, with faults forced at the system calls.
@Suite struct CaptureStoreOnDiskTests {
    private func frame(_ n: UInt64) -> CompletedRequest {
        let raw = FrameBuffer(pixelFormat: .srggb12, size: PixelSize(width: 32, height: 24), stride: 64,
                              bytes: (0..<(64 * 24)).map { UInt8(truncatingIfNeeded: $0 &* 13) & 0x0F })
        let rgb = FrameBuffer(pixelFormat: .bgr888, size: PixelSize(width: 32, height: 24), stride: 96,
                              bytes: (0..<(96 * 24)).map { UInt8(truncatingIfNeeded: $0) })
        return CompletedRequest(cookie: n, sequence: n, sensorTimestamp: MonotonicTime(nanoseconds: Int64(n) * 33_000_000),
                                metadata: [ControlName.exposureTime: .int32(10_000), ControlName.analogueGain: .float(1)],
                                buffers: [.raw: raw, .stillCapture: rgb])
    }

    @Test(arguments: [(FaultInjectingSyscalls.Operation.fsync, ENOSPC), (.write, EIO), (.fsync, EIO)])
    func aFaultMidBracketLeavesFinishedFramesAndNothingPartial(operation: FaultInjectingSyscalls.Operation, code: Int32) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sys = FaultInjectingSyscalls()
        let storage = try PosixStorage(root: dir, syscalls: RetryingSyscalls(sys))
        let timeZone = TimeZone(identifier: "UTC") ?? .current
        let store = try CaptureStore(storage: storage, configuration: CaptureStore.Configuration(
            camera: CameraIdentity(make: "Raspberry Pi", model: "test", uniqueCameraModel: "Raspberry Pi test"),
            safetyMarginBytes: 0, naming: CaptureNaming(timeZone: timeZone)))
        let bracket = try store.beginBracket(BracketStart(
            plan: BracketPlanRecord(kind: "ev", summary: "bracket ev 3 1.0", frameCount: 3),
            outputs: BracketOutputs(rawSize: PixelSize(width: 32, height: 24), rgbSize: PixelSize(width: 32, height: 24)),
            startTime: Date(timeIntervalSince1970: 1_790_000_000)))
        let requested = FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 1)
        try bracket.addFrame(frame(1), requested: requested)
        let folder = dir + "/2026-09-21"
        let firstFrame = try #require(FileManager.default.contents(atPath: folder + "/TRP_000001_01.dng"))
        // Frame 2: its 2nd write is inside the streamed DNG (libtiff's header went first); its 2nd
        // fsync is the directory's after the DNG's rename (the DNG is then visible and must be
        // removed again).
        sys.fail(operation, call: 2, errno: code)
        #expect(throws: MediaError.self) { try bracket.addFrame(frame(2), requested: requested) }
        #expect(try allNames(folder) == ["TRP_000001.json", "TRP_000001_01.dng", "TRP_000001_01.jpg"])
        #expect(FileManager.default.contents(atPath: folder + "/TRP_000001_01.dng") == firstFrame)
        let sidecar = try BracketSidecar.decode(storage.read("2026-09-21/TRP_000001.json"))
        #expect(sidecar.result.status == .failed && sidecar.frames.count == 1)
        #expect(sidecar.frames[0].files.allSatisfy { file in
            (try? storage.read("2026-09-21/" + file.name)).flatMap { try? SHA256.hexDigest($0) } == file.sha256
        })
    }

    /// A DNG written in many short writes (1 KiB each) that fails in the middle of its own data,
    /// lossless or not: that frame leaves no file and no temporary file, the frame before it is
    /// unchanged.
    @Test(arguments: [DNGCompression.lossless, .none])
    func aDNGThatFailsMidFileLeavesNothingPartial(compression: DNGCompression) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sys = FaultInjectingSyscalls()
        sys.maximumWriteBytes = 1024
        let storage = try PosixStorage(root: dir, syscalls: RetryingSyscalls(sys))
        let store = try CaptureStore(storage: storage, configuration: CaptureStore.Configuration(
            camera: CameraIdentity(make: "Raspberry Pi", model: "test", uniqueCameraModel: "Raspberry Pi test"),
            safetyMarginBytes: 0, naming: CaptureNaming(timeZone: TimeZone(identifier: "UTC") ?? .current)))
        let size = PixelSize(width: 301, height: 257)
        var generator = UInt32(12345)
        let samples: [UInt8] = (0..<(size.width * size.height)).flatMap { _ -> [UInt8] in
            generator = generator &* 1_664_525 &+ 1_013_904_223
            let value = UInt16(generator >> 20)  // 12 bits
            return [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        let raw = FrameBuffer(pixelFormat: .srggb12, size: size, stride: size.width * 2, bytes: samples)
        func request(_ n: UInt64) -> CompletedRequest {
            CompletedRequest(cookie: n, sequence: n, sensorTimestamp: MonotonicTime(nanoseconds: Int64(n) * 33_000_000),
                             metadata: [ControlName.exposureTime: .int32(10_000), ControlName.analogueGain: .float(1)],
                             buffers: [.raw: raw])
        }
        let bracket = try store.beginBracket(BracketStart(
            plan: BracketPlanRecord(kind: "ev", summary: "bracket ev 3 1.0", frameCount: 3),
            outputs: BracketOutputs(rawSize: size, rgbSize: nil),
            startTime: Date(timeIntervalSince1970: 1_790_000_000), dngCompression: compression))
        let requested = FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 1)
        try bracket.addFrame(request(1), requested: requested)
        let folder = dir + "/2026-09-21"
        let firstFrame = try #require(FileManager.default.contents(atPath: folder + "/TRP_000001_01.dng"))
        #expect(firstFrame.count > 8 * 1024, "the DNG takes many 1 KiB writes")
        sys.fail(.write, call: 4, errno: EIO)  // the DNG's 4th KiB
        #expect(throws: MediaError.self) { try bracket.addFrame(request(2), requested: requested) }
        #expect(try allNames(folder) == ["TRP_000001.json", "TRP_000001_01.dng"])
        #expect(FileManager.default.contents(atPath: folder + "/TRP_000001_01.dng") == firstFrame)
    }

    /// A noisy 12-bit frame (so the lossless tiles are of many sizes), 301×257: off the tile grid.
    private static let noisyRaw: FrameBuffer = {
        let size = PixelSize(width: 301, height: 257)
        var generator = UInt32(777)
        let samples: [UInt8] = (0..<(size.width * size.height)).flatMap { _ -> [UInt8] in
            generator = generator &* 1_664_525 &+ 1_013_904_223
            let value = UInt16(generator >> 20)
            return [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        return FrameBuffer(pixelFormat: .srggb12, size: size, stride: size.width * 2, bytes: samples)
    }()

    /// A streamed DNG that fails at any one of its writes or seeks (the strips, the tags, the seeks
    /// back to fill in offsets) leaves no file and no temp file, and says it was the storage
    /// (a `HardwareError` with the errno), not the encoder.
    @Test(arguments: [DNGCompression.lossless, .none])
    func aStreamedDNGThatFailsAtAnyWriteOrSeekLeavesNoFileAndNoTempFile(compression: DNGCompression) throws {
        let description = DNGDescription(exif: CaptureExif(
            camera: CameraIdentity(make: "Raspberry Pi", model: "test", uniqueCameraModel: "Raspberry Pi test"),
            settings: nil, captureDate: Date(timeIntervalSince1970: 1_790_000_000), timeZone: TimeZone(identifier: "UTC") ?? .current,
            size: Self.noisyRaw.size), blackLevel: 256)
        func write(_ storage: PosixStorage) throws -> DNGFile {
            try storage.writeAtomically(to: "f.dng") { try DNGWriter.write(Self.noisyRaw, description: description, compression: compression, to: $0) }
        }
        let (probeRoot, probeCalls, probe) = try makeFaultInjectedStorage(maximumWriteBytes: 8_192)
        defer { try? FileManager.default.removeItem(atPath: probeRoot) }
        _ = try write(probe)
        let writes = probeCalls.count(.write), seeks = probeCalls.count(.seek)
        #expect(writes > 10 && seeks > 2, "\(writes) writes, \(seeks) seeks")
        #expect(probeCalls.count(.writeback) >= 1, "the card is asked to start on the image data before the fsync")
        // A writeback request is a hint: its failure leaves the fsync to report, and the file lands.
        let (hintRoot, hintCalls, hinted) = try makeFaultInjectedStorage(maximumWriteBytes: 8_192)
        defer { try? FileManager.default.removeItem(atPath: hintRoot) }
        hintCalls.fail(.writeback, errno: EIO, times: 100)
        _ = try write(hinted)
        #expect(try hinted.read("f.dng") == (try probe.read("f.dng")))
        for (operation, count) in [(FaultInjectingSyscalls.Operation.write, writes), (.seek, seeks)] {
            for n in 1...count {
                let (dir, sys, storage) = try makeFaultInjectedStorage(maximumWriteBytes: 8_192)
                defer { try? FileManager.default.removeItem(atPath: dir) }
                sys.fail(operation, call: n, errno: EIO)
                let error = #expect(throws: HardwareError.self, "\(operation) \(n) of \(count)") { _ = try write(storage) }
                #expect(error?.errno == EIO)
                #expect(try allNames(dir).isEmpty, "\(operation) \(n) of \(count)")
            }
        }
    }

    /// The sidecar's size and SHA-256 of a DNG are those of the file on the card, streamed in short
    /// writes; and that file is byte for byte the one the same frame makes in memory storage.
    @Test(arguments: [DNGCompression.lossless, .none])
    func theSidecarsChecksumIsOfTheStreamedFile(compression: DNGCompression) throws {
        let (dir, _, storage) = try makeFaultInjectedStorage(maximumWriteBytes: 4_000)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let memory = SimulatedStorage()
        var files: [[UInt8]] = []
        for target in [storage as any Storage, memory] {
            let store = try CaptureStore(storage: target, configuration: CaptureStore.Configuration(
                camera: CameraIdentity(make: "Raspberry Pi", model: "test", uniqueCameraModel: "Raspberry Pi test"),
                safetyMarginBytes: 0, naming: CaptureNaming(timeZone: TimeZone(identifier: "UTC") ?? .current)))
            let bracket = try store.beginBracket(BracketStart(
                plan: BracketPlanRecord(kind: "ev", summary: "bracket ev 1 0", frameCount: 1),
                outputs: BracketOutputs(rawSize: Self.noisyRaw.size, rgbSize: nil),
                startTime: Date(timeIntervalSince1970: 1_790_000_000), dngCompression: compression))
            let request = CompletedRequest(cookie: 1, sequence: 1, sensorTimestamp: MonotonicTime(nanoseconds: 33_000_000),
                                           metadata: [ControlName.exposureTime: .int32(10_000), ControlName.analogueGain: .float(1)],
                                           buffers: [.raw: Self.noisyRaw])
            let record = try bracket.addFrame(request, requested: FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 1))
            try bracket.finish()
            let dng = try #require(record.files.first { $0.kind == .dng })
            let bytes = try target.read("2026-09-21/" + dng.name)
            #expect(dng.bytes == bytes.count)
            #expect(dng.sha256 == (try SHA256.hexDigest(bytes)))
            let sidecar = try BracketSidecar.decode(target.read("2026-09-21/TRP_000001.json"))
            #expect(sidecar.frames.first?.files.first { $0.kind == .dng } == dng)
            files.append(bytes)
        }
        #expect(files[0] == files[1])
    }
}
