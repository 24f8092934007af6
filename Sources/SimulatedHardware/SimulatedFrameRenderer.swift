import Foundation
import Hardware
import Motion

/// Draws the simulated camera's frames at their configured sizes.
///
/// The chart (`TestChart`) is sampled once per crop and output size into `ScenePlanes` (linear
/// camera channels) and blurred once per defocus step; both are cached. Each frame then only
/// adds what changes per frame: motion blur and rolling-shutter skew from the rig's motion (only
/// when it moves), exposure L·t·S/(K·N²)·0.18 seen through the sensor's white point under the
/// scene light, shot and read noise (from a precomputed table) that grow with gain, clipping at
/// full well, and either raw quantisation or the simulated ISP (white balance, colour correction,
/// sRGB gamma) and the pixel format.
///
/// `maximumSize` renders smaller (divided by a whole factor to fit), for tests that need no pixels;
/// `FrameBuffer.size` is the rendered size.
final class SimulatedFrameRenderer {
    /// Full-well capacity and read noise in electrons at unit gain, for the noise model.
    static let fullWellElectrons: Float = 10_000
    static let readNoiseElectrons: Float = 3
    /// Defocus and motion blur are cached in steps of this many output pixels.
    static let blurStepPixels = 0.25

    let sensor: SensorDescription
    let pixelArray: PixelSize
    let cfa: [Int]
    private let colour: SimulatedColourResponse
    private let noise = NoiseTable(seed: 0x5EED_0F_7AB1E)
    private let encoding = FramePasses.Encoding(matrix: SimulatedColourResponse.colourCorrectionMatrix.map(Float.init))
    /// HDR's encoding: the extended range rolled off into 0…1 before the sRGB curve.
    private lazy var hdrEncoding = FramePasses.Encoding(matrix: SimulatedColourResponse.colourCorrectionMatrix.map(Float.init),
                                                       toneMap: { Self.hdrToneMap(Self.hdrRange * $0) })

    /// Video HDR (the sensor's HDR mode, or HdrMode MultiExposure/SingleExposure/Night) as modelled:
    /// processed frames keep `hdrRange` times the plain exposure's highlight range before clipping
    /// (2 stops: the chart's white stays unclipped 2 stops over the exposure that clips it), roll it
    /// off with `hdrToneMap`, and have half the read noise (−6 dB in the shadows, where read noise
    /// dominates), as the long exposure of a merged pair collects more light. Raw frames are the
    /// plain exposure.
    static let hdrRange = 4.0
    static let hdrReadNoiseFactor: Float = 0.5

    /// Extended Reinhard: linear L (0…`hdrRange`) to 0…1, slope 1 at black, `hdrRange` to 1. Mid
    /// grey (0.18) comes out at 0.154.
    static func hdrToneMap(_ linear: Double) -> Double {
        let l = max(linear, 0)
        return min(l * (1 + l / (hdrRange * hdrRange)) / (1 + l), 1)
    }
    private var sharp: [SharpKey: ScenePlanes] = [:]
    private var blurred: [BlurKey: ScenePlanes] = [:]
    struct SharpKey: Hashable {
        var crop: PixelRect; var size: PixelSize; var kind: ScenePlanes.Kind; var lighting: TestChart.Lighting
    }
    struct BlurKey: Hashable { var sharp: SharpKey; var steps: Int }
    /// Which cached planes: the same key, the same values.
    enum PlanesKey: Hashable { case sharp(SharpKey), blurred(BlurKey) }
    /// Cached entries kept per kind, oldest dropped first.
    private static let cacheLimit = 4
    private var sharpOrder: [SharpKey] = []
    private var blurOrder: [BlurKey] = []
    /// Frames' memory, reused once their buffers go.
    private let pool = FramePool()
    /// Plane memory for motion (moved, blurred, skewed copies of the cached planes), reused.
    private let spare = SparePlanes()
    /// `sim scene object`: the last drawings (drawn when a frame is read, on any thread).
    let objectPlanes = ObjectPlaneCache()
    /// Cached planes interleaved for the video's bilinear row warp (`MovedRows`).
    private let interleaved = InterleavedPlanes()

    init(sensor: SensorDescription) {
        self.sensor = sensor
        pixelArray = sensor.pixelArray
        let order = Array((sensor.bayerOrder ?? "RGGB").uppercased().utf8)
        cfa = order.count == 4 ? order.map { $0 == UInt8(ascii: "R") ? 0 : $0 == UInt8(ascii: "B") ? 2 : 1 } : [0, 1, 1, 2]
        colour = SimulatedColourResponse(sensor.colourCalibration)
    }

    /// The size a stream of `size` is rendered at: full size without a maximum, else divided by a
    /// whole factor to fit `maximum`, even.
    static func renderSize(for size: PixelSize, maximum: PixelSize?) -> PixelSize {
        guard let maximum else { return size }
        let factor = max(1, Int((max(Double(size.width) / Double(max(maximum.width, 2)),
                                     Double(size.height) / Double(max(maximum.height, 2)))).rounded(.up)))
        return PixelSize(width: max(2, size.width / factor & ~1), height: max(2, size.height / factor & ~1))
    }

    /// The largest centred part of `crop` with the aspect ratio of `size` (as the ISP crops).
    static func fittedCrop(_ crop: PixelRect, to size: PixelSize) -> PixelRect {
        let target = Double(size.width) / Double(max(size.height, 1))
        var w = crop.width, h = crop.height
        if Double(w) / Double(max(h, 1)) > target { w = Int((Double(h) * target).rounded()) } else { h = Int((Double(w) / target).rounded()) }
        return PixelRect(x: crop.x + (crop.width - w) / 2, y: crop.y + (crop.height - h) / 2, width: max(w, 1), height: max(h, 1))
    }

    /// What moves the image during one frame.
    struct Motion {
        /// Rotation during the exposure, radians about x (pitch) and y (yaw): motion blur.
        var exposure: (x: Double, y: Double) = (0, 0)
        /// The camera's orientation while each row is exposed (the middle of the row's exposure),
        /// relative to where it pointed when streaming started (the chart's placement): knot k of
        /// n is the sensor row at k / (n − 1) of the readout (`readoutRows`), as the rotation from
        /// the camera then to the camera at the start. Empty: the camera has not turned.
        var rowAttitudes: [Quaternion] = []
        /// The pixel-array rows the readout spans, top to bottom (the sensor mode's crop).
        var readoutRows: (top: Double, count: Double) = (0, 1)
        /// Output pixels the cached chart moves by because the crop is a moved copy of the cached
        /// one (a stabilizer's ScalerCrop): set by the renderer, not by the camera.
        var cropShift: (dx: Double, dy: Double) = (0, 0)
    }

    /// One frame of one stream.
    struct Request {
        var role: StreamRole
        /// The stream's format; for raw, the mode's unpacked one ("SRGGB10").
        var format: PixelFormat
        /// How a raw frame's samples are laid out in the buffer (the format it then carries).
        var rawOutput = SimulatedRawOutput.unpacked
        /// The rendered size (the stream's, or smaller for tests).
        var size: PixelSize
        /// The stream's configured size: noise is averaged as the ISP's scaling from the crop to it
        /// would (a small test render keeps the full stream's noise per pixel).
        var streamSize: PixelSize
        /// Sensor pixels the stream shows (ScalerCrop for processed streams, the mode's crop for raw).
        var crop: PixelRect
        var scene: SimulatedScene
        var frame: SimulatedFrameParameters
        /// Blur circle diameter from defocus, sensor pixels.
        var defocusPixels: Double
        var motion: Motion
        var bitDepth: Int
        /// Video HDR: processed streams keep the extended highlight range (`hdrRange`).
        var hdr = false
        /// `sim scene depth`: each strip's blur circle diameter from defocus, sensor pixels, left to
        /// right (in place of `defocusPixels`); nil for the flat chart.
        var stripDefocusPixels: [Double]? = nil
        /// `sim object cross`: the object and its left edge in this frame (SimulatedCrossingObject.swift).
        var crossing: (object: SimulatedCrossingObject, leftEdge: Double)? = nil
    }

    /// The frame's buffer, drawn when its bytes are first read (on the reader's thread): a stream
    /// nobody reads costs nothing. What the frame shows is fixed now (planes, motion, exposure,
    /// noise seed), so the bytes are the same whenever and wherever they are drawn.
    func render(_ r: Request, rng: SeededGenerator) -> FrameBuffer {
        let isRaw = r.format.isBayer
        let crop = isRaw ? r.crop : Self.fittedCrop(r.crop, to: r.size)
        let scale = Double(crop.width) / Double(r.size.width)  // sensor pixels per output pixel
        let source = r.scene.object != nil
            ? objectPlaneSource(crop: crop, size: r.size, kind: isRaw ? .mosaic : .rgb, role: r.role, scene: r.scene,
                                defocusPixels: r.defocusPixels / scale)
            : planeSource(crop: crop, size: r.size, kind: isRaw ? .mosaic : .rgb, lighting: r.scene.lighting,
                          defocusPixels: (r.stripDefocusPixels ?? [r.defocusPixels]).map { $0 / scale })
        let focalLength = focalLengthPixels(sensorPixelsPerOutputPixel: scale)
        let motion = { var m = r.motion; m.cropShift = source.shift; return m }()
        let spare = self.spare, noise = self.noise
        let cubic = r.role != .videoRecording
        /// The cached planes moved by this frame's motion; their memory goes back to `spare` after.
        @Sendable func withMovedPlanes(_ body: (ScenePlanes) -> Void) {
            var planes = source.planes()
            let moved = Self.applyMotion(&planes, motion, crop: crop, focalLengthPixels: focalLength, cubic: cubic, spare: spare)
            if let crossing = r.crossing { crossing.object.draw(into: &planes, leftEdge: crossing.leftEdge) }
            body(planes)
            if moved { spare.recycle(&planes.values) }
        }
        let streamScale = Double(crop.width) / Double(max(r.streamSize.width, 1))
        var exposure = frameExposure(r, noiseAveraging: max(streamScale, 1))
        if isRaw {
            let white = Float((1 << r.bitDepth) - 1)
            let black = Float((sensor.blackLevel16 ?? 0) >> (16 - r.bitDepth))
            let cfa = self.cfa, e = exposure
            guard r.rawOutput != .unpacked else {
                return pool.frame(format: r.format, size: r.size, stride: r.size.width * 2, byteCount: r.size.area * 2) { memory in
                    withMovedPlanes { planes in
                        FramePasses.raw(planes, exposure: e, cfa: cfa, black: black, white: white, noise: noise, rng: rng, into: memory)
                    }
                }
            }
            let output = r.rawOutput, bits = r.bitDepth, size = r.size
            let layout = output.layout(order: String(r.format.rawValue.dropFirst().prefix(4)), bits: bits, width: size.width)
            return pool.frame(format: layout.format, size: size, stride: layout.stride, byteCount: layout.stride * size.height) { memory in
                // The same samples as the unpacked frame, drawn aside and then laid out.
                let unpacked = UnsafeMutableRawBufferPointer.allocate(byteCount: size.area * 2, alignment: 64)
                defer { unpacked.deallocate() }
                withMovedPlanes { planes in
                    FramePasses.raw(planes, exposure: e, cfa: cfa, black: black, white: white, noise: noise, rng: rng, into: unpacked)
                }
                output.pack(UnsafeBufferPointer(unpacked.bindMemory(to: UInt16.self)), width: size.width, height: size.height,
                            bits: bits, stride: layout.stride, into: memory)
            }
        }
        let format = FramePacker(format: r.format, size: r.size, role: r.role) == nil ? PixelFormat.bgr888 : r.format
        guard let packer = FramePacker(format: format, size: r.size, role: r.role) else {
            return FrameBuffer(pixelFormat: format, size: r.size, stride: 0, bytes: [])
        }
        let f = r.frame, m = SimulatedColourResponse.colourCorrectionMatrix.map(Float.init)
        func row(_ k: Int) -> SIMD3<Float> { SIMD3(m[3 * k], m[3 * k + 1], m[3 * k + 2]) }
        if r.hdr {
            // In units of the HDR range: levels and σ scale by 1/range, and so does the clip point's
            // place in the scene; the encoding maps the range back with the roll-off.
            let range = Float(Self.hdrRange)
            exposure.channelScale /= range
            exposure.sigmaScale /= range
            exposure.electronsPerUnit *= range
            exposure.readVariance *= Self.hdrReadNoiseFactor * Self.hdrReadNoiseFactor
        }
        let isp = FramePasses.ISP(gains: SIMD3(Float(f.redGain * f.digitalGain), Float(f.digitalGain), Float(f.blueGain * f.digitalGain)),
                                  matrix: (row(0), row(1), row(2)), encoding: r.hdr ? hdrEncoding : encoding)
        let e = exposure, fused = r.crossing == nil, interleaved = self.interleaved
        return pool.frame(format: format, size: r.size, stride: packer.stride, byteCount: packer.byteCount,
                          smaller: smaller(of: r, rng: rng)) { memory in
            // A turning camera's frame in one pass per row band when it can be (the same values).
            if fused, let moved = Self.movedRows(source, interleaved: interleaved, motion, crop: crop, focalLengthPixels: focalLength,
                                                 cubic: cubic) {
                moved.withRows { rows in
                    FramePasses.processed(size: moved.size, rows: rows, exposure: e, isp: isp, noise: noise, rng: rng,
                                          packer: packer, into: memory)
                }
                return
            }
            withMovedPlanes { planes in
                FramePasses.processed(planes, exposure: e, isp: isp, noise: noise, rng: rng, packer: packer, into: memory)
            }
        }
    }

    /// A viewfinder or still frame wider than `FrameBuffer.smallerWidth` is also drawn that wide
    /// (`FrameBuffer.smaller`): the same frame (crop, exposure, motion, noise seed), with its noise
    /// averaged as the ISP's scaling to that size would, as an ISP's second, smaller output is. Its
    /// pixels too are drawn only when read. Nil for other frames.
    private func smaller(of r: Request, rng: SeededGenerator) -> FrameBuffer? {
        guard let size = Self.smallerSize(of: r.size, role: r.role) else { return nil }
        var small = r
        small.size = size
        small.streamSize = size
        return render(small, rng: rng)
    }

    /// `FrameBuffer.smallerWidth` wide with the aspect kept, even sides, for the processed roles a
    /// preview shows (viewfinder, still); nil when the frame is no wider.
    static func smallerSize(of size: PixelSize, role: StreamRole) -> PixelSize? {
        guard role == .viewfinder || role == .stillCapture, size.width > FrameBuffer.smallerWidth, size.height > 0 else { return nil }
        let width = FrameBuffer.smallerWidth
        return PixelSize(width: width, height: max(2, (width * size.height / size.width) & ~1))
    }

    /// Samples the chart for a stream ahead of its first frame (the costly part of a new
    /// configuration), so the first frames are as quick as the rest.
    func prepare(format: PixelFormat, size: PixelSize, crop: PixelRect, lighting: TestChart.Lighting) {
        let isRaw = format.isBayer
        _ = planeSource(crop: isRaw ? crop : Self.fittedCrop(crop, to: size), size: size, kind: isRaw ? .mosaic : .rgb,
                        lighting: lighting, defocusPixels: [0])
    }

    /// Focal length in output pixels.
    func focalLengthPixels(sensorPixelsPerOutputPixel scale: Double) -> Double {
        let f = (sensor.lens?.focalLengthMillimetres ?? 4) / 1000
        let pixel = (sensor.pixelSizeMicrometres ?? 1.4) / 1e6
        return f / (pixel * scale)
    }

    /// Raw level per channel and noise constants: grey at L·t·S/(K·N²)·0.18, each channel divided by
    /// the sensor's white-point gain under the scene light.
    private func frameExposure(_ r: Request, noiseAveraging: Double) -> FrameExposure {
        let gain = r.frame.analogueGain
        let grey = r.scene.greyLevel(exposureMicroseconds: Double(r.frame.exposureMicroseconds), iso: sensor.isoPerGain * gain,
                                     fNumber: sensor.lens?.fNumber ?? 2.8)
        let level = grey / 0.18
        let white = colour.whiteGains(kelvin: r.scene.illuminantKelvin)
        return FrameExposure(channelScale: SIMD3(Float(level / white.red), Float(level), Float(level / white.blue)),
                             electronsPerUnit: Self.fullWellElectrons / Float(gain),
                             readVariance: Self.readNoiseElectrons * Self.readNoiseElectrons,
                             sigmaScale: Float(gain) / Self.fullWellElectrons / Float(noiseAveraging))
    }

    /// Where a frame's planes come from: ready (cached), or the sharp chart and the blur of each
    /// strip of `sim scene depth`, done when the frame is drawn (a focus stack's every frame has
    /// its own lens position, so there is nothing to reuse, and the loop does not pay for it).
    struct PlaneSource: Sendable {
        var ready: ScenePlanes
        /// The cache's key for `ready` (nil for planes drawn per frame).
        var key: PlanesKey? = nil
        var strips: [(columns: Range<Int>, pixels: Double)] = []
        /// How far to move the planes (output pixels): a crop reusing a cached one elsewhere.
        var shift: (dx: Double, dy: Double) = (0, 0)

        /// Draws the planes when the frame is drawn, in place of `ready` (`sim scene object`).
        var draw: (@Sendable () -> ScenePlanes)? = nil

        /// The planes, with the strips blurred now if there are any.
        func planes() -> ScenePlanes {
            if let draw { return draw() }
            guard !strips.isEmpty else { return ready }
            var planes = ready
            for strip in strips { planes.blur(columns: strip.columns, pixels: strip.pixels, from: ready) }
            return planes
        }
    }

    /// The chart through `crop` at `size`, blurred by `defocusPixels` (output pixels, in steps):
    /// one value blurs the whole chart (cached), several blur each strip of `sim scene depth` by its own.
    /// A crop of the same size as a cached one, elsewhere on the sensor (a stabilizer moves its
    /// ScalerCrop every frame), reuses that chart moved by the difference (whole output pixels,
    /// wrapping round as a pan does) instead of sampling the chart again on the loop.
    private func planeSource(crop requested: PixelRect, size: PixelSize, kind: ScenePlanes.Kind, lighting: TestChart.Lighting,
                             defocusPixels: [Double]) -> PlaneSource {
        // The chart changes only with its lighting; exposure and the light's colour apply per frame.
        var key = SharpKey(crop: requested, size: size, kind: kind, lighting: lighting)
        var shift = (dx: 0.0, dy: 0.0)
        if sharp[key] == nil, let moved = sharpOrder.last(where: {
            $0.size == size && $0.kind == kind && $0.lighting == lighting
                && $0.crop.width == requested.width && $0.crop.height == requested.height
        }) {
            let scale = Double(requested.width) / Double(max(size.width, 1))
            shift = (Double(moved.crop.x - requested.x) / scale, Double(moved.crop.y - requested.y) / scale)
            key = moved
        }
        // The planes are the cached crop's; strips are placed on them, then the whole moves.
        let crop = key.crop
        let base: ScenePlanes
        if let cached = sharp[key] {
            base = cached
        } else {
            base = ScenePlanes.sample(pixelArray: pixelArray, crop: crop, size: size, kind: kind, cfa: cfa, lighting: lighting)
            remember(key, base, in: &sharp, order: &sharpOrder)
        }
        let steps = defocusPixels.map { Int(($0 / Self.blurStepPixels).rounded()) }
        guard steps.contains(where: { $0 > 0 }) else { return PlaneSource(ready: base, key: .sharp(key), shift: shift) }
        if steps.count > 1 {
            // Strip k spans chart x in [k, k + 1) × aspect / count; the crop maps chart x to columns.
            let chartPerColumn = Double(crop.width) / Double(max(size.width, 1)) * TestChart.aspect / Double(max(pixelArray.width, 1))
            let chartX0 = Double(crop.x) * TestChart.aspect / Double(max(pixelArray.width, 1))
            func column(_ boundary: Int) -> Int {
                let x = Double(boundary) * TestChart.aspect / Double(steps.count)
                return min(max(Int(((x - chartX0) / chartPerColumn).rounded()), 0), size.width)
            }
            return PlaneSource(ready: base, strips: steps.enumerated().filter { $0.element > 0 }.map {
                (column($0.offset)..<column($0.offset + 1), Double($0.element) * Self.blurStepPixels)
            }, shift: shift)
        }
        let blurKey = BlurKey(sharp: key, steps: steps[0])
        if let cached = blurred[blurKey] { return PlaneSource(ready: cached, key: .blurred(blurKey), shift: shift) }
        var planes = base
        let extent = Double(steps[0]) * Self.blurStepPixels
        planes.blur(horizontalPixels: extent, verticalPixels: extent)
        remember(blurKey, planes, in: &blurred, order: &blurOrder)
        return PlaneSource(ready: planes, key: .blurred(blurKey), shift: shift)
    }

    private func remember<Key: Hashable>(_ key: Key, _ planes: ScenePlanes, in cache: inout [Key: ScenePlanes], order: inout [Key]) {
        cache[key] = planes
        order.append(key)
        while order.count > Self.cacheLimit { cache[order.removeFirst()] = nil }
    }

    /// The rotation (rolling shutter included: each row at its own time) as a pinhole camera turning
    /// in front of the chart plane sees it: each row through K·R·K⁻¹ of its own rotation, then
    /// motion blur (a box along each axis, the image distance the rotation sweeps during the
    /// exposure). Turning right (+yaw about y) moves the scene left, tilting up (+pitch about x)
    /// moves it down, rolling clockwise (+z) turns it anticlockwise.
    /// True when `planes` now holds memory of its own (from `spare`) rather than the cache's.
    /// `cubic`: Catmull-Rom resampling (stills and the viewfinder), else bilinear (video).
    private static func applyMotion(_ planes: inout ScenePlanes, _ m: Motion, crop: PixelRect, focalLengthPixels f: Double,
                                    cubic: Bool, spare: SparePlanes) -> Bool {
        let (blurX, blurY) = blurPixels(m, focalLengthPixels: f)
        var owned = false
        // Each step writes into spare memory; what it replaces goes back to `spare` if it was ours.
        func step(_ body: (inout ScenePlanes, inout [Float]) -> Bool) {
            var storage = spare.values(count: planes.values.count)
            let replaced = body(&planes, &storage)
            if owned || !replaced { spare.recycle(&storage) }
            owned = owned || replaced
        }
        if let rows = rowMaps(m, crop: crop, rows: planes.size.height, focalLengthPixels: f) {
            step { $0.warp(rows: rows, shift: m.cropShift, cubic: cubic, using: &$1) }
        } else if m.cropShift.dx != 0 || m.cropShift.dy != 0 {
            step { $0.translate(dx: m.cropShift.dx, dy: m.cropShift.dy, using: &$1) }
        }
        let blurs = (blurX >= Self.blurStepPixels || blurY >= Self.blurStepPixels)
            && planes.blurs(horizontalPixels: blurX, verticalPixels: blurY)
        if blurs { step { $0.blur(horizontalPixels: blurX, verticalPixels: blurY, using: &$1) } }
        return owned
    }

    /// The image distance the rotation sweeps during the exposure, output pixels across and down.
    private static func blurPixels(_ m: Motion, focalLengthPixels f: Double) -> (x: Double, y: Double) {
        (abs(m.exposure.y) * f, abs(m.exposure.x) * f)
    }

    /// Each output row's map when the camera turned (`rows` output rows of `crop`), else nil.
    private static func rowMaps(_ m: Motion, crop: PixelRect, rows: Int, focalLengthPixels f: Double) -> [RowHomography]? {
        guard m.rowAttitudes.contains(where: { abs($0.w) < 1 - 1e-15 }) else { return nil }
        // Output row j shows pixel-array row crop.y + (j + ½) × crop.height / rows: its place in the readout.
        let rowsPerOutputRow = Double(crop.height) / Double(rows)
        let top = Double(crop.y) - m.readoutRows.top, span = max(m.readoutRows.count, 1)
        let fractions: [Double] = (0..<rows).map { j in (top + (Double(j) + 0.5) * rowsPerOutputRow) / span }
        return rowHomographies(m.rowAttitudes, fractions: fractions, focalLengthPixels: f)
    }

    /// `applyMotion` for a turning camera as rows drawn where they are used (`MovedRows`): nil when
    /// the camera did not turn or the planes need the whole-frame passes.
    private static func movedRows(_ source: PlaneSource, interleaved: InterleavedPlanes, _ m: Motion, crop: PixelRect,
                                  focalLengthPixels f: Double, cubic: Bool) -> MovedRows? {
        let planes = source.planes()
        guard let maps = rowMaps(m, crop: crop, rows: planes.size.height, focalLengthPixels: f) else { return nil }
        let (blurX, blurY) = blurPixels(m, focalLengthPixels: f)
        let blurs = blurX >= Self.blurStepPixels || blurY >= Self.blurStepPixels
        // Cached planes (not strips or drawn objects) are interleaved once for the bilinear warp.
        let vectors = !cubic && planes.kind == .rgb && source.strips.isEmpty && source.draw == nil
            ? source.key.map { interleaved.values(for: $0, planes) } ?? [] : []
        return MovedRows(planes: planes, interleaved: vectors, maps: maps, shift: m.cropShift, cubic: cubic,
                         blurPixels: blurs ? (blurX, blurY) : nil)
    }

    /// One map per row from the knots (normalised linear interpolation between neighbours);
    /// `fractions` places each row in the readout (0 the first row read, 1 the last).
    static func rowHomographies(_ knots: [Quaternion], fractions: [Double], focalLengthPixels f: Double) -> [RowHomography] {
        guard let first = knots.first else { return Array(repeating: .identity, count: fractions.count) }
        return fractions.map { fraction in
            var q = first
            if knots.count > 1 {
                let u = min(max(fraction, 0), 1) * Double(knots.count - 1)
                let k = min(Int(u), knots.count - 2), t = u - Double(k)
                let a = knots[k], b = knots[k + 1]
                q = Quaternion(w: a.w + (b.w - a.w) * t, x: a.x + (b.x - a.x) * t,
                               y: a.y + (b.y - a.y) * t, z: a.z + (b.z - a.z) * t).normalized
            }
            return RowHomography(rotation: q.normalized.matrixRows, focalLengthPixels: f)
        }
    }
}

/// Plane memory for motion, reused from frame to frame; frames may be drawn on any thread.
final class SparePlanes: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [[Float]] = []

    /// Memory for `count` plane values: a spare buffer of that size (uniquely held, so writing
    /// into it copies nothing) or a new one.
    func values(count: Int) -> [Float] {
        let reused = lock.withLock { () -> [Float]? in
            guard let k = kept.lastIndex(where: { $0.count == count }) else { return nil }
            return kept.remove(at: k)
        }
        return reused ?? [Float](repeating: 0, count: count)
    }

    /// Keeps `values` (emptied here) for later motion: three for each of four frames being drawn
    /// at once (moved, blurred, skewed).
    func recycle(_ values: inout [Float]) {
        let given = values
        values = []
        lock.withLock {
            kept.append(given)
            if kept.count > 12 { kept.removeFirst() }
        }
    }
}

/// Cached planes interleaved (`ScenePlanes.interleave`), the last few, by their cache key; frames
/// may be drawn on any thread.
final class InterleavedPlanes: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [(key: SimulatedFrameRenderer.PlanesKey, values: [SIMD4<Float>])] = []
    /// Entries kept (33 MB each at 1080p): the sharp and the blurred chart of one stream.
    static let limit = 2

    /// `planes` (whose cache key is `key`) interleaved: made once, then shared.
    func values(for key: SimulatedFrameRenderer.PlanesKey, _ planes: ScenePlanes) -> [SIMD4<Float>] {
        lock.withLock {
            if let k = kept.firstIndex(where: { $0.key == key }) { return kept[k].values }
            let values = ScenePlanes.interleave(planes)
            kept.append((key, values))
            if kept.count > Self.limit { kept.removeFirst() }
            return values
        }
    }
}
