import Camera
import Foundation  // exp
import Hardware
import Motion

/// One frame's stabilizing crop.
public struct EISCrop: Equatable, Sendable {
    /// Time of the frame (middle of its exposure) the crop is for.
    public var frameTime: MonotonicTime
    /// The crop in field coordinates (the field is the planner's `field`; for ScalerCrop this is the
    /// format's sensor crop, so add its x, y).
    public var rect: PixelRect
    /// Where the reference scene point is in this frame, pixels from the field centre (the raw path).
    public var rawPathPixels: SIMD2<Double>
    /// The crop centre's offset from the field centre, pixels (after clamping to the margin).
    public var offsetPixels: SIMD2<Double>
    /// What the viewer sees move: raw path − offset.
    public var displayedPathPixels: SIMD2<Double> { rawPathPixels - offsetPixels }
}

/// Plans per-frame crops from the camera's orientation (EIS by cropping, driven by the gyro).
///
/// The raw path is where the scene point that was at the centre of the first frame lies in each
/// frame (exact pinhole projection of the relative rotation; roll about the optical axis is left
/// in, a translation crop cannot undo it). The crop follows the raw path minus a smoothed path, so
/// the viewer sees only the smoothed motion, clamped to the margin:
/// - Standard: causal exponential smoothing (time constant 0.25 s), margin 10 %, no latency.
/// - Cinematic: centred Gaussian over ±N frames (N = 15, σ = N/2), margin 20 %, latency N frames
///   and N + 1 frames of memory (buffers must be held that long for a software crop).
/// Loop-confined.
public final class EISCropPlanner {
    public let mode: StabilizationMode
    /// The full field the crops are cut from, pixels.
    public let field: PixelSize
    /// Focal length in field pixels.
    public let focalLengthPixels: Double
    /// Fraction of the crop size kept around it: crop = field ÷ (1 + margin).
    public let margin: Double
    /// Frames of lookahead (0 for standard).
    public let lookaheadFrames: Int
    /// Causal smoothing time constant (standard), seconds.
    public let timeConstantSeconds: Double

    private var reference: Quaternion?
    private var smoothed: SIMD2<Double>?
    private var lastTime: MonotonicTime?
    private var pending: [(time: MonotonicTime, path: SIMD2<Double>)] = []
    private var emitted = 0

    /// `mode` must be standard or cinematic (auto is resolved first by `VideoStabilization`).
    public init(mode: StabilizationMode, field: PixelSize, focalLengthPixels: Double, lookaheadFrames: Int = 15) throws(StabilizationError) {
        switch mode {
        case .standard: margin = 0.10; self.lookaheadFrames = 0
        case .cinematic: margin = 0.20; self.lookaheadFrames = max(1, lookaheadFrames)
        case .off, .auto:
            throw StabilizationError(.invalidArgument, "EIS crop planner: mode \(mode.rawValue) has no crop path (resolve auto first; off needs none)")
        }
        guard field.width > 0, field.height > 0, focalLengthPixels > 0 else {
            throw StabilizationError(.invalidArgument, "EIS crop planner: field \(field) / focal length \(focalLengthPixels) px must be positive")
        }
        self.mode = mode; self.field = field; self.focalLengthPixels = focalLengthPixels
        timeConstantSeconds = 0.25
    }

    /// The size of every crop: the field shrunk by the margin, even.
    public var cropSize: PixelSize {
        PixelSize(width: Int(Double(field.width) / (1 + margin)) & ~1, height: Int(Double(field.height) / (1 + margin)) & ~1)
    }

    /// Adds the next frame's orientation (body to world, at the middle of its exposure); returns the
    /// crops now decided (standard: this frame; cinematic: the frame N back, once known).
    public func push(frameTime: MonotonicTime, orientation: Quaternion) -> [EISCrop] {
        let reference = self.reference ?? orientation
        self.reference = reference
        let path = project((reference.conjugate * orientation).normalized)
        if lookaheadFrames == 0 { return [causal(time: frameTime, path: path)] }
        pending.append((frameTime, path))
        let centre = emitted
        guard pending.count > centre + lookaheadFrames else { return [] }
        return [centred(at: centre)]
    }

    /// The crops still held by the lookahead (end of recording), smoothed over what is there.
    public func flush() -> [EISCrop] {
        guard lookaheadFrames > 0 else { return [] }
        var out: [EISCrop] = []
        while emitted < pending.count { out.append(centred(at: emitted)) }
        return out
    }

    /// Where the reference centre point lands in a frame rotated by `relative` (body of the frame to
    /// body of the reference): direction in the frame = relative⁻¹ · z, projected.
    func project(_ relative: Quaternion) -> SIMD2<Double> {
        let v = relative.conjugate.rotate(Vector3(0, 0, 1))
        guard v.z > 1e-6 else { return .zero }
        return SIMD2(focalLengthPixels * v.x / v.z, focalLengthPixels * v.y / v.z)
    }

    private func causal(time: MonotonicTime, path: SIMD2<Double>) -> EISCrop {
        let dt = lastTime.map { max(0, (time - $0).secondsValue) } ?? 0
        lastTime = time
        var s = smoothed ?? path
        let alpha = 1 - exp(-dt / timeConstantSeconds)
        s += (path - s) * alpha
        let crop = makeCrop(time: time, path: path, smoothed: s)
        smoothed = path - crop.offsetPixels  // the clamp drags the smooth path along
        return crop
    }

    private func centred(at index: Int) -> EISCrop {
        let n = lookaheadFrames, sigma = Double(lookaheadFrames) / 2
        var sum = SIMD2<Double>.zero, weights = 0.0
        for k in max(0, index - n)...min(pending.count - 1, index + n) {
            let w = exp(-Double((k - index) * (k - index)) / (2 * sigma * sigma))
            sum += pending[k].path * w; weights += w
        }
        emitted += 1
        let crop = makeCrop(time: pending[index].time, path: pending[index].path, smoothed: sum / weights)
        // Keep N frames of history behind the next centre; drop older ones (bounded memory).
        if emitted > n { pending.removeFirst(); emitted -= 1 }
        return crop
    }

    private func makeCrop(time: MonotonicTime, path: SIMD2<Double>, smoothed: SIMD2<Double>) -> EISCrop {
        let size = cropSize
        let limit = SIMD2(Double(field.width - size.width) / 2, Double(field.height - size.height) / 2)
        let offset = SIMD2(min(max(path.x - smoothed.x, -limit.x), limit.x), min(max(path.y - smoothed.y, -limit.y), limit.y))
        let x = Int((Double(field.width - size.width) / 2 + offset.x).rounded())
        let y = Int((Double(field.height - size.height) / 2 + offset.y).rounded())
        let rect = PixelRect(x: min(max(x, 0), field.width - size.width), y: min(max(y, 0), field.height - size.height),
                             width: size.width, height: size.height)
        return EISCrop(frameTime: time, rect: rect, rawPathPixels: path, offsetPixels: offset)
    }

    /// The ScalerCrop control value for `crop` when the field is `sensorCrop` (pixel-array
    /// coordinates, as libcamera's ScalerCrop takes them).
    public static func scalerCrop(_ crop: EISCrop, sensorCrop: PixelRect, field: PixelSize) -> PixelRect {
        let sx = Double(sensorCrop.width) / Double(field.width), sy = Double(sensorCrop.height) / Double(field.height)
        return PixelRect(x: sensorCrop.x + Int((Double(crop.rect.x) * sx).rounded()),
                         y: sensorCrop.y + Int((Double(crop.rect.y) * sy).rounded()),
                         width: Int((Double(crop.rect.width) * sx).rounded()), height: Int((Double(crop.rect.height) * sy).rounded()))
    }
}
