import Hardware
import Testing
@testable import Media

@Suite struct FrameSettingsTests {
    @Test func metadataBecomesSettingsWithISOFromGain() throws {
        let s = try FrameSettings(metadata: [ControlName.exposureTime: .int32(8_000), ControlName.analogueGain: .float(3.2),
                                             ControlName.exposureValue: .float(-1), ControlName.lensPosition: .float(0.5)],
                                  isoPerGain: 100)
        #expect(s.exposureTimeMicroseconds == 8_000 && s.iso == 320 && s.evBiasEV == -1 && s.lensPositionDioptres == 0.5)
        #expect(s.colourGains == nil)
        #expect(throws: MediaError.self) { try FrameSettings(metadata: [ControlName.analogueGain: .float(1)]) }
    }

    @Test func mismatchesUseTolerancesAndSkipWhatWasNotRequested() {
        let requested = FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 2, colourGains: ColourGains(red: 2, blue: 1.5),
                                      lensPositionDioptres: 1)
        let close = FrameSettings(exposureTimeMicroseconds: 10_150, analogueGain: 2.02, colourGains: ColourGains(red: 2.01, blue: 1.5),
                                  lensPositionDioptres: 1.04)
        #expect(requested.mismatches(actual: close).isEmpty)
        let clamped = FrameSettings(exposureTimeMicroseconds: 8_000, analogueGain: 1, colourGains: ColourGains(red: 1, blue: 1.5),
                                    lensPositionDioptres: 2)
        #expect(requested.mismatches(actual: clamped) == ["exposureTimeMicroseconds", "analogueGain", "colourGains", "lensPositionDioptres"])
        // An auto-exposure step (exposure and gain 0, only an EV bias) is not compared on exposure or gain.
        let aeStep = FrameSettings(exposureTimeMicroseconds: 0, analogueGain: 0, evBiasEV: 1)
        #expect(aeStep.mismatches(actual: clamped).isEmpty)
    }

    @Test func exifRationalsAreExact() {
        let exif = CaptureExif(camera: testCamera, settings: FrameSettings(exposureTimeMicroseconds: 33_333, analogueGain: 1),
                               captureDate: .init(timeIntervalSince1970: 0), timeZone: .gmt, size: PixelSize(width: 1, height: 1))
        #expect(exif.exposureTimeRational?.numerator == 33_333 && exif.exposureTimeRational?.denominator == 1_000_000)
        #expect(exif.subjectDistanceRational == nil)
        #expect(exif.exifDateString == "1970:01:01 00:00:00")
    }
}

@Suite struct CameraIdentityTests {
    @Test func aCameraWithoutADatabaseEntryIsNotLabelledWithAMaker() {
        let info = CameraInfo(id: "platform/vimc.0 Sensor B", model: "Sensor B", location: .back,
                              pixelArraySize: PixelSize(width: 4096, height: 2160), unitCellSizeNanometres: nil)
        let identity = CameraIdentity(sensor: .unknown(info: info, controlInfo: [:]))
        #expect(identity.make == "unknown" && identity.model == "Sensor B (no sensor database entry)")
        #expect(identity.focalLengthMillimetres == nil && identity.fNumber == nil)
    }
}
