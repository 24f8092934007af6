import Hardware
import Motion

/// The geometry of a rotation warp over one frame size: the pinhole camera (focal length in frame
/// pixels, principal point at the centre), the zoom the crop margin buys (the output shows the
/// field ÷ (1 + margin)), the rolling shutter's line time, and the output row bands that each get
/// a homography of their own.
public struct WarpGeometry: Sendable, Equatable {
    public var size: PixelSize
    public var focalLengthPixels: Double
    /// Fraction of the output's size kept around it on each axis: output field = field ÷ (1 + margin).
    public var margin: Double
    /// Time between the exposures of consecutive rows of the frame, nanoseconds (the sensor
    /// mode's readout ÷ its rows, scaled to the frame's rows).
    public var lineNanoseconds: Double
    /// Output rows per band (the last band may be shorter).
    public var bandRows: Int

    public init(size: PixelSize, focalLengthPixels: Double, margin: Double, lineNanoseconds: Double, bandRows: Int = 16) {
        self.size = size; self.focalLengthPixels = focalLengthPixels; self.margin = margin
        self.lineNanoseconds = lineNanoseconds; self.bandRows = max(2, bandRows & ~1)
    }

    public var bandCount: Int { (size.height + bandRows - 1) / bandRows }

    /// The middle of the exposure of frame row `row` (pixels from the top) for a frame whose
    /// first row's exposure started at `start`, the rows `lineNanoseconds` apart.
    public static func rowTime(_ row: Double, start: MonotonicTime, exposureMicroseconds: Double,
                               lineNanoseconds: Double) -> MonotonicTime {
        start + .nanoseconds(Int64((exposureMicroseconds * 500 + row * lineNanoseconds).rounded()))
    }

    /// The centred y (pixels from the frame's centre, down) of band b's middle output row.
    public func bandCentreY(_ b: Int) -> Double {
        let first = b * bandRows, last = min(size.height, first + bandRows) - 1
        return Double(first + last) / 2 + 0.5 - Double(size.height) / 2
    }

    /// The homography of one band: centred output pixel → centred source pixel, for a camera at
    /// `camera` (body to world, when the band's source rows were exposed) and the stabilized
    /// view `view` (body to world): p_src ∝ K · camera⁻¹ · view · K_out⁻¹ · p_out, where K_out
    /// has the focal length × (1 + margin).
    public func homography(camera: Quaternion, view: Quaternion) -> Homography {
        let m = (camera.conjugate * view).normalized.matrixRows
        let f = focalLengthPixels, g = 1 / (focalLengthPixels * (1 + margin))
        return Homography(row0: SIMD3(f * m.0.x * g, f * m.0.y * g, f * m.0.z),
                          row1: SIMD3(f * m.1.x * g, f * m.1.y * g, f * m.1.z),
                          row2: SIMD3(m.2.x * g, m.2.y * g, m.2.z))
    }

    /// How much of the margin a warp uses: 0 when the output's border maps onto the field's
    /// centre part exactly as an unwarped crop does, 1 when some point of the border reaches the
    /// frame's edge, above 1 when it would leave the frame. Checked at the corners and edge
    /// middles of every band.
    public func marginUse(_ bands: [Homography]) -> Double {
        let halfW = Double(size.width) / 2, halfH = Double(size.height) / 2
        let innerW = halfW / (1 + margin), innerH = halfH / (1 + margin)
        let spareW = max(halfW - innerW, 1e-9), spareH = max(halfH - innerH, 1e-9)
        var use = 0.0
        for (b, h) in bands.enumerated() {
            let first = Double(b * bandRows) - halfH, last = Double(min(size.height, (b + 1) * bandRows)) - halfH
            for y in [first, last] {
                for x in [-halfW, 0, halfW] {
                    guard let p = h.apply(x, y) else { return .infinity }
                    use = max(use, (abs(p.x) - innerW) / spareW, (abs(p.y) - innerH) / spareH)
                }
            }
        }
        return max(use, 0)
    }
}

/// A 3 × 3 projective map of centred pixel coordinates, by rows.
public struct Homography: Sendable, Equatable {
    public var row0: SIMD3<Double>, row1: SIMD3<Double>, row2: SIMD3<Double>
    public init(row0: SIMD3<Double>, row1: SIMD3<Double>, row2: SIMD3<Double>) {
        self.row0 = row0; self.row1 = row1; self.row2 = row2
    }
    /// The image of (x, y); nil behind the camera.
    public func apply(_ x: Double, _ y: Double) -> SIMD2<Double>? {
        let p = SIMD3(x, y, 1), d = (row2 * p).sum()
        guard d > 1e-9 else { return nil }
        return SIMD2((row0 * p).sum() / d, (row1 * p).sum() / d)
    }
}
