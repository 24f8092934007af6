/// Motion in the picture: each frame's `LumaThumbnail` against a background model.
///
/// - The background is a running mean per cell that follows the picture (time constant
///   `1 / learningRate` frames), so slow changes of light become background before they count.
/// - Before comparing, the background is scaled by the ratio of the frame's mean to the
///   background's mean over the quiet cells: a change of light or of the exposure (AE, a cloud, a
///   sunset) that brightens or darkens the whole picture does not count as motion.
/// - A cell has changed when it differs by more than `thresholdLevels` and so do its right, lower
///   and lower-right neighbours (a 2×2 erosion): thin edges that move by a pixel when the rig shakes,
///   and single noisy cells, do not count; a solid object does.
/// - A zone triggers when the changed share of its cells reaches `areaFraction`. When more than
///   `globalChangeFraction` of the whole picture changed at once (the rig moved, the lights went
///   on), nothing triggers and the background is taken from this frame.
///
/// Pure and single-threaded: the caller (the supervisor's loop) owns it.
public struct MotionDetector: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var zones: [MotionZone] = [.whole]
        /// Luma difference (0…255) from which a cell counts as changed.
        public var thresholdLevels: Double = 20
        /// Share of a zone's cells that must change, 0…1.
        public var areaFraction: Double = 0.02
        /// Weight of each new frame in the background, 0…1.
        public var learningRate: Double = 0.05
        /// Frames the model only learns from after a (re)start.
        public var warmUpFrames = 15
        /// Share of the whole picture changed at once that counts as a global change, not motion.
        public var globalChangeFraction: Double = 0.6
        public init() {}
    }

    /// What one frame showed.
    public struct Observation: Sendable, Equatable {
        /// The zone with the largest changed share (index into the zones), and that share (0…1).
        public var zoneIndex: Int
        public var areaFraction: Double
        /// True when that share reached the configured area.
        public var triggered: Bool
        /// True when most of the picture changed at once (ignored; the background restarted).
        public var globalChange: Bool
        /// True while the model is still learning (never triggers).
        public var warmingUp: Bool
    }

    public private(set) var configuration: Configuration
    private var background: [Float] = []
    private var width = 0, height = 0
    private var framesSeen = 0
    private var changed: [UInt8] = []

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// New settings; the background is kept when the thumbnail size stays.
    public mutating func reconfigure(_ configuration: Configuration) { self.configuration = configuration }

    /// Forgets the background (the camera restarted, the format changed).
    public mutating func reset() { background = []; framesSeen = 0 }

    /// Compares `frame` with the background, then updates the background with it.
    public mutating func observe(_ frame: LumaThumbnail) -> Observation {
        let n = frame.width * frame.height
        if frame.width != width || frame.height != height || background.count != n {
            width = frame.width; height = frame.height
            background = frame.values.map(Float.init)
            changed = [UInt8](repeating: 0, count: n)
            framesSeen = 1
            return Observation(zoneIndex: 0, areaFraction: 0, triggered: false, globalChange: false, warmingUp: true)
        }
        framesSeen += 1
        let threshold = Float(configuration.thresholdLevels)
        // The light's change: frame mean / background mean (both over every cell; an object
        // covering a few per cent moves it by less than the threshold allows for).
        var frameSum: Float = 0, backgroundSum: Float = 0
        frame.values.withUnsafeBufferPointer { f in
            for i in 0..<n { frameSum += Float(f[i]); backgroundSum += background[i] }
        }
        let gain: Float = backgroundSum > Float(n) ? frameSum / backgroundSum : 1
        var raw = 0
        frame.values.withUnsafeBufferPointer { f in
            background.withUnsafeBufferPointer { b in
                changed.withUnsafeMutableBufferPointer { c in
                    for i in 0..<n {
                        let d = abs(Float(f[i]) - b[i] * gain)
                        let hit: UInt8 = d > threshold ? 1 : 0
                        c[i] = hit
                        raw += Int(hit)
                    }
                }
            }
        }
        let global = Double(raw) >= configuration.globalChangeFraction * Double(n)
        // Erosion: a cell counts when its 2×2 block (it, right, below, below-right) all changed.
        var best = (index: 0, fraction: 0.0)
        if !global {
            for (index, zone) in configuration.zones.enumerated() {
                let cells = zone.cells(width: width, height: height)
                var count = 0
                for y in cells.y where y + 1 < height {
                    let row = y * width
                    for x in cells.x where x + 1 < width {
                        let i = row + x
                        count += Int(changed[i] & changed[i + 1] & changed[i + width] & changed[i + width + 1])
                    }
                }
                let fraction = Double(count) / Double(cells.x.count * cells.y.count)
                if fraction > best.fraction { best = (index, fraction) }
            }
        }
        let warming = framesSeen <= configuration.warmUpFrames
        // The background follows: quiet cells at the learning rate, changed ones 8× slower (an
        // object that stops becomes background in time); a global change replaces it.
        let rate = Float(configuration.learningRate)
        frame.values.withUnsafeBufferPointer { f in
            background.withUnsafeMutableBufferPointer { b in
                for i in 0..<n {
                    let v = Float(f[i])
                    if global || warming { b[i] = v; continue }
                    let r = changed[i] == 0 ? rate : rate / 8
                    b[i] += r * (v - b[i])
                }
            }
        }
        if global { framesSeen = max(framesSeen, configuration.warmUpFrames) }  // the next frame compares again
        let triggered = !warming && !global && best.fraction >= configuration.areaFraction && best.fraction > 0
        return Observation(zoneIndex: best.index, areaFraction: best.fraction, triggered: triggered,
                           globalChange: global, warmingUp: warming)
    }
}
