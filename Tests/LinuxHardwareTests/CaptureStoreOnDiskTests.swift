import Foundation
import Glibc
import Hardware
import Media
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
        // Frame 2: its 2nd write is the JPEG's data; its 2nd fsync is the directory's after the
        // DNG's rename (the DNG is then visible and must be removed again).
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
}
