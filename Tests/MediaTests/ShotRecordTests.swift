import Foundation
import Hardware
import Testing
@testable import Media

/// A shot's record in the sidecar: the earliest saved frame's exposure start and its offset.
@Suite struct ShotRecordTests {
    func frame(sensor: Int64, wall: Int64?) -> CompletedRequest {
        var metadata: ControlList = [:]
        if let wall { metadata[ControlName.frameWallClock] = .int64(wall) }
        return CompletedRequest(cookie: 1, sequence: 1, sensorTimestamp: MonotonicTime(nanoseconds: sensor), metadata: metadata, buffers: [:])
    }

    @Test func theEarliestExposureIsKeptFromFrameWallClockOrTheMappedSensorTimestamp() {
        let target: Int64 = 1_777_636_805_250_000_000
        var record = ShotRecord(id: "a-1", targetWallClockNanoseconds: target, realtimeMinusMonotonicNanoseconds: target - 5_000_000_000,
                                clock: "synchronised", clockErrorMicroseconds: 412)
        #expect(record.target == "2026-05-01T12:00:05.250000Z")
        record.noteExposure(of: frame(sensor: 0, wall: target + 20_000_000))
        #expect(record.offsetMicroseconds == 20_000)
        record.noteExposure(of: frame(sensor: 0, wall: target + 525_000))
        #expect(record.offsetMicroseconds == 525)
        #expect(record.firstExposure == "2026-05-01T12:00:05.250525Z")
        #expect(record.firstExposureSource == "FrameWallClock")
        record.noteExposure(of: frame(sensor: 0, wall: target + 9_000_000))  // later: not the first
        #expect(record.offsetMicroseconds == 525)
        // Without FrameWallClock: SensorTimestamp + (realtime − monotonic).
        record.noteExposure(of: frame(sensor: 5_000_000_000 + 100_000, wall: nil))
        #expect(record.firstExposureWallClockNanoseconds == target + 100_000)
        #expect(record.firstExposureSource == "SensorTimestamp")
        #expect(ShotRecord.format(nanoseconds: 999) == "1970-01-01T00:00:00.000000Z")
        #expect(ShotRecord.format(nanoseconds: -1_000) == "1969-12-31T23:59:59.999999Z")
    }

    @Test func aSidecarWithoutAShotHasNoShotKeyAndOneWithItRoundTrips() throws {
        var sidecar = BracketSidecar(id: "TRP_000001", folder: "2026-05-01", plan: BracketPlanRecord(kind: "single", summary: "capture", frameCount: 1),
                                     startTime: Date(timeIntervalSince1970: 1_777_636_800), startMonotonicNanoseconds: nil, shutterLagNanoseconds: nil,
                                     camera: CameraIdentity(make: "Raspberry Pi", model: "imx708", uniqueCameraModel: "Raspberry Pi imx708"), result: BracketResult(status: .complete))
        #expect(!String(decoding: try sidecar.encoded(), as: UTF8.self).contains("\"shot\""))
        sidecar.shot = ShotRecord(id: "a-1", targetWallClockNanoseconds: 1_777_636_805_250_000_000, realtimeMinusMonotonicNanoseconds: 7,
                                  clock: "unsynchronised", clockErrorMicroseconds: nil)
        #expect(try BracketSidecar.decode(try sidecar.encoded()) == sidecar)
    }
}
