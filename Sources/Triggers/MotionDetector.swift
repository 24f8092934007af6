/// Motion in the picture: each frame's `LumaThumbnail` against a background model.
///
/// - The background is a running mean per cell that follows the picture (time constant
///   `1 / learningRate` frames), so slow changes of light become background before they count.
/// - Before comparing, the background is scaled by the ratio of the frame's mean to the
///   background's mean over the quiet cells: a change of light or of the exposure (AE, a cloud, a
///   sunset) that brightens or darkens the whole picture does not count as motion.
/// - The rig's own shake moves the whole picture: the frame is compared with the background shifted
///   by the whole-cell offset (±`maximumShiftCells`) that matches it best (the least absolute
///   difference over a sparse grid), so a shaking camera does not see its scene as moving.
/// - What is left of the shake is less than a cell: a cell is compared with the range (lowest to
///   highest) of the shifted background over it and its 8 neighbours, so an edge that moved by part
///   of a cell, or a background blurred by the shake it learned under, is not a change; a solid
///   object, brighter or darker than everything around where it stands, is.
/// - A cell has changed when it lies outside that range by more than `thresholdLevels`, and by more than
///   `noiseFactor` × its own noise (a running mean square of its quiet differences: at night, with
///   the gain high, the threshold rises with the noise), and so do its right, lower and lower-right
///   neighbours (a 2×2 erosion): thin edges left by a shake of less than a cell, and single noisy
///   cells, do not count; a solid object does.
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
        /// The largest shake of the whole picture, in cells, compensated before comparing.
        public var maximumShiftCells = 3
        /// A cell's difference must exceed this many times its own noise (root mean square).
        public var noiseFactor: Double = 4
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
    /// Per cell: the running mean square of its differences while quiet (its noise, levels²).
    private var noise: [Float] = []

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// The whole-picture shift, in cells, compensated in the last frame (for tests and the status).
    public private(set) var lastShift = (dx: 0, dy: 0)

    /// The whole-cell offset of the background (±`maximumShiftCells`) that best matches `frame`:
    /// the least sum of absolute differences over every other cell of every other row, away from
    /// the borders. Ties keep the smaller shift (no shake is the first candidate).
    private func bestShift(_ frame: LumaThumbnail, gain: Float) -> (dx: Int, dy: Int) {
        let m = configuration.maximumShiftCells, w = width, h = height
        guard m > 0, w > 4 * m, h > 4 * m else { return (0, 0) }
        var best = (dx: 0, dy: 0, sad: Float.infinity)
        frame.values.withUnsafeBufferPointer { f in
            background.withUnsafeBufferPointer { b in
                /// Keeps (dx, dy) when its sum is clearly (2 %) below the best so far.
                func consider(_ dx: Int, _ dy: Int) {
                    var sad: Float = 0
                    var y = m
                    while y < h - m {
                        var x = m
                        let row = y * w, shifted = (y + dy) * w + dx
                        while x < w - m {
                            sad += abs(Float(f[row + x]) - b[shifted + x] * gain)
                            x += 2
                        }
                        y += 2
                    }
                    if sad < best.sad * 0.98 { best = (dx, dy, sad) }
                }
                // No shake first, then the others row by row (no candidate list built per frame).
                consider(0, 0)
                for dy in -m...m { for dx in -m...m where dx != 0 || dy != 0 { consider(dx, dy) } }
            }
        }
        return (best.dx, best.dy)
    }

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
            noise = [Float](repeating: Float(configuration.thresholdLevels * configuration.thresholdLevels / 16), count: n)
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
        let shift = bestShift(frame, gain: gain)
        let factor2 = Float(configuration.noiseFactor * configuration.noiseFactor)
        let w = width, h = height
        var raw = 0
        frame.values.withUnsafeBufferPointer { f in
            background.withUnsafeBufferPointer { b in
                noise.withUnsafeBufferPointer { v in
                    changed.withUnsafeMutableBufferPointer { c in
                        for y in 0..<h {
                            let sy = min(max(y + shift.dy, 0), h - 1)
                            let rows = (max(sy - 1, 0) * w, sy * w, min(sy + 1, h - 1) * w)
                            for x in 0..<w {
                                let i = y * w + x
                                let sx = min(max(x + shift.dx, 0), w - 1)
                                let value = Float(f[i])
                                var d = abs(value - b[rows.1 + sx] * gain)
                                var hit: UInt8 = d > threshold && d * d > factor2 * v[i] ? 1 : 0
                                if hit == 1 {
                                    // The range of the shifted background over the cell and its 8
                                    // neighbours (what a shift of up to a cell can show there); only
                                    // for cells the plain difference already marks: it is never larger.
                                    let left = max(sx - 1, 0), right = min(sx + 1, w - 1)
                                    var low = b[rows.1 + sx], high = low
                                    for row in 0..<3 {
                                        let start = row == 0 ? rows.0 : row == 1 ? rows.1 : rows.2
                                        let l = b[start + left], c = b[start + sx], r = b[start + right]
                                        low = min(low, l, c, r); high = max(high, l, c, r)
                                    }
                                    d = max(0, max(low * gain - value, value - high * gain))
                                    hit = d > threshold && d * d > factor2 * v[i] ? 1 : 0
                                }
                                c[i] = hit
                                raw += Int(hit)
                            }
                        }
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
                noise.withUnsafeMutableBufferPointer { v in
                    for i in 0..<n {
                        let value = Float(f[i])
                        let d = value - b[i] * gain
                        // The noise follows the quiet cells' differences (after the shake is taken out).
                        if changed[i] == 0 { v[i] += rate * (min(d * d, 4 * v[i] + 16) - v[i]) }
                        if global || warming { b[i] = value; continue }
                        let r = changed[i] == 0 ? rate : rate / 8
                        b[i] += r * (value - b[i])
                    }
                }
            }
        }
        if global { framesSeen = max(framesSeen, configuration.warmUpFrames) }  // the next frame compares again
        lastShift = shift
        let triggered = !warming && !global && best.fraction >= configuration.areaFraction && best.fraction > 0
        return Observation(zoneIndex: best.index, areaFraction: best.fraction, triggered: triggered,
                           globalChange: global, warmingUp: warming)
    }
}
