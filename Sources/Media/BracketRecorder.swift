import Foundation
import Hardware

/// One bracket being saved: `addFrame` for each completed frame, then `finish()` or `fail(reason:)`.
///
/// The sidecar is rewritten after every frame (status `inProgress`), so a crash leaves a sidecar
/// that lists exactly the frames on disk.
public final class BracketRecorder {
    /// Where the files go.
    public let storage: any Storage
    /// The store's configuration when the bracket began.
    public let configuration: CaptureStore.Configuration
    /// How this bracket's DNGs store their samples.
    public let dngCompression: DNGCompression
    /// The raw sensor mode's bit depth (`BracketOutputs.rawBitDepth`), nil when unknown.
    public let rawBitDepth: Int?
    /// The pixel-array area the raw sensor mode reads (`BracketOutputs.rawImagedArea`), nil when unknown.
    public let rawImagedArea: PixelRect?
    /// The sidecar as it stands (frames so far, result).
    public private(set) var sidecar: BracketSidecar

    init(storage: any Storage, configuration: CaptureStore.Configuration, dngCompression: DNGCompression, rawBitDepth: Int?,
         rawImagedArea: PixelRect? = nil, sidecar: BracketSidecar) {
        self.storage = storage; self.configuration = configuration; self.dngCompression = dngCompression
        self.rawBitDepth = rawBitDepth; self.rawImagedArea = rawImagedArea; self.sidecar = sidecar
    }

    /// The bracket id and file stem, "TRP_000123".
    public var id: String { sidecar.id }
    /// The date folder, "YYYY-MM-DD", relative to the storage root.
    public var folder: String { sidecar.folder }
    /// The sidecar's path relative to the storage root.
    public var sidecarPath: String { folder + "/" + configuration.naming.sidecarName(bracketID: id) }

    /// Encodes and writes one frame (DNG from the `.raw` buffer, JPEG from an RGB `.stillCapture`
    /// buffer), then the sidecar. `requested` is the plan step; `clampedSettings` overrides the
    /// store's own comparison of requested and actual settings; `focus` is a focus bracket's lens.
    ///
    /// Encoding errors throw and leave the bracket open. A storage error (ENOSPC, EIO) removes this
    /// frame's already-written files, marks the bracket failed, writes the failed sidecar if it
    /// can, and throws `MediaError(.storage)`; earlier frames stay as they are.
    @discardableResult
    public func addFrame(_ frame: CompletedRequest, requested: FrameSettings, index: Int? = nil,
                         clampedSettings: Bool? = nil, stabilization: StabilizationRecord? = nil,
                         sensorHDR: Bool = false, focus: FocusRecord? = nil) throws -> FrameRecord {
        guard sidecar.result.status == .inProgress else {
            throw MediaError(.bracketClosed, "bracket \(id) is already \(sidecar.result.status.rawValue)")
        }
        var actual = FrameSettings.reported(in: frame.metadata, isoPerGain: configuration.isoPerGain)
        if actual?.evBiasEV == nil { actual?.evBiasEV = requested.evBiasEV }
        let frameIndex = index ?? sidecar.frames.count
        let (outputs, raw) = try prepare(frame, settings: actual, frameIndex: frameIndex, stabilization: stabilization)

        var written: [FileRecord] = []
        do {
            for output in outputs {
                written.append(try output.write(storage, folder))
            }
        } catch let error as HardwareError {
            // This frame's files go, including one whose write failed after its rename (directory fsync).
            for output in outputs where storage.fileExists(folder + "/" + output.name) {
                try? storage.remove(folder + "/" + output.name)
            }
            throw storageFailure(error, while: "writing frame \(frameIndex + 1)")
        } catch {
            // An encoding error of the streamed DNG: its file is absent; a file before it goes too.
            for record in written { try? storage.remove(folder + "/" + record.name) }
            throw error
        }
        let mismatches = actual.map { requested.mismatches(actual: $0) } ?? []
        var record = FrameRecord(index: frameIndex, requested: requested, actual: actual,
                                 clampedSettings: clampedSettings ?? !mismatches.isEmpty, mismatches: mismatches,
                                 sensorTimestampNanoseconds: frame.sensorTimestamp.nanoseconds, sensorSequence: frame.sequence,
                                 files: written, stabilization: stabilization)
        if case .rectangle(let crop)? = frame.metadata[ControlName.scalerCrop] { record.scalerCrop = crop }
        record.wallClockNanoseconds = frame.metadata[ControlName.frameWallClock]?.int64Value
        record.hdr = videoHDRLabel(metadata: frame.metadata, sensorHDR: sensorHDR)
        record.focus = focus
        record.raw = raw
        record.simulation = SimulationTruth(metadata: frame.metadata)
        sidecar.frames.append(record)
        sidecar.shot?.noteExposure(of: frame)
        if sidecar.shutterLagNanoseconds == nil, let start = sidecar.startMonotonicNanoseconds {
            sidecar.shutterLagNanoseconds = frame.sensorTimestamp.nanoseconds - start
        }
        do { try writeSidecar() } catch let error as HardwareError {
            throw storageFailure(error, while: "writing the sidecar after frame \(frameIndex + 1)")
        }
        return record
    }

    /// Marks the bracket complete and writes the final sidecar. A storage error marks it failed instead.
    @discardableResult
    public func finish() throws -> BracketSidecar {
        guard sidecar.result.status == .inProgress else {
            throw MediaError(.bracketClosed, "bracket \(id) is already \(sidecar.result.status.rawValue)")
        }
        sidecar.result = BracketResult(status: .complete)
        do { try writeSidecar() } catch let error as HardwareError {
            throw storageFailure(error, while: "writing the final sidecar")
        }
        return sidecar
    }

    /// Marks the bracket failed (camera disconnect, timeout, …) and writes the sidecar; the frames
    /// already saved stay. Throws `MediaError(.storage)` only when the sidecar cannot be written.
    public func fail(reason: String) throws {
        guard sidecar.result.status == .inProgress else { return }
        sidecar.result = BracketResult(status: .failed, reason: reason)
        do { try writeSidecar() } catch let error as HardwareError {
            throw MediaError(.storage, "bracket \(id) failed (\(reason)); its sidecar could not be written: \(error.message)",
                             storageError: error)
        }
    }

    /// One file of a frame, to be written: `write` stores it and returns its record (size, SHA-256).
    private struct Output {
        var name: String
        var write: (any Storage, String) throws -> FileRecord
    }

    /// The files of one frame, and what was done to its raw samples when they were not written as
    /// delivered. The raw buffer goes through `RawUnpacking` first (CSI-2 packed, PiSP 16-bit or
    /// compressed raw to plain samples at the mode's bit depth), so the DNG writer, its lossless
    /// encoder and the black level all see unpacked samples at the depth written.
    ///
    /// The JPEG is encoded here (so its errors come before anything is written) and written whole;
    /// the DNG is streamed to its temp file as libtiff builds it (`DNGWriter.write` inside
    /// `Storage.writeAtomically(to:streaming:)`), and its SHA-256 is of the bytes that went out, in
    /// file order: the same bytes the file holds, without keeping a copy of the file or reading it
    /// back.
    private func prepare(_ frame: CompletedRequest, settings: FrameSettings?, frameIndex: Int,
                         stabilization: StabilizationRecord?) throws -> ([Output], RawRecord?) {
        let naming = configuration.naming
        // The camera's own wall clock for this frame where it reports one (FrameWallClock); else the
        // trigger's wall-clock time moved by the frame's monotonic distance from the trigger.
        var captureDate = sidecar.startTime
        if let wallClock = frame.metadata[ControlName.frameWallClock]?.int64Value {
            captureDate = Date(timeIntervalSince1970: Double(wallClock) / 1e9)
        } else if let start = sidecar.startMonotonicNanoseconds {
            captureDate += Double(frame.sensorTimestamp.nanoseconds - start) / 1e9
        }
        var outputs: [Output] = []
        var rawRecord: RawRecord?
        if let delivered = frame.buffers[.raw] {
            let unpacked = try RawUnpacking.unpack(delivered, modeBitDepth: rawBitDepth)
            let raw = unpacked.frame
            var exif = CaptureExif(camera: configuration.camera, settings: settings, captureDate: captureDate,
                                   timeZone: naming.timeZone, size: raw.size)
            exif.stabilization = stabilization
            exif.imagedArea = rawImagedArea
            let layout = try BayerLayout(raw.pixelFormat)
            let description = DNGDescription(exif: exif, blackLevel: blackLevel(frame.metadata, layout: layout),
                                             colour: colourCalibration(frame.metadata, settings: settings))
            let name = naming.frameFileName(bracketID: id, frameIndex: frameIndex, kind: .dng)
            let compression = dngCompression
            outputs.append(Output(name: name) { storage, folder in
                let file = try storage.writeAtomically(to: folder + "/" + name) { stream in
                    try DNGWriter.write(raw, description: description, compression: compression, to: stream, sha256: true)
                }
                guard let sha256 = file.sha256 else { throw MediaError(.encoding, "DNG \(name): the writer gave no SHA-256") }
                return FileRecord(name: name, kind: .dng, bytes: file.byteCount, sha256: sha256)
            })
            if !unpacked.passedThrough || unpacked.note != nil {
                rawRecord = RawRecord(delivered: delivered.pixelFormat.rawValue, written: raw.pixelFormat.rawValue,
                                      bitsPerSample: layout.bitsPerSample, note: unpacked.note)
            }
        }
        if let still = frame.buffers[.stillCapture] {
            var exif = CaptureExif(camera: configuration.camera, settings: settings, captureDate: captureDate,
                                   timeZone: naming.timeZone, size: still.size)
            exif.stabilization = stabilization
            // The processed picture shows the frame's ScalerCrop (the mode's area, zoom, EIS).
            if case .rectangle(let crop)? = frame.metadata[ControlName.scalerCrop] { exif.imagedArea = crop }
            let bytes = try JPEGWriter.encode(still, exif: exif, quality: configuration.jpegQuality)
            let name = naming.frameFileName(bracketID: id, frameIndex: frameIndex, kind: .jpeg)
            let record = FileRecord(name: name, kind: .jpeg, bytes: bytes.count, sha256: try SHA256.hexDigest(bytes))
            outputs.append(Output(name: name) { storage, folder in
                try storage.writeAtomically(bytes, to: folder + "/" + name)
                return record
            })
        }
        guard !outputs.isEmpty else {
            throw MediaError(.invalidFrame, "frame \(frame.sequence) of bracket \(id) has neither a raw nor a still buffer")
        }
        return (outputs, rawRecord)
    }

    /// Black level in sample units: libcamera's `SensorBlackLevels` (4 values, 16-bit scale)
    /// averaged when present, else the configured level, scaled to the format's bit depth.
    private func blackLevel(_ metadata: ControlList, layout: BayerLayout) -> Double {
        let levels16 = metadata["SensorBlackLevels"]?.doubleArray.flatMap { $0.isEmpty ? nil : $0 }
        let level16 = levels16.map { $0.reduce(0, +) / Double($0.count) } ?? Double(configuration.blackLevel16)
        return level16 / Double(1 << (16 - layout.bitsPerSample))
    }

    /// The frame's own calibration from libcamera's ColourCorrectionMatrix and ColourGains when
    /// both are present, else the configured one (the generic matrix by default).
    private func colourCalibration(_ metadata: ControlList, settings: FrameSettings?) -> ColourCalibration {
        guard let ccm = metadata["ColourCorrectionMatrix"]?.doubleArray, let gains = settings?.colourGains,
              let calibration = ColourCalibration.fromLibcamera(
                  colourCorrectionMatrix: ccm, gains: gains,
                  colourTemperatureKelvin: metadata[ControlName.colourTemperature]?.doubleValue) else {
            return configuration.colour
        }
        return calibration
    }

    private func writeSidecar() throws {
        try storage.writeAtomically(try sidecar.encoded(), to: sidecarPath)
    }

    /// Marks the bracket failed after a storage error and tries to record that in the sidecar.
    private func storageFailure(_ error: HardwareError, while action: String) -> MediaError {
        let reason = "storage: \(error.message)"
        sidecar.result = BracketResult(status: .failed, reason: reason)
        var message = "bracket \(id) failed \(action); \(sidecar.frames.count) earlier frame(s) kept: \(error.message)"
        do { try writeSidecar() } catch let sidecarError as HardwareError {
            message += "; the failed sidecar could not be written either: \(sidecarError.message)"
        } catch {
            message += "; the failed sidecar could not be encoded: \(error)"
        }
        return MediaError(.storage, message, storageError: error)
    }
}
