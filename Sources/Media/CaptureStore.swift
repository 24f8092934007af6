import Foundation
import Hardware

/// Saves brackets: DNG + JPEG per frame and one sidecar JSON, in date folders, through `Storage`
/// (every file written atomically). Checks for room before a bracket; a storage failure in the
/// middle marks the bracket failed, keeps the frames already saved and leaves nothing partial.
///
/// Not thread-safe: the supervisor uses it from its own loop.
public final class CaptureStore {
    /// What the store needs to know about the camera and how to write.
    public struct Configuration: Sendable {
        /// Make, model and lens written to every file.
        public var camera: CameraIdentity
        /// ColorMatrix1 when a frame has no ColourCorrectionMatrix metadata.
        public var colour: ColourCalibration
        /// Black level on libcamera's 16-bit scale, used when a frame's metadata has no
        /// `SensorBlackLevels` (4096 = 256 at 12 bits, the Raspberry Pi sensors' usual value).
        public var blackLevel16: Int
        /// ISO per unit analogue gain (100, the Raspberry Pi convention).
        public var isoPerGain: Double
        /// libjpeg quality, 1...100.
        public var jpegQuality: Int
        /// Kept free beyond a bracket's estimated size, bytes.
        public var safetyMarginBytes: Int64
        /// File names, folders and their time zone.
        public var naming: CaptureNaming

        /// A configuration; defaults suit the Raspberry Pi sensors.
        public init(camera: CameraIdentity, colour: ColourCalibration = .genericSRGB, blackLevel16: Int = 4096,
                    isoPerGain: Double = 100, jpegQuality: Int = 92, safetyMarginBytes: Int64 = 32 << 20,
                    naming: CaptureNaming = CaptureNaming()) {
            self.camera = camera; self.colour = colour; self.blackLevel16 = blackLevel16; self.isoPerGain = isoPerGain
            self.jpegQuality = jpegQuality; self.safetyMarginBytes = safetyMarginBytes; self.naming = naming
        }

        /// From a sensor database entry (identity, black level, ISO convention).
        public init(sensor: SensorDescription, make: String = "Raspberry Pi", naming: CaptureNaming = CaptureNaming()) {
            self.init(camera: CameraIdentity(sensor: sensor, make: make), blackLevel16: sensor.blackLevel16 ?? 4096,
                      isoPerGain: sensor.isoPerGain, naming: naming)
        }
    }

    /// Where the files go (`PosixStorage` on the board, `SimulatedStorage` in tests).
    public let storage: any Storage
    /// Camera identity, colour, quality, margin, naming.
    public let configuration: Configuration
    /// The sequence number the next bracket will try first.
    public private(set) var nextSequence: Int

    /// Scans the date folders and the persisted counter for the next sequence number.
    public init(storage: any Storage, configuration: Configuration) throws {
        self.storage = storage; self.configuration = configuration
        do { nextSequence = try configuration.naming.nextSequence(in: storage) } catch let e as HardwareError {
            throw MediaError(.storage, "capture store on \(storage.rootDescription): cannot scan for sequence numbers: \(e.message)", storageError: e)
        }
    }

    /// Estimated bytes of one frame's files: DNG = 2 bytes per pixel + 64 KiB of tags + 1.5
    /// bytes per preview pixel (a lossless DNG stays under it unless its samples are noise over
    /// the full 16 bits); JPEG ≤ 1.5 bytes per pixel + 64 KiB (high-quality JPEG of noisy scenes
    /// stays under it).
    public static func estimatedBytesPerFrame(_ outputs: BracketOutputs) -> Int64 {
        let raw = outputs.rawSize.map { Int64($0.area) * 2 + 65_536 + Int64(DNGPreview.size(for: $0).area) * 3 / 2 } ?? 0
        let rgb = outputs.rgbSize.map { Int64($0.area) * 3 / 2 + 65_536 } ?? 0
        return raw + rgb + 4_096  // + the sidecar's share
    }

    /// Bytes a bracket needs free before it starts: its frames, the sidecar and the counter, plus the margin.
    public func requiredBytes(frameCount: Int, outputs: BracketOutputs) -> Int64 {
        Int64(frameCount) * CaptureStore.estimatedBytesPerFrame(outputs) + 16_384 + configuration.safetyMarginBytes
    }

    /// Checks for room, takes a sequence number (persisted before anything else is written), and
    /// creates the date folder. Throws `MediaError` `.noRoom` (naming needed vs free bytes) or `.storage`.
    public func beginBracket(_ start: BracketStart) throws -> BracketRecorder {
        let naming = configuration.naming
        let needed = requiredBytes(frameCount: start.plan.frameCount, outputs: start.outputs)
        let free: Int64
        do { free = try storage.freeBytes() } catch let e as HardwareError {
            throw MediaError(.storage, "cannot check free space on \(storage.rootDescription): \(e.message)", storageError: e)
        }
        guard free >= needed else {
            throw MediaError(.noRoom, "not enough room on \(storage.rootDescription) for a \(start.plan.frameCount)-frame bracket: "
                + "needs \(megabytes(needed)) (incl. \(megabytes(configuration.safetyMarginBytes)) margin), \(megabytes(free)) free")
        }
        let folder = naming.folder(for: start.startTime)
        var sequence = nextSequence
        func taken(_ n: Int) -> Bool {
            let id = naming.bracketID(n)
            let names = [naming.sidecarName(bracketID: id)] + (0..<max(start.plan.frameCount, 1)).flatMap { i in
                [FileRecord.Kind.dng, .jpeg].map { naming.frameFileName(bracketID: id, frameIndex: i, kind: $0) }
            }
            return names.contains { storage.fileExists(folder + "/" + $0) }
        }
        while taken(sequence) { sequence += 1 }  // never overwrite: skip names already present
        do {
            try storage.writeAtomically(Array("\(sequence + 1)\n".utf8), to: CaptureNaming.counterPath)
            try storage.createDirectory(folder)
        } catch let e as HardwareError {
            throw MediaError(.storage, "bracket not started: \(e.message)", storageError: e)
        }
        nextSequence = sequence + 1
        var sidecar = BracketSidecar(id: naming.bracketID(sequence), folder: folder, plan: start.plan, startTime: start.startTime,
                                     startMonotonicNanoseconds: start.startMonotonic?.nanoseconds,
                                     shutterLagNanoseconds: start.shutterLag?.nanoseconds, camera: configuration.camera,
                                     result: BracketResult(status: .inProgress))
        sidecar.timelapse = start.timelapse
        sidecar.shot = start.shot
        return BracketRecorder(storage: storage, configuration: configuration, dngCompression: start.dngCompression,
                               rawBitDepth: start.outputs.rawBitDepth, rawImagedArea: start.outputs.rawImagedArea, sidecar: sidecar)
    }
}

/// What each frame of a bracket writes: a DNG when a raw stream is configured, a JPEG when an
/// RGB still stream is.
public struct BracketOutputs: Hashable, Sendable {
    /// Size of the raw stream (a DNG per frame), nil when none.
    public var rawSize: PixelSize?
    /// Size of the RGB still stream (a JPEG per frame), nil when none.
    public var rgbSize: PixelSize?
    /// Bits per sample of the sensor mode behind the raw stream (`CameraFormat.rawBitDepth`): a
    /// raw stream delivered with more (a Pi 5's 16-bit samples) is written at this depth where its
    /// samples allow (`RawUnpacking`). nil when unknown.
    public var rawBitDepth: Int?
    /// The pixel-array area the raw sensor mode reads (`CameraFormat.sensorModeCrop`): the DNG's
    /// focal plane (EXIF FocalPlaneXResolution, FocalLengthIn35mmFormat). nil: the whole array.
    public var rawImagedArea: PixelRect?
    /// Outputs from stream sizes and the raw sensor mode's bit depth and area.
    public init(rawSize: PixelSize?, rgbSize: PixelSize?, rawBitDepth: Int? = nil, rawImagedArea: PixelRect? = nil) {
        self.rawSize = rawSize; self.rgbSize = rgbSize; self.rawBitDepth = rawBitDepth; self.rawImagedArea = rawImagedArea
    }

    /// From the configured streams: `.raw` → DNG, `.stillCapture` → JPEG.
    public init(streams: [StreamConfiguration]) {
        rawSize = streams.first { $0.role == .raw }?.size
        rgbSize = streams.first { $0.role == .stillCapture }?.size
    }
}

/// How a bracket starts: the plan, what each frame writes, and when the trigger came.
public struct BracketStart: Sendable {
    /// The plan, as recorded in the sidecar (its frameCount sizes the room check).
    public var plan: BracketPlanRecord
    /// What each frame writes.
    public var outputs: BracketOutputs
    /// Wall clock of the trigger: picks the date folder; EXIF dates count from it.
    public var startTime: Date
    /// Monotonic time of the trigger; with it, each frame's EXIF date is startTime + (its
    /// SensorTimestamp − startMonotonic), and the shutter lag is measured from the first frame.
    public var startMonotonic: MonotonicTime?
    /// The shutter lag, when the engine measured it itself.
    public var shutterLag: Duration?
    /// How the bracket's DNGs store their samples (setting `media.dng.compression`).
    public var dngCompression: DNGCompression
    /// The time-lapse shot this bracket is, recorded in the sidecar; nil for other captures.
    public var timelapse: TimelapseShotRecord?
    /// A shot at a shared instant, recorded in the sidecar; nil otherwise.
    public var shot: ShotRecord?

    /// A bracket start; monotonic start and shutter lag are optional; DNGs lossless unless told.
    public init(plan: BracketPlanRecord, outputs: BracketOutputs, startTime: Date,
                startMonotonic: MonotonicTime? = nil, shutterLag: Duration? = nil, dngCompression: DNGCompression = .lossless,
                timelapse: TimelapseShotRecord? = nil) {
        self.plan = plan; self.outputs = outputs; self.startTime = startTime
        self.startMonotonic = startMonotonic; self.shutterLag = shutterLag; self.dngCompression = dngCompression
        self.timelapse = timelapse
    }
}

func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
