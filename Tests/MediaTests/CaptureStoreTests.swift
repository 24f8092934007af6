import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Media

private let utc = TimeZone(identifier: "UTC") ?? .current
private let start = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21 14:13:20 UTC
private let outputs = BracketOutputs(rawSize: PixelSize(width: 32, height: 24), rgbSize: PixelSize(width: 32, height: 24))

private func configuration(margin: Int64 = 0) -> CaptureStore.Configuration {
    CaptureStore.Configuration(camera: testCamera, safetyMarginBytes: margin, naming: CaptureNaming(timeZone: utc))
}

/// A completed request with a raw and an RGB buffer whose metadata reports `exposure` and `gain`.
private func completed(_ sequence: UInt64, exposure: Int32, gain: Float, timestampNanoseconds: Int64) -> CompletedRequest {
    CompletedRequest(cookie: sequence, sequence: sequence, sensorTimestamp: MonotonicTime(nanoseconds: timestampNanoseconds),
                     metadata: [ControlName.exposureTime: .int32(exposure), ControlName.analogueGain: .float(gain),
                                ControlName.colourGains: .floatArray([1.9, 1.5]), ControlName.lensPosition: .float(1.0)],
                     buffers: [.raw: makeRawFrame(width: 32, height: 24), .stillCapture: makeRGBFrame(width: 32, height: 24)])
}

private func step(_ exposure: Int, _ gain: Double) -> FrameSettings {
    FrameSettings(exposureTimeMicroseconds: exposure, analogueGain: gain)
}

private func begin(_ store: CaptureStore, frames: Int) throws -> BracketRecorder {
    try store.beginBracket(BracketStart(plan: BracketPlanRecord(kind: "manual", summary: "test", frameCount: frames),
                                        outputs: outputs, startTime: start, startMonotonic: MonotonicTime(nanoseconds: 1_000_000_000)))
}

@Suite struct CaptureStoreTests {
    @Test func aCompleteBracketWritesFramesAndASidecarWithChecksums() throws {
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        let bracket = try begin(store, frames: 3)
        #expect(bracket.id == "TRP_000001" && bracket.folder == "2026-09-21")
        try bracket.addFrame(completed(10, exposure: 10_000, gain: 2, timestampNanoseconds: 1_050_000_000), requested: step(10_000, 2))
        // The sensor clamped this one: 20 ms asked, 16.6 ms used.
        try bracket.addFrame(completed(11, exposure: 16_600, gain: 2, timestampNanoseconds: 1_083_000_000), requested: step(20_000, 2))
        try bracket.addFrame(completed(12, exposure: 5_000, gain: 2, timestampNanoseconds: 1_116_000_000), requested: step(5_000, 2))
        let sidecar = try bracket.finish()

        #expect(try storage.list("2026-09-21") == [
            "TRP_000001.json", "TRP_000001_01.dng", "TRP_000001_01.jpg", "TRP_000001_02.dng", "TRP_000001_02.jpg",
            "TRP_000001_03.dng", "TRP_000001_03.jpg",
        ])
        let onDisk = try BracketSidecar.decode(storage.read("2026-09-21/TRP_000001.json"))
        #expect(onDisk == sidecar)
        #expect(onDisk.result.status == .complete)
        #expect(onDisk.shutterLagNanoseconds == 50_000_000)
        #expect(onDisk.frames.map(\.clampedSettings) == [false, true, false])
        #expect(onDisk.frames[1].mismatches == ["exposureTimeMicroseconds"])
        #expect(onDisk.frames[1].requested.exposureTimeMicroseconds == 20_000)
        #expect(onDisk.frames[1].actual?.exposureTimeMicroseconds == 16_600)
        #expect(onDisk.frames[0].actual?.iso == 200)
        #expect(onDisk.frames[0].actual?.colourGains == ColourGains(red: Double(Float(1.9)), blue: 1.5))
        #expect(onDisk.frames[0].actual?.lensPositionDioptres == 1.0)
        #expect(onDisk.frames[2].sensorTimestampNanoseconds == 1_116_000_000)
        for frame in onDisk.frames {
            for file in frame.files {
                let bytes = try storage.read("2026-09-21/" + file.name)
                #expect(try SHA256.hexDigest(bytes) == file.sha256 && bytes.count == file.bytes)
            }
        }
        let json = String(decoding: try storage.read("2026-09-21/TRP_000001.json"), as: UTF8.self)
        #expect(json.contains("\"startTime\" : \"2026-09-21T14:13:20Z\""))
        #expect(json.contains("\"clampedSettings\" : true"))
    }

    @Test func framesRecordTheCamerasWallClockWhereItSendsOne() throws {
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        let bracket = try begin(store, frames: 2)
        var withClock = completed(10, exposure: 10_000, gain: 2, timestampNanoseconds: 1_050_000_000)
        // FrameWallClock (libcamera 0.5+): 2026-09-21 14:13:25.5 UTC, 5.45 s after the trigger's wall time.
        withClock.metadata[ControlName.frameWallClock] = .int64(1_790_000_005_500_000_000)
        try bracket.addFrame(withClock, requested: step(10_000, 2))
        try bracket.addFrame(completed(11, exposure: 10_000, gain: 2, timestampNanoseconds: 1_083_000_000), requested: step(10_000, 2))
        let sidecar = try bracket.finish()
        #expect(sidecar.frames.map(\.wallClockNanoseconds) == [1_790_000_005_500_000_000, nil])
        // EXIF: the camera's wall clock where it gave one; else the trigger's time plus the frame's distance.
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var dates: [String] = []
        for frame in sidecar.frames {
            let jpeg = try #require(frame.files.first { $0.kind == .jpeg })
            let path = directory + "/" + jpeg.name
            try Data(storage.read("2026-09-21/" + jpeg.name)).write(to: URL(fileURLWithPath: path))
            dates.append(try exiftoolJSON(path)["EXIF:DateTimeOriginal"] as? String ?? "")
        }
        #expect(dates == ["2026:09:21 14:13:25", "2026:09:21 14:13:20"])
    }

    @Test func fullDiskBeforeTheBracketRefusesWithNeededAndFree() throws {
        let storage = SimulatedStorage(capacityBytes: 200_000)
        let store = try CaptureStore(storage: storage, configuration: configuration(margin: 10_000))
        do {
            _ = try begin(store, frames: 5)
            Issue.record("bracket started without room")
        } catch let error as MediaError {
            #expect(error.kind == .noRoom)
            // 5 × (DNG 2 B/px + JPEG 1.5 B/px + 132 KiB) + 16 KiB + margin = 0.72 MB; 0.2 MB free.
            #expect(error.message.contains("needs 0.7 MB") && error.message.contains("0.2 MB free"), "\(error.message)")
            #expect(error.message.contains("5-frame"))
        }
        #expect(storage.files.isEmpty && storage.writeCount == 0)
    }

    @Test(arguments: [HardwareError.Kind.noSpace, .io])
    func aStorageErrorMidBracketFailsItKeepsEarlierFramesAndLeavesNothingPartial(kind: HardwareError.Kind) throws {
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        let bracket = try begin(store, frames: 3)
        try bracket.addFrame(completed(1, exposure: 10_000, gain: 1, timestampNanoseconds: 1_100_000_000), requested: step(10_000, 1))
        let firstFrame = try storage.read("2026-09-21/TRP_000001_01.dng")
        // Frame 2: its DNG is written, then its JPEG write fails.
        storage.failWrite(2, with: kind)
        do {
            try bracket.addFrame(completed(2, exposure: 20_000, gain: 1, timestampNanoseconds: 1_200_000_000), requested: step(20_000, 1))
            Issue.record("storage error not reported")
        } catch let error as MediaError {
            #expect(error.kind == .storage && error.storageError?.kind == kind)
            #expect(error.message.contains("TRP_000001") && error.message.contains("1 earlier frame"))
        }
        // Frame 1 intact; no file of frame 2 (the orphan DNG was removed); sidecar says failed.
        #expect(try storage.read("2026-09-21/TRP_000001_01.dng") == firstFrame)
        #expect(try storage.list("2026-09-21") == ["TRP_000001.json", "TRP_000001_01.dng", "TRP_000001_01.jpg"])
        let sidecar = try BracketSidecar.decode(storage.read("2026-09-21/TRP_000001.json"))
        #expect(sidecar.result.status == .failed && sidecar.frames.count == 1)
        #expect(sidecar.result.reason?.contains(kind == .noSpace ? "No space left" : "Input/output error") == true)
        // The bracket is closed; the store carries on with the next one.
        #expect(throws: MediaError.self) { try bracket.finish() }
        let next = try begin(store, frames: 1)
        try next.addFrame(completed(3, exposure: 1_000, gain: 1, timestampNanoseconds: 1_300_000_000), requested: step(1_000, 1))
        #expect(try next.finish().result.status == .complete && next.id == "TRP_000002")
    }

    @Test func aDiskThatStaysFullKeepsTheLastGoodSidecarAndReportsBoth() throws {
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        let bracket = try begin(store, frames: 3)
        try bracket.addFrame(completed(1, exposure: 10_000, gain: 1, timestampNanoseconds: 1_100_000_000), requested: step(10_000, 1))
        storage.failWrite(1, with: .noSpace, andAfter: true)
        do {
            try bracket.addFrame(completed(2, exposure: 10_000, gain: 1, timestampNanoseconds: 1_200_000_000), requested: step(10_000, 1))
            Issue.record("no error")
        } catch let error as MediaError {
            #expect(error.message.contains("sidecar could not be written"))
        }
        #expect(bracket.sidecar.result.status == .failed)
        let sidecar = try BracketSidecar.decode(storage.read("2026-09-21/TRP_000001.json"))
        #expect(sidecar.frames.count == 1 && sidecar.result.status == .inProgress)
        #expect(try storage.list("2026-09-21").count == 3)
    }

    @Test func failRecordsTheReasonAndKeepsFrames() throws {
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        let bracket = try begin(store, frames: 3)
        try bracket.addFrame(completed(1, exposure: 10_000, gain: 1, timestampNanoseconds: 1_100_000_000), requested: step(10_000, 1))
        try bracket.fail(reason: "camera disconnected")
        let sidecar = try BracketSidecar.decode(storage.read("2026-09-21/TRP_000001.json"))
        #expect(sidecar.result == BracketResult(status: .failed, reason: "camera disconnected"))
        #expect(sidecar.frames.count == 1)
    }
}

@Suite struct CaptureNamingTests {
    @Test func sequenceNumbersSurviveARestartAndALostCounter() throws {
        let storage = SimulatedStorage()
        do {
            let store = try CaptureStore(storage: storage, configuration: configuration())
            for _ in 0..<2 {
                let b = try begin(store, frames: 1)
                try b.addFrame(completed(1, exposure: 1_000, gain: 1, timestampNanoseconds: 1_100_000_000), requested: step(1_000, 1))
                try b.finish()
            }
        }
        // "Restart": a new store on the same storage.
        #expect(try CaptureStore(storage: storage, configuration: configuration()).nextSequence == 3)
        // Counter lost: the files still say 3.
        try storage.remove(CaptureNaming.counterPath)
        #expect(try CaptureStore(storage: storage, configuration: configuration()).nextSequence == 3)
        // Files deleted by the user, counter kept: numbers are not reused.
        try storage.writeAtomically(Array("40\n".utf8), to: CaptureNaming.counterPath)
        for name in try storage.list("2026-09-21") { try storage.remove("2026-09-21/" + name) }
        #expect(try CaptureStore(storage: storage, configuration: configuration()).nextSequence == 40)
    }

    @Test func anExistingNameIsSkippedNeverOverwritten() throws {
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        // Someone put a file with the next name in place after the store scanned.
        try storage.createDirectory("2026-09-21")
        try storage.writeAtomically([1, 2, 3], to: "2026-09-21/TRP_000001_02.jpg")
        let bracket = try begin(store, frames: 2)
        #expect(bracket.id == "TRP_000002")
        #expect(try storage.read("2026-09-21/TRP_000001_02.jpg") == [1, 2, 3])
        #expect(String(decoding: try storage.read(CaptureNaming.counterPath), as: UTF8.self) == "3\n")
    }

    @Test func dateFoldersFollowTheConfiguredTimeZone() {
        let tokyo = CaptureNaming(timeZone: TimeZone(identifier: "Asia/Tokyo") ?? utc)
        let late = Date(timeIntervalSince1970: 1_790_000_000 + 10 * 3600)  // 00:13 UTC next day… 09:13 in Tokyo
        #expect(CaptureNaming(timeZone: utc).folder(for: start) == "2026-09-21")
        #expect(tokyo.folder(for: start) == "2026-09-21")
        #expect(tokyo.folder(for: late) == "2026-09-22")
        #expect(tokyo.sequence(inFileName: "TRP_000123_01.dng") == 123)
        #expect(tokyo.sequence(inFileName: "TRP_12.dng") == nil)
        #expect(tokyo.sequence(inFileName: "IMG_000123.jpg") == nil)
    }
}

@Suite struct CaptureStoreColourTests {
    @Test func aFrameWithLibcameraColourMetadataGetsItsOwnColorMatrix() throws {
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        let bracket = try begin(store, frames: 1)
        var frame = completed(1, exposure: 10_000, gain: 1, timestampNanoseconds: 1_100_000_000)
        frame.metadata["ColourCorrectionMatrix"] = .floatArray([1, 0, 0, 0, 1, 0, 0, 0, 1])
        frame.metadata[ControlName.colourTemperature] = .int32(2900)
        frame.metadata["SensorBlackLevels"] = .int32Array([4096, 4096, 4096, 4096])
        try bracket.addFrame(frame, requested: step(10_000, 1))
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(storage.read("2026-09-21/TRP_000001_01.dng")).write(to: URL(fileURLWithPath: dir + "/f.dng"))
        let tags = try exiftoolJSON(dir + "/f.dng")
        #expect(tags["EXIF:CalibrationIlluminant1"] as? Int == 17)
        #expect(tags["EXIF:BlackLevel"] as? Double == 256 || tags["EXIF:BlackLevel"] as? Int == 256)
        let matrix = (tags["EXIF:ColorMatrix1"] as? String)?.split(separator: " ").compactMap { Double($0) } ?? []
        // Identity CCM, red gain 1.9: the first row is the sRGB row divided by 1.9.
        #expect(matrix.count == 9 && abs(matrix[0] - 3.2406 / 1.9) < 5e-3)
    }
}

@Suite struct StabilizationInFileMetadataTests {
    @Test func eachFileCarriesItsFramesStabilizationStatusForExiftool() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-stab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        let bracket = try begin(store, frames: 2)
        try bracket.addFrame(completed(10, exposure: 10_000, gain: 2, timestampNanoseconds: 1_050_000_000), requested: step(10_000, 2),
                             stabilization: StabilizationRecord(status: .active, measuredBlurPixels: 0.84, attempts: 2))
        try bracket.addFrame(completed(11, exposure: 10_000, gain: 2, timestampNanoseconds: 1_083_000_000), requested: step(10_000, 2),
                             stabilization: StabilizationRecord(status: .unavailable))
        _ = try bracket.finish()
        let expectations = [("TRP_000001_01", "Stabilization Active, blur 0.8 px, attempt 2"), ("TRP_000001_02", "Stabilization Unavailable")]
        for (name, text) in expectations {
            for ext in ["dng", "jpg"] {
                let path = directory.appendingPathComponent("\(name).\(ext)").path
                try Data(storage.read("\(bracket.folder)/\(name).\(ext)")).write(to: URL(fileURLWithPath: path))
                let tags = try exiftoolJSON(path)
                func tag(_ name: String) -> String { tags.first { $0.key.hasSuffix(":" + name) }?.value as? String ?? "" }
                if ext == "jpg" {  // the DNG leaves ImageDescription out (dcraw misreads it): UserComment only
                    #expect(tag("ImageDescription").hasSuffix(text), "\(name).\(ext): \(tag("ImageDescription"))")
                }
                #expect(tag("UserComment").contains(text), "\(name).\(ext) UserComment: \(tag("UserComment"))")
            }
        }
    }
}

@Suite struct UnreportedSettingsTests {
    /// A camera that reports no ExposureTime/AnalogueGain (vimc): the frame is saved, its sidecar
    /// record has no `actual`, and the files carry no exposure or ISO tags but say why.
    @Test func aFrameWithoutExposureMetadataIsSavedWithItsSettingsUnknownNotInvented() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = SimulatedStorage()
        let store = try CaptureStore(storage: storage, configuration: configuration())
        let bracket = try begin(store, frames: 1)
        var frame = completed(5, exposure: 1, gain: 1, timestampNanoseconds: 1_040_000_000)
        frame.metadata = [ControlName.sensorTimestamp: .int64(1_040_000_000)]
        let record = try bracket.addFrame(frame, requested: FrameSettings(exposureTimeMicroseconds: 0, analogueGain: 0, evBiasEV: 0))
        _ = try bracket.finish()
        #expect(record.actual == nil && !record.clampedSettings && record.mismatches.isEmpty)
        let json = String(decoding: try storage.read("2026-09-21/TRP_000001.json"), as: UTF8.self)
        #expect(!json.contains("\"actual\""), "no invented actual settings in the sidecar")
        #expect(try BracketSidecar.decode(storage.read("2026-09-21/TRP_000001.json")).frames.first?.actual == nil)
        for ext in ["dng", "jpg"] {
            let path = directory + "/f." + ext
            try Data(storage.read("2026-09-21/TRP_000001_01." + ext)).write(to: URL(fileURLWithPath: path))
            let tags = try exiftoolJSON(path)
            #expect(tags["EXIF:ExposureTime"] == nil && tags["EXIF:ISO"] == nil, "\(ext): \(tags)")
            #expect((tags["EXIF:UserComment"] as? String)?.contains("exposure not reported by the camera") == true, "\(ext)")
        }
        let warnings = try runTool("exiftool", ["-validate", "-warning", "-a", "-s", directory + "/f.jpg"])
        #expect(!String(decoding: warnings.stdout, as: UTF8.self).contains("Warning"), "\(String(decoding: warnings.stdout, as: UTF8.self))")
    }
}
