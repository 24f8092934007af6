import Foundation
import Hardware

/// The sidecar JSON written once per bracket, next to its frames (`TRP_000123.json`).
public struct BracketSidecar: Hashable, Sendable, Codable {
    /// Bumped when a field changes meaning.
    public var formatVersion: Int = 1
    /// The bracket's id, which is also its file stem: "TRP_000123".
    public var id: String
    /// The date folder, "YYYY-MM-DD".
    public var folder: String
    /// The plan the bracket ran.
    public var plan: BracketPlanRecord
    /// Wall-clock start (the trigger), ISO 8601 in the JSON.
    public var startTime: Date
    /// Monotonic nanoseconds of the trigger (CLOCK_MONOTONIC, the SensorTimestamp clock).
    public var startMonotonicNanoseconds: Int64?
    /// Trigger to start of exposure of the first frame, nanoseconds.
    public var shutterLagNanoseconds: Int64?
    /// Make, model, lens.
    public var camera: CameraIdentity
    /// inProgress while frames arrive, then complete or failed.
    public var result: BracketResult
    /// The frames saved, in the order they were saved.
    public var frames: [FrameRecord]
    /// A time-lapse's shot: its number and when it was due; absent for other captures.
    public var timelapse: TimelapseShotRecord?
    /// A shot at a shared instant: its id, instant, first exposure and clock; absent otherwise.
    public var shot: ShotRecord?

    /// A sidecar from its parts (the store makes these).
    public init(id: String, folder: String, plan: BracketPlanRecord, startTime: Date, startMonotonicNanoseconds: Int64?,
                shutterLagNanoseconds: Int64?, camera: CameraIdentity, result: BracketResult, frames: [FrameRecord] = []) {
        self.id = id; self.folder = folder; self.plan = plan; self.startTime = startTime
        self.startMonotonicNanoseconds = startMonotonicNanoseconds; self.shutterLagNanoseconds = shutterLagNanoseconds
        self.camera = camera; self.result = result; self.frames = frames
    }

    /// Pretty-printed JSON with sorted keys and ISO 8601 dates.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(self)) + [0x0A]
    }

    /// Parses a sidecar written by `encoded()`.
    public static func decode(_ bytes: [UInt8]) throws -> BracketSidecar {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(BracketSidecar.self, from: Data(bytes))
    }
}

/// A time-lapse shot's place in its sequence (`timelapse start`, docs/sequences.md).
public struct TimelapseShotRecord: Hashable, Sendable, Codable {
    /// The shot's number, from 1 at the time-lapse's start; missed shots keep theirs, so numbers
    /// go on across a restart and a gap shows what was missed.
    public var shot: Int
    /// When the shot was due on the wall clock (CLOCK_REALTIME, ns since 1970, as the frames'
    /// `wallClockNanoseconds`): start + (shot − 1) × interval. Nanoseconds, since the sidecar's
    /// ISO 8601 dates keep whole seconds only.
    public var dueWallClockNanoseconds: Int64
    /// When the intervalometer started the shot (its trigger), same clock; the first frame's
    /// exposure follows by the sensor's pipeline delay.
    public var triggerWallClockNanoseconds: Int64?
    /// `dueWallClockNanoseconds` as a date.
    public var dueTime: Date { Date(timeIntervalSince1970: Double(dueWallClockNanoseconds) / 1e9) }
    /// The time-lapse's interval, seconds.
    public var intervalSeconds: Double
    /// Shots missed before this one (late, camera away, a capture still running).
    public var missedBefore: Int
    /// A time-lapse shot record from its parts.
    public init(shot: Int, dueTime: Date, triggerTime: Date? = nil, intervalSeconds: Double, missedBefore: Int) {
        triggerWallClockNanoseconds = triggerTime.map { Int64(($0.timeIntervalSince1970 * 1e9).rounded()) }
        self.shot = shot; self.dueWallClockNanoseconds = Int64((dueTime.timeIntervalSince1970 * 1e9).rounded())
        self.intervalSeconds = intervalSeconds; self.missedBefore = missedBefore
    }
}

/// What the bracket was asked to do, as the bracket engine describes it.
public struct BracketPlanRecord: Hashable, Sendable, Codable {
    /// "single", "manual", "ev", "auto-range", …
    public var kind: String
    /// The command or preset that made it, e.g. "bracket ev 5 1.0".
    public var summary: String
    /// Frames the plan asks for.
    public var frameCount: Int
    /// A plan record from its parts.
    public init(kind: String, summary: String, frameCount: Int) {
        self.kind = kind; self.summary = summary; self.frameCount = frameCount
    }
}

/// How a bracket ended.
public struct BracketResult: Hashable, Sendable, Codable {
    /// The state of the bracket.
    public enum Status: String, Sendable, Codable { case inProgress, complete, failed }
    /// The state.
    public var status: Status
    /// Why it failed ("storage: … No space left on device", "camera disconnected"); nil otherwise.
    public var reason: String?
    /// A result, with a reason for failures.
    public init(status: Status, reason: String? = nil) { self.status = status; self.reason = reason }
}

/// What the DNG of a frame holds when the raw stream delivered another layout (`RawUnpacking`).
public struct RawRecord: Hashable, Sendable, Codable {
    /// The raw stream's libcamera format ("SRGGB16", "RGGB_PISP_COMP1", "SRGGB10_CSI2P").
    public var delivered: String
    /// The unpacked format written ("SRGGB10").
    public var written: String
    /// Bits per sample in the DNG (its WhiteLevel is 2^bits − 1).
    public var bitsPerSample: Int
    /// Why the samples kept more bits than the sensor mode has, when they did.
    public var note: String?

    /// A record from its parts.
    public init(delivered: String, written: String, bitsPerSample: Int, note: String? = nil) {
        self.delivered = delivered; self.written = written; self.bitsPerSample = bitsPerSample; self.note = note
    }
}

/// One saved frame of a bracket.
public struct FrameRecord: Hashable, Sendable, Codable {
    /// Position in the plan, 0-based.
    public var index: Int
    /// The plan step.
    public var requested: FrameSettings
    /// What the frame's metadata says the sensor used; absent when the camera reports no
    /// ExposureTime/AnalogueGain (the frame's settings are then unknown, never assumed).
    public var actual: FrameSettings?
    /// True when the sensor did not use the requested settings (clamped or not yet applied).
    public var clampedSettings: Bool
    /// The settings that differ, by field name ("exposureTimeMicroseconds", "analogueGain", …).
    public var mismatches: [String]
    /// Start of exposure of the first line, CLOCK_MONOTONIC nanoseconds.
    public var sensorTimestampNanoseconds: Int64
    /// The same instant on the wall clock (CLOCK_REALTIME, ns since 1970), from the camera's
    /// FrameWallClock metadata (libcamera 0.5+); absent when the camera does not report it.
    public var wallClockNanoseconds: Int64?
    /// The camera's frame sequence number.
    public var sensorSequence: UInt64
    /// The DNG and/or JPEG of this frame.
    public var files: [FileRecord]
    /// Filled by the stabilization issue; nil until then.
    public var stabilization: StabilizationRecord?
    /// The ISP crop the processed stream (the JPEG) used, in sensor pixels (libcamera ScalerCrop
    /// metadata: zoom and video stabilization); nil when the camera does not report it. The DNG is
    /// the whole sensor mode.
    public var scalerCrop: PixelRect?
    /// The frame's video HDR (`videoHDRLabel`): "off", "sensor", or the HdrMode's name from its
    /// metadata; absent in sidecars written before it was recorded.
    public var hdr: String?
    /// A focus bracket's frame: the lens position its metadata confirmed and the limits of
    /// sharpness there; absent for other brackets.
    public var focus: FocusRecord?
    /// How the raw stream's samples became the DNG's, when not as delivered (CSI-2 packed, a Pi 5's
    /// 16-bit or compressed raw); absent when the DNG holds the delivered samples.
    public var raw: RawRecord?
    /// The simulated board's truth for this frame (`sim scene object`, `sim pose`): the rig's pose,
    /// the scene, the object's turn at the exposure; absent from real cameras' frames.
    public var simulation: SimulationTruth?

    /// A frame record from its parts (the store makes these).
    public init(index: Int, requested: FrameSettings, actual: FrameSettings?, clampedSettings: Bool, mismatches: [String],
                sensorTimestampNanoseconds: Int64, sensorSequence: UInt64, files: [FileRecord], stabilization: StabilizationRecord?) {
        self.index = index; self.requested = requested; self.actual = actual; self.clampedSettings = clampedSettings
        self.mismatches = mismatches; self.sensorTimestampNanoseconds = sensorTimestampNanoseconds
        self.sensorSequence = sensorSequence; self.files = files; self.stabilization = stabilization
    }
}

/// Where a focus bracket's frame was focused and what it renders sharp (thin lens; see
/// `FocusOptics` in module Camera).
public struct FocusRecord: Hashable, Sendable, Codable {
    /// LensPosition the frame's metadata reported, dioptres (0 = infinity).
    public var lensPositionDioptres: Double
    /// Near limit of sharpness, dioptres; nil when the lens's optics are not known.
    public var nearLimitDioptres: Double?
    /// Near limit of sharpness, metres.
    public var nearLimitMetres: Double?
    /// Far limit of sharpness, dioptres (0: infinity); nil when the optics are not known.
    public var farLimitDioptres: Double?
    /// Far limit of sharpness, metres; nil when it is infinity (or the optics are not known).
    public var farLimitMetres: Double?
    /// The circle of confusion the limits are for, pixels.
    public var circleOfConfusionPixels: Double?

    /// A record from the confirmed position and, when known, the limits in dioptres.
    public init(lensPositionDioptres: Double, nearLimitDioptres: Double? = nil, farLimitDioptres: Double? = nil,
                circleOfConfusionPixels: Double? = nil) {
        self.lensPositionDioptres = lensPositionDioptres
        self.nearLimitDioptres = nearLimitDioptres; self.farLimitDioptres = farLimitDioptres
        nearLimitMetres = nearLimitDioptres.flatMap { $0 > 0 ? 1 / $0 : nil }
        farLimitMetres = farLimitDioptres.flatMap { $0 > 0 ? 1 / $0 : nil }
        self.circleOfConfusionPixels = circleOfConfusionPixels
    }
}

/// One written file: its name in the bracket's folder, size and SHA-256.
public struct FileRecord: Hashable, Sendable, Codable {
    /// The file format.
    public enum Kind: String, Sendable, Codable { case dng, jpeg }
    /// File name inside the bracket folder.
    public var name: String
    /// DNG or JPEG.
    public var kind: Kind
    /// File size in bytes.
    public var bytes: Int
    /// Lower-case hex SHA-256 of the file's bytes.
    public var sha256: String
    /// A file record from its parts.
    public init(name: String, kind: Kind, bytes: Int, sha256: String) {
        self.name = name; self.kind = kind; self.bytes = bytes; self.sha256 = sha256
    }
}

/// Per-frame stabilization, by the names AVFoundation uses for still-image lens stabilization.
public struct StabilizationRecord: Hashable, Sendable, Codable {
    /// Whether stabilization ran for this frame.
    public enum Status: String, Sendable, Codable {
        case active = "Active", outOfRange = "OutOfRange", unavailable = "Unavailable", off = "Off"
    }
    /// How this frame lines up with the bracket's first frame, when measured.
    public struct Alignment: Hashable, Sendable, Codable {
        /// Horizontal offset from the first frame, pixels (right positive).
        public var offsetXPixels: Double
        /// Vertical offset from the first frame, pixels (down positive).
        public var offsetYPixels: Double
        /// Rotation from the first frame, degrees (clockwise positive).
        public var rotationDegrees: Double
        /// An alignment from its parts.
        public init(offsetXPixels: Double, offsetYPixels: Double, rotationDegrees: Double) {
            self.offsetXPixels = offsetXPixels; self.offsetYPixels = offsetYPixels; self.rotationDegrees = rotationDegrees
        }
    }
    /// The stabilization state for this frame.
    public var status: Status
    /// The measured alignment, when there is one.
    public var alignment: Alignment?
    /// Blur measured from the IMU during the exposure, pixels; nil without an IMU.
    public var measuredBlurPixels: Double?
    /// Rotation from the bracket's first frame as a unit quaternion (w, x, y, z), when measured.
    public var rotationQuaternion: [Double]?
    /// Attempts this frame took (retakes asked by the frame gate + 1).
    public var attempts: Int?
    /// A record from its parts.
    public init(status: Status, alignment: Alignment? = nil, measuredBlurPixels: Double? = nil,
                rotationQuaternion: [Double]? = nil, attempts: Int? = nil) {
        self.status = status; self.alignment = alignment; self.measuredBlurPixels = measuredBlurPixels
        self.rotationQuaternion = rotationQuaternion; self.attempts = attempts
    }
}
