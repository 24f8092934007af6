import Glibc
import Hardware

/// libx264's preset for one recording, and why: chosen at its start from the mode's pixel rate and
/// the encoding speed measured then (`EncoderPresetChoice.choose`). The sidecar names both.
public struct EncoderPresetChoice: Sendable, Equatable, Codable {
    /// The libx264 preset in use ("superfast", "ultrafast").
    public var preset: String
    /// The rate needed, what was measured, and which rule picked the preset.
    public var reason: String

    public init(preset: String, reason: String) { self.preset = preset; self.reason = reason }

    /// The presets tried, best picture first: rpicam-apps' `superfast`, then libx264's fastest.
    public static let candidates = ["superfast", "ultrafast"]
    /// How much faster than the capture rate the encoder must run at start: the camera loop, video
    /// stabilization and the rest of the machine share the cores with it for the whole recording.
    /// 2: on this project's shared 2-core machine a short measurement at the start read twice
    /// the rate that libx264 then held (superfast at 1080p60: 100 fps measured, 48 sustained).
    public static let requiredHeadroom = 2.0

    /// The first of `candidates` whose measured speed (`measure(preset)`, frames per second at the
    /// recording's size) is at least `captureFramesPerSecond × headroom`; the fastest one measured
    /// when none is (the reason then says frames may drop). Presets after the chosen one are not
    /// measured. A measurement that fails is skipped and named in the reason; when all fail, the
    /// last candidate is used.
    public static func choose(size: PixelSize, captureFramesPerSecond: Double, headroom: Double = requiredHeadroom,
                              candidates: [String] = candidates,
                              measure: (String) throws(VideoError) -> Double) -> EncoderPresetChoice {
        let needed = captureFramesPerSecond * headroom
        let pixelRate = Double(size.area) * captureFramesPerSecond / 1e6
        var measured: [String] = []
        var fastest: (preset: String, fps: Double)?
        func reason(_ rule: String) -> String {
            "\(size) at \(format(captureFramesPerSecond)) fps (\(format(pixelRate)) Mpixel/s) needs \(format(needed)) fps "
                + "(×\(format(headroom)) headroom); measured at start: \(measured.joined(separator: ", ")); \(rule)"
        }
        for preset in candidates {
            let fps: Double
            do { fps = try measure(preset) } catch {
                measured.append("\(preset) failed (\(error.message))")
                continue
            }
            measured.append("\(preset) \(format(fps)) fps")
            if fps >= needed { return EncoderPresetChoice(preset: preset, reason: reason("the first that keeps up")) }
            if fps > fastest?.fps ?? -1 { fastest = (preset, fps) }
        }
        guard let fastest else {
            let preset = candidates.last ?? "ultrafast"
            return EncoderPresetChoice(preset: preset, reason: reason("no measurement: \(preset) unmeasured"))
        }
        return EncoderPresetChoice(preset: fastest.preset, reason: reason("none keeps up: the fastest, frames may drop"))
    }

    private static func format(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}

/// Measures the encoding speed of one preset at one size, in frames per second.
public protocol EncoderSpeedProbe: Sendable {
    func framesPerSecond(settings: VideoSettings, size: PixelSize) throws(VideoError) -> Double
}

/// The real measurement: opens the recording's encoder (`VideoEncoder`, the settings' options with
/// the preset in question), fills its frame threads with `warmupFrames` untimed frames, then times
/// frames (CLOCK_MONOTONIC) until at least `minimumFrames` and `minimumSeconds` are done (at most
/// `maximumFrames`), as two halves, and answers the slower half's rate: a moment of load on a
/// shared machine counts against the preset, not for it. The frames cycle through 4 images of a
/// noisy gradient, each moved 2 pixels, so motion search and entropy coding have work like a
/// camera's. Runs on the recording queue before the recording's first frame.
public struct X264SpeedProbe: EncoderSpeedProbe {
    public var warmupFrames = 3
    public var minimumFrames: Int
    public var minimumSeconds: Double
    public var maximumFrames = 120

    public init(minimumFrames: Int = 8, minimumSeconds: Double = 0.2) {
        self.minimumFrames = max(2, minimumFrames); self.minimumSeconds = max(0, minimumSeconds)
    }

    public func framesPerSecond(settings: VideoSettings, size: PixelSize) throws(VideoError) -> Double {
        let encoder = try VideoEncoder(settings: settings, size: size)
        let images = try Self.syntheticFrames(size: size, count: 4, fps: settings.captureFramesPerSecond)
        let interval = 1e9 / settings.captureFramesPerSecond
        var sent = 0
        func send() throws(VideoError) {
            let frame = VideoFrame(sharing: images[sent % images.count], sequence: UInt64(sent),
                                   sensorTimestamp: MonotonicTime(nanoseconds: 1_000_000_000 + Int64(Double(sent) * interval)))
            _ = try encoder.encode(frame, forceKeyframe: sent == 0)
            sent += 1
        }
        for _ in 0..<warmupFrames { try send() }
        // Halves of equal frame counts: the first runs until half the minimum time and frames.
        let halfSeconds = minimumSeconds / 2, halfFrames = (minimumFrames + 1) / 2, cap = max(1, maximumFrames / 2)
        let start = Self.monotonicNanoseconds()
        var firstFrames = 0
        while firstFrames < cap && (firstFrames < halfFrames || Double(Self.monotonicNanoseconds() - start) / 1e9 < halfSeconds) {
            try send(); firstFrames += 1
        }
        let middle = Self.monotonicNanoseconds()
        for _ in 0..<firstFrames { try send() }
        let end = Self.monotonicNanoseconds()
        _ = try encoder.flush()
        let slower = Double(max(middle - start, end - middle, 1)) / 1e9
        return Double(firstFrames) / slower
    }

    /// `count` I420 frames: one noisy luma gradient, shifted 2 pixels right per frame; flat chroma.
    static func syntheticFrames(size: PixelSize, count: Int, fps: Double) throws(VideoError) -> [VideoFrame] {
        let width = size.width, height = size.height
        var luma = [UInt8](repeating: 0, count: (width + 2 * count) * height)
        var state: UInt32 = 0x1357_9BDF
        let wide = width + 2 * count
        for y in 0..<height {
            for x in 0..<wide {
                state = state &* 1_664_525 &+ 1_013_904_223
                luma[y * wide + x] = UInt8(truncatingIfNeeded: x / 4 + y / 8 + Int(state >> 28))
            }
        }
        let stride = (width + 1) & ~1
        return try (0..<count).map { (i: Int) throws(VideoError) -> VideoFrame in
            try VideoFrame(size: size, stride: stride, sequence: UInt64(i),
                           sensorTimestamp: MonotonicTime(nanoseconds: 1_000_000_000 + Int64(Double(i) * 1e9 / fps))) { bytes in
                luma.withUnsafeBytes { source in
                    for y in 0..<height {
                        let from = source.baseAddress! + y * wide + (count - i) * 2
                        (bytes.baseAddress! + y * stride).copyMemory(from: from, byteCount: width)
                    }
                }
                let chroma = stride * height
                if bytes.count > chroma { (bytes.baseAddress! + chroma).initializeMemory(as: UInt8.self, repeating: 128, count: bytes.count - chroma) }
            }
        }
    }

    private static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

extension VideoSettings {
    /// These settings with libx264's `preset` option set to `preset` (added when absent).
    public func withX264Preset(_ preset: String) -> VideoSettings {
        var copy = self
        if let i = copy.x264Options.firstIndex(where: { $0.name == "preset" }) {
            copy.x264Options[i].value = preset
        } else {
            copy.x264Options.insert(EncoderOption("preset", preset), at: 0)
        }
        return copy
    }

    /// libx264's `preset` option in these settings, if any.
    public var x264Preset: String? { x264Options.first { $0.name == "preset" }?.value }
}
